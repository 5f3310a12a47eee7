package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.InMemoryFleetStore;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

/**
 * A deterministic simulation of a fleet of application instances that share a store, each instance the real
 * {@link RetryEngine} with its own {@link ProviderGate}, behind one provider that is down for a while
 * ({@code 503} with a fixed {@code Retry-After}) and then admits a rate through a token bucket ({@code 429} with its
 * own {@code Retry-After} beyond it). Operations are dealt round-robin over the instances and all start at once.
 * <p>
 * <b>The fleet is the one users run:</b> in {@link Mode#STORE} each instance's budget is the real
 * {@link FleetRetryBudget} and its cooldown the real {@link SharedCooldown} (the cooldown pushed and read back, the
 * fleet's probe claim, the backlog report that sets each gate's share and rate), over one {@link InMemoryFleetStore}
 * on the virtual time line, deciding every retry as Reactor's event loops do (no round trip on the caller's thread);
 * what an instance hands its store's thread runs half a round trip later, and each instance flushes every flush
 * interval. {@link Mode#STORE_UNCOORDINATED} shares the same store without that coordination (a fixed share of the
 * budget, every instance pacing at the whole rate and probing for itself), to show the collapse a fleet meets then.
 * <p>
 * Everything runs on one virtual time line (the store's clock is that time line; clocks are exact), so the same
 * workload, store, mode and seed always give the same result. Stateless and thread-safe; a run is confined to the
 * calling thread.
 */
public final class FleetStoreSimulation {

	private static final long SECOND = FleetStoreRun.SECOND;

	private FleetStoreSimulation() {
	}

	/**
	 * What the instances share, and how.
	 */
	public enum Mode {

		/** No store: each instance has its own gate, its own cooldown and its own budget. */
		INDEPENDENT(false, false),

		/**
		 * A store without coordination: budget and cooldown shared, each instance pacing at the whole provider's rate
		 * and probing after every fleet cooldown, refunds reaching the store only at a flush, an empty share refusing a
		 * retry at once, and every retry taking a token
		 * ({@link io.github.retryafter.budget.HintedRetries#TOKENS}): {@code UncoordinatedFleetBudget} and
		 * {@code UncoordinatedCooldown}.
		 */
		STORE_UNCOORDINATED(true, false),

		/**
		 * The store as the starter runs it: the real {@link FleetRetryBudget} (tokens leased by demand, a retry takes
		 * over a refund not yet flushed and waits for tokens held in flight) and the real
		 * {@link SharedCooldown} (each gate pacing at {@code 1/N} of the provider, its part of the fleet's rate while it
		 * holds a backlog, and one probe per fleet).
		 */
		STORE(true, true);

		private final boolean shared;

		private final boolean coordinated;

		Mode(boolean shared, boolean coordinated) {
			this.shared = shared;
			this.coordinated = coordinated;
		}

		boolean shared() {
			return this.shared;
		}

		boolean coordinated() {
			return this.coordinated;
		}

	}

	/**
	 * The modelled store.
	 * @param flushInterval how often each instance sends what it batched and reads the fleet's state back
	 * @param roundTrip the time from a command's sending to its reply (the store applies it half-way)
	 */
	public record Store(Duration flushInterval, Duration roundTrip) {

		/** The starter's default flush interval (50 ms) and a round trip of 1 ms. */
		public static final Store DEFAULTS = new Store(Duration.ofMillis(50), Duration.ofMillis(1));

		/**
		 * Checks the arguments.
		 * @param flushInterval how often each instance sends what it batched and reads the fleet's state back
		 * @param roundTrip the time from a command's sending to its reply (the store applies it half-way)
		 */
		public Store {
			if (flushInterval.isNegative() || flushInterval.isZero() || roundTrip.isNegative()) {
				throw new IllegalArgumentException("the store needs a positive flush interval and a round trip of zero "
						+ "or more, not " + flushInterval + " and " + roundTrip);
			}
		}

	}

