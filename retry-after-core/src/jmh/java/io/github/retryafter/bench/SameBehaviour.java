package io.github.retryafter.bench;

import java.util.Objects;
import java.util.SplittableRandom;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.pacing.ProviderGate.Admission;

/**
 * Benchmark-only: before a contention benchmark measures anything, drives the shipped lock-free structure and its
 * locked copy through the same seeded random sequence of calls on a hand-moved ticker and fails the trial at the first
 * answer that differs, so the two variants being compared are known to behave the same (single-threaded).
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

	/** Compares {@link ProviderGate} with {@link LockedProviderGate}, in both pacing modes that consult the gate. */
	static void gates() {
		for (PacingMode mode : new PacingMode[] { PacingMode.HOLD, PacingMode.FAIL_FAST }) {
			PacingSettings settings = PacingSettings.builder().mode(mode).maxRate(50).burst(2).build();
			long[] now = { 5_000_000_000L };
			ProviderGate shipped = new ProviderGate("p", settings, () -> now[0]);
			LockedProviderGate locked = new LockedProviderGate("p", settings, () -> now[0]);
			Admission.Hold[] heldA = new Admission.Hold[8];
			Admission.Hold[] heldB = new Admission.Hold[8];
			SplittableRandom random = new SplittableRandom(11);
			for (int i = 0; i < 20_000; i++) {
				now[0] += random.nextInt(3) == 0 ? 0 : random.nextLong(40_000_000L);
				int op = random.nextInt(10);
				Object a;
				Object b;
				if (op == 0) {
					long until = now[0] + random.nextLong(2_000_000_000L);
					shipped.closeUntil(until);
					locked.closeUntil(until);
					a = shipped.cooldownUntilNanos();
					b = locked.cooldownUntilNanos();
				}
				else if (op == 1) {
					long sentAt = now[0] - random.nextLong(500_000_000L);
					shipped.onThrottle(sentAt, now[0]);
					locked.onThrottle(sentAt, now[0]);
					a = shipped.rate();
					b = locked.rate();
				}
				else if (op <= 4) {
					shipped.onSuccess(now[0]);
					locked.onSuccess(now[0]);
					a = shipped.rate();
					b = locked.rate();
				}
				else if (op == 5) {
					shipped.probeAnswered(true);
					locked.probeAnswered();
					a = shipped.probing();
					b = locked.probing();
				}
				else {
					int client = random.nextInt(8);
					boolean fresh = random.nextBoolean();
					long latest = now[0] + random.nextLong(3_000_000_000L);
					Admission x = shipped.admit(fresh, now[0], latest, heldA[client]);
					Admission y = locked.admit(fresh, now[0], latest, heldB[client]);
					heldA[client] = (x instanceof Admission.Hold hold) ? hold : null;
					heldB[client] = (y instanceof Admission.Hold hold) ? hold : null;
					a = x;
					b = y;
				}
				check(a, b, "gate " + mode, i);
			}
		}
	}

	private static void check(Object shipped, Object locked, String what, int step) {
		if (!Objects.equals(shipped, locked)) {
			throw new IllegalStateException(what + ": the locked copy answered " + locked + " where the shipped one answered "
					+ shipped + " at step " + step);
		}
	}

}
