package io.github.retryafter.budget;

/**
 * The shape of one token bucket of a {@link TokenBucketRetryBudget}: how many retry tokens it holds when full, how many
 * a successful first attempt deposits, and how many it regains per second on its own.
 * <p>
 * In steady state the deposit ratio bounds retries to about that fraction of first attempts (0.2: retries stay near
 * 20% of traffic); the per-second floor lets a quiet client, which has few successes to earn tokens from, still retry.
 * Immutable and thread-safe.
 *
 * @param capacity the tokens a full bucket holds; buckets start full. Below 1 the bucket never admits a retry
 * @param depositRatio the tokens a successful first attempt deposits
 * @param refillPerSecond the tokens regained per second of elapsed time, whatever the traffic
 */
public record BudgetSettings(double capacity, double depositRatio, double refillPerSecond) {

	/** The per-provider default: capacity 20, deposit ratio 0.2, 1 token per second. */
	public static final BudgetSettings PROVIDER_DEFAULTS = new BudgetSettings(20, 0.2, 1);

	/** The global default, larger than one provider's and shared by all: capacity 100, ratio 0.2, 5 tokens per second. */
	public static final BudgetSettings GLOBAL_DEFAULTS = new BudgetSettings(100, 0.2, 5);

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param capacity the tokens a full bucket holds; buckets start full. Below 1 the bucket never admits a retry
	 * @param depositRatio the tokens a successful first attempt deposits
	 * @param refillPerSecond the tokens regained per second of elapsed time, whatever the traffic
	 */
	public BudgetSettings {
		requireFiniteNonNegative("capacity", capacity);
		requireFiniteNonNegative("depositRatio", depositRatio);
		requireFiniteNonNegative("refillPerSecond", refillPerSecond);
	}

	/**
	 * Returns settings with the given capacity and the default deposit ratio (0.2) and no per-second floor.
	 * @param capacity the tokens a full bucket holds
	 * @return new settings
	 */
	public static BudgetSettings ofCapacity(double capacity) {
		return new BudgetSettings(capacity, 0.2, 0);
	}

	/**
	 * Returns a copy with the given capacity.
	 * @param capacity the tokens a full bucket holds
	 * @return new settings
	 */
	public BudgetSettings withCapacity(double capacity) {
		return new BudgetSettings(capacity, this.depositRatio, this.refillPerSecond);
	}

	/**
	 * Returns a copy with the given deposit ratio.
	 * @param depositRatio the tokens a successful first attempt deposits
	 * @return new settings
	 */
	public BudgetSettings withDepositRatio(double depositRatio) {
		return new BudgetSettings(this.capacity, depositRatio, this.refillPerSecond);
	}

	/**
	 * Returns a copy with the given per-second floor.
	 * @param refillPerSecond the tokens regained per second
	 * @return new settings
	 */
	public BudgetSettings withRefillPerSecond(double refillPerSecond) {
		return new BudgetSettings(this.capacity, this.depositRatio, refillPerSecond);
	}

	private static void requireFiniteNonNegative(String name, double value) {
		if (!(value >= 0) || Double.isInfinite(value)) {
			throw new IllegalArgumentException(name + " must be a finite number >= 0 but was " + value);
		}
	}

}