	/**
	 * The backlog: operations started together against a provider that is down, then rate-limited.
	 * @param operations the operations, dealt round-robin over the instances
	 * @param outage how long the provider is down from the start
	 * @param outageHint the {@code Retry-After} seconds of its {@code 503}s
	 * @param rate the requests a second it admits once back
	 * @param burst its token bucket's size, full when it comes back
	 * @param rateHint the {@code Retry-After} seconds of its {@code 429}s
	 * @param latencyMin the shortest one-way latency to the provider
	 * @param latencyMax the longest one-way latency to the provider
	 * @param policy each instance's retry policy (pacing on)
	 * @param budget each provider bucket's settings, the one bucket the fleet shares
	 */
	public record Backlog(int operations, Duration outage, int outageHint, double rate, int burst, int rateHint,
			Duration latencyMin, Duration latencyMax, RetryPolicy policy, BudgetSettings budget) {

		/**
		 * Checks the arguments.
		 * @param operations the operations, dealt round-robin over the instances
		 * @param outage how long the provider is down from the start
		 * @param outageHint the {@code Retry-After} seconds of its {@code 503}s
		 * @param rate the requests a second it admits once back
		 * @param burst its token bucket's size, full when it comes back
		 * @param rateHint the {@code Retry-After} seconds of its {@code 429}s
		 * @param latencyMin the shortest one-way latency to the provider
		 * @param latencyMax the longest one-way latency to the provider
		 * @param policy each instance's retry policy (pacing on)
		 * @param budget each provider bucket's settings, the one bucket the fleet shares
		 */
		public Backlog {
			Objects.requireNonNull(policy, "policy");
			Objects.requireNonNull(budget, "budget");
			if (operations < 1 || outageHint < 1 || rateHint < 1 || !(rate > 0) || burst < 1
					|| latencyMin.compareTo(latencyMax) > 0 || latencyMin.isNegative()) {
				throw new IllegalArgumentException("a backlog needs operations, hints and a burst of at least 1, a "
						+ "positive rate and 0 <= latency min <= max");
			}
		}

		/**
		 * Returns a fleet's backlog behind an outage, then a rate limit: 2,000 operations against a provider down for
		 * 3 s ({@code 503 Retry-After: 2}) that then admits 400 requests a second with a burst of 40
		 * ({@code 429 Retry-After: 1}); the starter's defaults (pacing on, the 20-token provider budget) with 6
		 * attempts and a 30 s deadline; latency 1 to 5 ms each way.
		 * @return the backlog
		 */
		public static Backlog outageThenRateLimit() {
			RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
				.maxAttempts(6)
				.deadline(Duration.ofSeconds(30))
				.pacing(PacingSettings.DEFAULTS)
				.build();
			return new Backlog(2000, Duration.ofSeconds(3), 2, 400, 40, 1, Duration.ofMillis(1), Duration.ofMillis(5),
					policy, BudgetSettings.PROVIDER_DEFAULTS);
		}

		/**
		 * Returns when the operation at quantile {@code q} completes at the earliest if every operation honours every
		 * hint: nobody comes back before the first hint instant at or after the recovery, then the provider admits its
		 * burst at once and the rest at its rate.
		 * @param q the quantile, in {@code (0, 1]}
		 * @return the bound, from the start
		 */
		public Duration bound(double q) {
			long hint = this.outageHint * SECOND;
			long back = Math.floorDiv(this.outage.toNanos() + hint - 1, hint) * hint;
			double rank = Math.ceil(q * this.operations);
			return Duration.ofNanos(back + (long) (Math.max(0, rank - this.burst) / this.rate * SECOND));
		}

	}

