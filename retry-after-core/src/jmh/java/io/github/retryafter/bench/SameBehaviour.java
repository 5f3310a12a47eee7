package io.github.retryafter.bench;

import java.util.Objects;
import java.util.SplittableRandom;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * Benchmark-only: before {@link BudgetContentionBenchmark} measures anything, drives the shipped lock-free budget and
 * its locked copy through the same seeded random sequence of calls on a hand-moved ticker and fails the trial at the
 * first answer that differs, so the two variants being compared are known to behave the same (single-threaded).
 */
final class SameBehaviour {

	private SameBehaviour() {
	}

	/** Compares {@link TokenBucketRetryBudget} with {@link LockedRetryBudget}. */
	static void budgets() {
		long[] now = { 1_000_000_000L };
		BudgetSettings provider = new BudgetSettings(3, 0.5, 2);
		BudgetSettings global = new BudgetSettings(5, 0.2, 1);
		RetryBudget shipped = TokenBucketRetryBudget.builder()
			.providerDefaults(provider)
			.global(global)
			.ticker(() -> now[0])
			.build();
		RetryBudget locked = new LockedRetryBudget(provider, global, () -> now[0]);
		SplittableRandom random = new SplittableRandom(7);
		for (int i = 0; i < 20_000; i++) {
			now[0] += random.nextInt(4) == 0 ? 0 : random.nextLong(300_000_000L);
			String name = "p" + random.nextInt(3);
			int op = random.nextInt(5);
			Object a;
			Object b;
			switch (op) {
				case 0, 1 -> {
					a = shipped.tryAcquire(name);
					b = locked.tryAcquire(name);
				}
				case 2 -> {
					shipped.recordSuccess(name);
					locked.recordSuccess(name);
					a = shipped.availableTokens(name);
					b = locked.availableTokens(name);
				}
				case 3 -> {
					shipped.refund(name);
					locked.refund(name);
					a = shipped.globalTokens();
					b = locked.globalTokens();
				}
				default -> {
					a = shipped.availableTokens(name);
					b = locked.availableTokens(name);
				}
			}
			check(a, b, "budget", i);
		}
	}

	private static void check(Object shipped, Object locked, String what, int step) {
		if (!Objects.equals(shipped, locked)) {
			throw new IllegalStateException(what + ": the locked copy answered " + locked + " where the shipped one answered "
					+ shipped + " at step " + step);
		}
	}

}
