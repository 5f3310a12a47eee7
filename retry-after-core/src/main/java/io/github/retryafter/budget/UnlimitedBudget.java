package io.github.retryafter.budget;

/**
 * The budget behind {@link RetryBudget#unlimited()}. Stateless and thread-safe.
 */
final class UnlimitedBudget implements RetryBudget {

	static final UnlimitedBudget INSTANCE = new UnlimitedBudget();

	private UnlimitedBudget() {
	}

	@Override
	public boolean tryAcquire(String provider) {
		return true;
	}

	@Override
	public void recordSuccess(String provider) {
	}

	@Override
	public double availableTokens(String provider) {
		return Double.POSITIVE_INFINITY;
	}

	@Override
	public double globalTokens() {
		return Double.POSITIVE_INFINITY;
	}

	@Override
	public String toString() {
		return "RetryBudget.unlimited()";
	}

}