	/**
	 * One run's result.
	 * @param mode what the instances shared
	 * @param instances the fleet's instances
	 * @param operations the operations
	 * @param successes the operations that succeeded
	 * @param attempts the requests the provider received
	 * @param early the retries that reached the provider before the instant a refusal of the same operation named
	 * @param failedRetries the retries holding a budget token that did not succeed
	 * @param failedPacedRetries the retries the provider asked for, sent without a token (the default rule,
	 * {@link io.github.retryafter.budget.HintedRetries#PACED}), that did not succeed: bounded by the gate (one probe per
	 * cooldown, then the paced rate), not by the budget
	 * @param failedRetryBound what the shared budget admits of {@code failedRetries}: capacity, plus the deposits of
	 * successful first attempts,
	 * plus the refill over the run (per instance for {@link Mode#INDEPENDENT})
	 * @param outcomes how the operations ended
	 * @param p50 when the median operation completed, empty without successes
	 * @param p99 when the 99th percentile operation completed, empty without successes
	 * @param bound50 the median's bound ({@link Backlog#bound})
	 * @param bound99 the 99th percentile's bound
	 * @param firstFailures when and why the first operations that did not succeed ended (three at most)
	 */
	public record Result(Mode mode, int instances, int operations, int successes, long attempts, long early,
			long failedRetries, long failedPacedRetries, double failedRetryBound, Map<Outcome, Integer> outcomes,
			Optional<Duration> p50, Optional<Duration> p99, Duration bound50, Duration bound99,
			List<String> firstFailures) {

		/**
		 * Checks the arguments.
		 * @param mode what the instances shared
		 * @param instances the fleet's instances
		 * @param operations the operations
		 * @param successes the operations that succeeded
		 * @param attempts the requests the provider received
		 * @param early the retries that reached the provider early
		 * @param failedRetries the retries holding a token that did not succeed
		 * @param failedPacedRetries the retries sent without a token that did not succeed
		 * @param failedRetryBound what the shared budget admits
		 * @param outcomes how the operations ended
		 * @param p50 when the median operation completed
		 * @param p99 when the 99th percentile operation completed
		 * @param bound50 the median's bound
		 * @param bound99 the 99th percentile's bound
		 * @param firstFailures when and why the first operations that did not succeed ended (three at most)
		 */
		public Result {
			outcomes = Map.copyOf(outcomes);
			firstFailures = List.copyOf(firstFailures);
		}

		/**
		 * Returns the share of operations that succeeded.
		 * @return a fraction in {@code [0, 1]}
		 */
		public double successRate() {
			return (double) this.successes / this.operations;
		}

		/**
		 * Returns the requests per operation.
		 * @return the amplification
		 */
		public double attemptsPerOperation() {
			return (double) this.attempts / this.operations;
		}

		/**
		 * Returns the median's completion as a multiple of its bound.
		 * @return the ratio, {@code NaN} without successes
		 */
		public double p50Ratio() {
			return this.p50.map((done) -> (double) done.toNanos() / this.bound50.toNanos()).orElse(Double.NaN);
		}

		/**
		 * Returns the 99th percentile's completion as a multiple of its bound.
		 * @return the ratio, {@code NaN} without successes
		 */
		public double p99Ratio() {
			return this.p99.map((done) -> (double) done.toNanos() / this.bound99.toNanos()).orElse(Double.NaN);
		}

		/**
		 * Returns one line for a report.
		 * @return the line
		 */
		public String line() {
			return String.format(java.util.Locale.ROOT,
					"%-12s %3d instances: %6.2f%% success, %.2f attempts/op, %d early, p50 %s (%.2fx), p99 %s (%.2fx), "
							+ "failed retries %d of %.0f (tokens) + %d paced by hints, %s",
					this.mode, this.instances, 100 * successRate(), attemptsPerOperation(), this.early, seconds(this.p50),
					p50Ratio(), seconds(this.p99), p99Ratio(), this.failedRetries, this.failedRetryBound,
					this.failedPacedRetries,
					new java.util.TreeMap<>(this.outcomes))
					+ this.firstFailures.stream().map((line) -> System.lineSeparator() + "    " + line)
						.collect(java.util.stream.Collectors.joining());
		}

		private static String seconds(Optional<Duration> value) {
			return value.map((done) -> String.format(java.util.Locale.ROOT, "%.2f s", done.toNanos() / 1e9))
				.orElse("-");
		}

	}

	/**
	 * Runs the backlog on a fleet.
	 * @param backlog the backlog
	 * @param instances the fleet's instances, at least 1
	 * @param store the modelled store (ignored for {@link Mode#INDEPENDENT})
	 * @param mode what the instances share
	 * @param seed the seed every random draw derives from
	 * @return the result
	 */
	public static Result run(Backlog backlog, int instances, Store store, Mode mode, long seed) {
		Objects.requireNonNull(backlog, "backlog");
		Objects.requireNonNull(store, "store");
		Objects.requireNonNull(mode, "mode");
		if (instances < 1) {
			throw new IllegalArgumentException("a fleet has at least one instance, not " + instances);
		}
		return new FleetStoreRun(backlog, instances, store, mode, seed).execute();
	}

}
