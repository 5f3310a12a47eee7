package io.github.retryafter.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Scope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.SeededRandom;

/**
 * A deterministic simulation of a fleet of application instances that share a store (issue 17), each instance the
 * real {@link RetryEngine} with its own {@link ProviderGate}, behind one provider that is down for a while
 * ({@code 503} with a fixed {@code Retry-After}) and then admits a rate through a token bucket ({@code 429} with its
 * own {@code Retry-After} beyond it). Operations are dealt round-robin over the instances and all start at once.
 * <p>
 * <b>The store is modelled</b> on what the starter's Redis store does for a provider, with its flush interval and
 * round trip as parameters: a retry budget decided on each instance from its <em>share</em> (the last level read,
 * divided by the instances, less what it took since), its takes, deposits and refunds sent every flush interval (and
 * at once after a take), the level read back one round trip later; a cooldown pushed when a gate closes and read back
 * every flush; and, in {@link Mode#STORE}, the probe after a cooldown claimed by the first instance to ask (one more
 * round trip) and its claim removed when its answer comes, each gate pacing at {@code 1/N} of the provider (at
 * {@code 1/B} of it while B instances hold a backlog, at the fleet's rate times its part of their backlog, as the
 * starter's backlog report sets it; a gate the fleet's cooldown closed turns its rate on), and retries waiting for
 * tokens held in flight. The model decides every retry as Reactor's event loops do (on the share,
 * no round trip); a blocking client's round trip per retry is not modelled.
 * <p>
 * Everything runs on one virtual time line (the store's clock is that time line; clocks are exact), so the same
 * workload, store, mode and seed always give the same result. Stateless and thread-safe; a run is confined to the
 * calling thread.
 */
public final class FleetStoreSimulation {

	private static final long SECOND = 1_000_000_000L;

	private static final Instant ORIGIN = FakeClock.DEFAULT_ORIGIN;

	private static final String PROVIDER = OperationSpec.DEFAULT_PROVIDER;

	/** The most tokens one exchange asks the store for. */
	private static final int MAX_LEASE = 4;

	/** How long leased tokens stay with an instance after one of its retries found none. */
	private static final long KEEP_NANOS = 200_000_000L;

	/** How long a token a successful retry gave back stays with its instance, for that instance's next retry. */
	private static final long REFUND_KEEP_NANOS = 20_000_000L;

	private FleetStoreSimulation() {
	}

	/**
	 * What the instances share, and how.
	 */
	public enum Mode {

		/** No store: each instance has its own gate, its own cooldown and its own budget. */
		INDEPENDENT(false, false),

		/**
		 * The store before issue 17: budget and cooldown shared, each instance pacing at the whole provider's rate and
		 * probing after every fleet cooldown, refunds reaching the store only at a flush, and an empty share refusing a
		 * retry at once.
		 */
		STORE_BEFORE(true, false),

		/**
		 * The store after issue 17: as {@link #STORE_BEFORE}, and each gate paces at {@code 1/N} of the provider (its
		 * part of the fleet's rate while it holds a backlog), one probe per fleet, a retry takes over a refund not yet
		 * flushed, and waits for tokens held in flight.
		 */
		STORE(true, true);

		private final boolean shared;

		private final boolean coordinated;

		Mode(boolean shared, boolean coordinated) {
			this.shared = shared;
			this.coordinated = coordinated;
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
		 * Returns issue 17's backlog: 2,000 operations against a provider down for 3 s ({@code 503 Retry-After: 2})
		 * that then admits 400 requests a second with a burst of 40 ({@code 429 Retry-After: 1}); the starter's
		 * defaults (pacing on, the 20-token provider budget) with 6 attempts and a 30 s deadline; latency 1 to 5 ms
		 * each way.
		 * @return the backlog
		 */
		public static Backlog issue17() {
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
	 * @param failedRetries the retries that did not succeed
	 * @param failedRetryBound what the shared budget admits: capacity, plus the deposits of successful first attempts,
	 * plus the refill over the run (per instance for {@link Mode#INDEPENDENT})
	 * @param outcomes how the operations ended
	 * @param p50 when the median operation completed, empty without successes
	 * @param p99 when the 99th percentile operation completed, empty without successes
	 * @param bound50 the median's bound ({@link Backlog#bound})
	 * @param bound99 the 99th percentile's bound
	 * @param firstFailures when and why the first operations that did not succeed ended (three at most)
	 */
	public record Result(Mode mode, int instances, int operations, int successes, long attempts, long early,
			long failedRetries, double failedRetryBound, Map<Outcome, Integer> outcomes, Optional<Duration> p50,
			Optional<Duration> p99, Duration bound50, Duration bound99, List<String> firstFailures) {

		/**
		 * Checks the arguments.
		 * @param mode what the instances shared
		 * @param instances the fleet's instances
		 * @param operations the operations
		 * @param successes the operations that succeeded
		 * @param attempts the requests the provider received
		 * @param early the retries that reached the provider early
		 * @param failedRetries the retries that did not succeed
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
							+ "failed retries %d of %.0f, %s",
					this.mode, this.instances, 100 * successRate(), attemptsPerOperation(), this.early, seconds(this.p50),
					p50Ratio(), seconds(this.p99), p99Ratio(), this.failedRetries, this.failedRetryBound,
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
		return new Run(backlog, instances, store, mode, seed).execute();
	}

	private enum Kind {

		SEND, ARRIVE, RECEIVE, FLUSH, SYNC_AT_STORE, SYNC_REPLY, CLAIM_AT_STORE, CLAIM_REPLY, CLAIM_GONE,
		END_PROBE_AT_STORE, EXCHANGE_AT_STORE, EXCHANGE_REPLY

	}

	private record Event(long at, long sequence, Kind kind, int subject, long value) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	/** The shared store: one provider bucket, its cooldown instant and its probe claim. */
	private static final class StoreState {

		double tokens;

		long tokensAt;

		long cooldownUntil = Long.MIN_VALUE;

		long claimUntil = Long.MIN_VALUE;

		int claimOwner = -1;

		// tokens leased to the instances and not yet given back or spent
		long out;

		double level(BudgetSettings settings, long now) {
			double elapsed = Math.max(0, now - this.tokensAt) / (double) SECOND;
			this.tokens = Math.min(settings.capacity(), this.tokens + settings.refillPerSecond() * elapsed);
			this.tokensAt = now;
			return this.tokens;
		}

	}

	/** One operation: its instance, its engine operation, its request in flight. */
	private static final class Op {

		final int index;

		final Instance instance;

		RetryOperation operation;

		int attempts;

		long sentAt;

		long instructedAt = Long.MIN_VALUE;

		int status;

		String retryAfter;

		String date;

		Op(int index, Instance instance) {
			this.index = index;
			this.instance = instance;
		}

	}

	/** One application instance: its engine (and so its gate) and its side of the store. */
	private static final class Instance implements RetryBudget {

		final int index;

		final Run run;

		RetryEngine engine;

		// the budget's local side, as RedisRetryBudget keeps it
		double share;

		long shareAt;

		double debt;

		long unflushedRefunds;

		long unflushedSuccesses;

		int inFlight;

		double reading;

		long readingAt;

		boolean flushRequested;

		// the lease side (Mode.STORE): tokens leased from the store or refunded here, retries that found none since
		// the last exchange, whether an exchange is on its way
		double pool;

		int wanted;

		// retries here that failed since the last exchange (their leased tokens are spent), and the tokens the whole
		// fleet holds leased (pooled or in flight) as of the last exchange
		long spent;

		long fleetOut;

		long fleetOutSeen;

		long lastWantedAt = Long.MIN_VALUE / 2;

		// the backlog report (Mode.STORE), as RedisProviderCooldown keeps it: when the gate last held requests, what
		// the last flush reported (requests held, rate) and whether it reported a backlog at all, and the fleet's sums
		// the store answered (instances with a backlog, requests they hold, requests per second they pace at)
		long lastBacklog = Long.MIN_VALUE;

		boolean reporting;

		int reportedQueued;

		double reportedRate;

		int fleetBacklogged;

		long fleetQueued;

		double fleetRate;

		long lastRefundAt = Long.MIN_VALUE / 2;

		boolean exchangePending;

		// the cooldown's and the probe's side
		long pushedCooldown = Long.MIN_VALUE;

		long claimed = Long.MIN_VALUE;

		long owned = Long.MIN_VALUE;

		long following = Long.MIN_VALUE;

		Instance(int index, Run run) {
			this.index = index;
			this.run = run;
			BudgetSettings settings = run.backlog.budget();
			this.reading = settings.capacity();
			this.share = settings.capacity() / run.instances;
		}

		ProviderGate gate() {
			return this.engine.gate(PROVIDER);
		}

		private double refreshedShare(long now) {
			BudgetSettings settings = this.run.backlog.budget();
			int n = this.run.instances;
			double elapsed = Math.max(0, now - this.shareAt) / (double) SECOND;
			if (this.share < settings.capacity() / n) {
				this.share = Math.min(settings.capacity() / n, this.share + settings.refillPerSecond() / n * elapsed);
			}
			this.shareAt = now;
			return this.share;
		}

		@Override
		public boolean tryAcquire(String provider) {
			if (this.run.mode.coordinated) {
				if (this.pool >= 1) {
					this.pool -= 1;
					this.inFlight++;
					return true;
				}
				this.wanted++;
				this.lastWantedAt = this.run.now;
				this.run.requestExchange(this);
				return false;
			}
			if (refreshedShare(this.run.now) < 1) {
				return false;
			}
			this.share -= 1;
			this.debt += 1;
			this.inFlight++;
			this.run.requestFlush(this);
			return true;
		}

		@Override
		public void recordSuccess(String provider) {
			this.unflushedSuccesses++;
		}

		@Override
		public void refund(String provider) {
			this.inFlight = Math.max(0, this.inFlight - 1);
			if (this.run.mode.coordinated) {
				// back to the pool at once, and to the store on the next exchange unless a retry here takes it first
				this.pool += 1;
				this.lastRefundAt = this.run.now;
				this.run.requestExchange(this);
			}
			else {
				this.unflushedRefunds++;
			}
		}

		@Override
		public void settle(Scope scope) {
			this.inFlight = Math.max(0, this.inFlight - 1);
			this.spent++;
		}

		@Override
		public int pendingTokens(Scope scope) {
			if (!this.run.mode.coordinated) {
				return 0;
			}
			return this.inFlight + (this.exchangePending ? 1 : 0) + ((estimate() >= 1 || this.fleetOut > 0) ? 1 : 0);
		}

		@Override
		public double availableTokens(String provider) {
			double capacity = this.run.backlog.budget().capacity();
			return Math.min(capacity, estimate() + (this.run.mode.coordinated ? this.pool : 0));
		}

		/** The store's level as last read, with the refill since. */
		private double estimate() {
			BudgetSettings settings = this.run.backlog.budget();
			double elapsed = Math.max(0, this.run.now - this.readingAt) / (double) SECOND;
			return Math.min(settings.capacity(), this.reading + settings.refillPerSecond() * elapsed);
		}

		@Override
		public double globalTokens() {
			return Double.POSITIVE_INFINITY;
		}

	}

	/** One run of the backlog on a fleet. */
	private static final class Run {

		final Backlog backlog;

		final int instances;

		final Store store;

		final Mode mode;

		final Instance[] fleet;

		final Op[] ops;

		final StoreState state = new StoreState();

		final PriorityQueue<Event> queue = new PriorityQueue<>();

		final SplittableRandom latency;

		// the exchanges on their way to the store: {to the level, tokens wanted, off the lease count}
		final List<double[]> exchanges = new ArrayList<>();

		final long half;

		long now;

		long sequence;

		long attempts;

		long early;

		long failedRetries;

		long firstSuccesses;

		int successes;

		int ended;

		final List<Long> done = new ArrayList<>();

		final List<String> reasons = new ArrayList<>();



		final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);

		// the store's backlog hash: per instance, when it last reported a backlog (Long.MIN_VALUE: no field), with the
		// requests it held and its rate
		final long[] backlogAt;

		final int[] backlogQueued;

		final double[] backlogRate;

		// the provider's token bucket, full when it comes back
		double providerTokens;

		long providerAt;

		Run(Backlog backlog, int instances, Store store, Mode mode, long seed) {
			this.backlog = backlog;
			this.instances = instances;
			this.store = store;
			this.mode = mode;
			this.latency = new SplittableRandom(seed);
			this.half = store.roundTrip().toNanos() / 2;
			this.state.tokens = backlog.budget().capacity();
			this.providerTokens = backlog.burst();
			this.providerAt = backlog.outage().toNanos();
			this.fleet = new Instance[instances];
			this.backlogAt = new long[instances];
			Arrays.fill(this.backlogAt, Long.MIN_VALUE);
			this.backlogQueued = new int[instances];
			this.backlogRate = new double[instances];
			for (int i = 0; i < instances; i++) {
				Instance instance = new Instance(i, this);
				RetryBudget budget = mode.shared ? instance
						: TokenBucketRetryBudget.builder()
							.ticker(() -> this.now)
							.providerDefaults(backlog.budget())
							.global(new BudgetSettings(Double.MAX_VALUE / 4, 0, 0))
							.build();
				instance.engine = RetryEngine.builder()
					.policy(backlog.policy())
					.ticker(() -> this.now)
					.wallClock(() -> ORIGIN.plusNanos(this.now))
					.random(SeededRandom.of(seed * 31 + i))
					.budget(budget)
					.build();
				if (mode.coordinated) {
					instance.gate().share(1.0 / instances);
					instance.gate().arbiter((gate) -> requestClaim(instance));
				}
				this.fleet[i] = instance;
				if (mode.shared) {
					long offset = (long) (this.latency.nextDouble() * store.flushInterval().toNanos());
					schedule(offset, Kind.FLUSH, i, 0);
				}
			}
			this.ops = new Op[backlog.operations()];
			for (int i = 0; i < this.ops.length; i++) {
				this.ops[i] = new Op(i, this.fleet[i % instances]);
				schedule(0, Kind.SEND, i, 0);
			}
		}

		Result execute() {
			while (!this.queue.isEmpty() && this.ended < this.ops.length) {
				Event event = this.queue.poll();
				this.now = event.at();
				switch (event.kind()) {
					case SEND -> send(this.ops[event.subject()]);
					case ARRIVE -> arrive(this.ops[event.subject()]);
					case RECEIVE -> receive(this.ops[event.subject()]);
					case FLUSH -> flush(this.fleet[event.subject()], event.value() == 0);
					case SYNC_AT_STORE -> syncAtStore(this.fleet[event.subject()], Double.longBitsToDouble(event.value()));
					case SYNC_REPLY -> syncReply(this.fleet[event.subject()], event.value());
					case CLAIM_AT_STORE -> claimAtStore(this.fleet[event.subject()], event.value());
					case CLAIM_REPLY -> claimReply(this.fleet[event.subject()], (int) event.value());
					case CLAIM_GONE -> claimGone(this.fleet[event.subject()]);
					case END_PROBE_AT_STORE -> endProbeAtStore(this.fleet[event.subject()], event.value());
					case EXCHANGE_AT_STORE -> exchangeAtStore(this.fleet[event.subject()], event.value());
					case EXCHANGE_REPLY -> exchangeReply(this.fleet[event.subject()], (int) event.value());
				}
			}
			long[] times = this.done.stream().mapToLong(Long::longValue).sorted().toArray();
			BudgetSettings budget = this.backlog.budget();
			double perBucket = budget.capacity() + budget.refillPerSecond() * this.now / (double) SECOND;
			double bound = (this.mode.shared ? perBucket : perBucket * this.instances)
					+ this.firstSuccesses * budget.depositRatio();
			return new Result(this.mode, this.instances, this.ops.length, this.successes, this.attempts, this.early,
					this.failedRetries, bound, this.outcomes, FleetSimulation.percentile(times, 0.50),
					FleetSimulation.percentile(times, 0.99), this.backlog.bound(0.50), this.backlog.bound(0.99),
					this.reasons);
		}

		private void send(Op op) {
			if (op.operation == null) {
				op.operation = op.instance.engine.start(OperationSpec.of("GET").withJitterKey("op-" + op.index),
						Cancellation.never());
			}
			Permit permit = op.operation.beforeAttempt();
			if (permit instanceof Permit.Wait wait) {
				schedule(wait.notBeforeNanos(), Kind.SEND, op.index, 0);
				return;
			}
			if (permit instanceof Permit.Refused refused) {
				this.outcomes.merge(refused.stop().outcome(), 1, Integer::sum);
				reason(refused.stop());
				this.ended++;
				return;
			}
			op.attempts++;
			op.sentAt = this.now;
			schedule(this.now + latency(), Kind.ARRIVE, op.index, 0);
		}

		private void reason(Decision.Stop stop) {
			if (stop.outcome() != Outcome.SUCCESS && this.reasons.size() < 3) {
				this.reasons.add(String.format(java.util.Locale.ROOT, "at %.3f s: %s", this.now / 1e9, stop.reason()));
			}
		}

		private void arrive(Op op) {
			this.attempts++;
			if (op.attempts > 1 && this.now < op.instructedAt) {
				this.early++;
			}
			op.date = HttpDate.format(ORIGIN.getEpochSecond() + Math.floorDiv(this.now, SECOND));
			long outageEnd = this.backlog.outage().toNanos();
			if (this.now < outageEnd) {
				refuse(op, 503, this.backlog.outageHint());
			}
			else {
				this.providerTokens = Math.min(this.backlog.burst(),
						this.providerTokens + (this.now - this.providerAt) * this.backlog.rate() / SECOND);
				this.providerAt = this.now;
				if (this.providerTokens < 1) {
					refuse(op, 429, this.backlog.rateHint());
				}
				else {
					this.providerTokens -= 1;
					op.status = 200;
					op.retryAfter = null;
				}
			}
			schedule(this.now + latency(), Kind.RECEIVE, op.index, 0);
		}

		private void refuse(Op op, int status, int hintSeconds) {
			op.status = status;
			op.retryAfter = Integer.toString(hintSeconds);
			op.instructedAt = this.now + hintSeconds * SECOND;
			if (op.attempts > 1) {
				this.failedRetries++;
			}
		}

		private void receive(Op op) {
			Instance instance = op.instance;
			String retryAfter = op.retryAfter;
			String date = op.date;
			HeaderSource headers = (name) -> name.equalsIgnoreCase("Date") ? List.of(date)
					: (name.equalsIgnoreCase("Retry-After") && retryAfter != null) ? List.of(retryAfter) : List.of();
			Decision decision = op.operation.afterAttempt(new AttemptOutcome.Response(op.status, headers, op.sentAt,
					this.now));
			if (decision instanceof Decision.Retry retry) {
				schedule(retry.notBeforeNanos(), Kind.SEND, op.index, 0);
			}
			else {
				Outcome outcome = ((Decision.Stop) decision).outcome();
				this.outcomes.merge(outcome, 1, Integer::sum);
				reason((Decision.Stop) decision);
				this.ended++;
				if (outcome == Outcome.SUCCESS) {
					this.successes++;
					this.done.add(this.now);
					if (op.attempts == 1) {
						this.firstSuccesses++;
					}
				}
			}
			if (!this.mode.shared) {
				return;
			}
			ProviderGate gate = instance.gate();
			boolean closedLater = gate.cooldownUntilNanos() - this.now > 0
					&& gate.cooldownUntilNanos() - instance.pushedCooldown > 0;
			boolean probeAnswered = instance.owned != Long.MIN_VALUE && !gate.probePending();
			if (closedLater || probeAnswered) {
				// publish(): the gate closed later than the fleet knows, or this instance's probe has its answer
				requestFlush(instance);
			}
		}

		/**
		 * An exchange with the store, one round trip: gives back the pool beyond what waiting retries need and the
		 * batched deposits, asks for tokens for the retries that found none, reads the level.
		 */
		void requestExchange(Instance instance) {
			if (instance.exchangePending) {
				return;
			}
			instance.exchangePending = true;
			// tokens stay here while retries here have found none lately: they take them when they ask again
			boolean demand = instance.wanted > 0 || this.now - instance.lastWantedAt <= KEEP_NANOS
					|| this.now - instance.lastRefundAt <= REFUND_KEEP_NANOS;
			long keep = demand ? (long) Math.floor(instance.pool) : 0;
			long returned = (long) Math.floor(instance.pool) - keep;
			instance.pool -= returned;
			double deposits = instance.unflushedSuccesses * this.backlog.budget().depositRatio();
			instance.unflushedSuccesses = 0;
			int want = (int) Math.min(MAX_LEASE, Math.max(0, instance.wanted - keep));
			instance.wanted = 0;
			// to the level: the tokens given back and the deposits; off the fleet's lease count: those given back and
			// those spent by failed retries
			schedule(this.now + this.half, Kind.EXCHANGE_AT_STORE, instance.index,
					pack(returned + deposits, want, returned + instance.spent));
			instance.spent = 0;
		}

		private long pack(double give, int want, long off) {
			this.exchanges.add(new double[] { give, want, off });
			return this.exchanges.size() - 1;
		}

		private void exchangeAtStore(Instance instance, long index) {
			double[] message = this.exchanges.get((int) index);
			BudgetSettings settings = this.backlog.budget();
			double give = message[0];
			int want = (int) message[1];
			double level = Math.min(settings.capacity(), this.state.level(settings, this.now) + give);
			int grant = (int) Math.min(want, Math.floor(level));
			this.state.tokens = level - grant;
			this.state.out = Math.max(0, this.state.out + grant - (long) message[2]);
			instance.reading = this.state.tokens;
			instance.readingAt = this.now + this.half;
			instance.fleetOutSeen = this.state.out;
			schedule(this.now + this.half, Kind.EXCHANGE_REPLY, instance.index, grant);
		}

		private void exchangeReply(Instance instance, int grant) {
			instance.fleetOut = instance.fleetOutSeen;
			instance.pool += grant;
			instance.exchangePending = false;
			if (instance.wanted > 0 && instance.estimate() >= 1) {
				requestExchange(instance);
			}
		}

		void requestFlush(Instance instance) {
			if (!instance.flushRequested) {
				instance.flushRequested = true;
				schedule(this.now, Kind.FLUSH, instance.index, 1);
			}
		}

		/**
		 * Sends what the instance batched, its gate's cooldown and its answered probe; reads the store back. The
		 * timer's flush schedules the next one; a requested flush (after a take, a closed gate, an answered probe) runs
		 * beside it.
		 */
		private void flush(Instance instance, boolean timer) {
			if (timer) {
				schedule(this.now + this.store.flushInterval().toNanos(), Kind.FLUSH, instance.index, 0);
			}
			else {
				instance.flushRequested = false;
			}
			BudgetSettings settings = this.backlog.budget();
			double gained = instance.unflushedSuccesses * settings.depositRatio() + instance.unflushedRefunds;
			instance.unflushedSuccesses = 0;
			instance.unflushedRefunds = 0;
			double delta = gained - instance.debt;
			instance.debt = 0;
			ProviderGate gate = instance.gate();
			if (gate.cooldownUntilNanos() - this.now > 0) {
				instance.pushedCooldown = Math.max(instance.pushedCooldown, gate.cooldownUntilNanos());
			}
			if (instance.owned != Long.MIN_VALUE && !gate.probePending() && gate.cooldownRemaining().isZero()) {
				schedule(this.now + this.half, Kind.END_PROBE_AT_STORE, instance.index, instance.owned);
				instance.owned = Long.MIN_VALUE;
			}
			if (this.mode.coordinated) {
				report(instance, gate);
			}
			schedule(this.now + this.half, Kind.SYNC_AT_STORE, instance.index, Double.doubleToLongBits(delta));
			if (this.mode.coordinated && (instance.pool > 0 || instance.unflushedSuccesses > 0)) {
				requestExchange(instance);
			}
		}

		/** What this flush reports of the gate's backlog: held for half the window after its queue empties. */
		private void report(Instance instance, ProviderGate gate) {
			int queued = gate.queued();
			if (queued > 0) {
				instance.lastBacklog = this.now;
			}
			instance.reporting = instance.lastBacklog != Long.MIN_VALUE
					&& this.now - instance.lastBacklog < backlogWindowNanos() / 2;
			instance.reportedQueued = queued;
			instance.reportedRate = (queued > 0) ? gate.rate().orElse(0) : 0;
		}

		/** The starter's window: ten flush intervals, at least 250 ms. */
		private long backlogWindowNanos() {
			return Math.max(250_000_000L, 10 * this.store.flushInterval().toNanos());
		}

		/** The store's side of {@code BACKLOGS}: this instance's field written or removed, the fresh fields summed. */
		private void countBacklogs(Instance instance) {
			int i = instance.index;
			if (instance.reporting) {
				this.backlogAt[i] = this.now;
				this.backlogQueued[i] = instance.reportedQueued;
				this.backlogRate[i] = instance.reportedRate;
			}
			else {
				this.backlogAt[i] = Long.MIN_VALUE;
			}
			int count = 0;
			long queued = 0;
			double rate = 0;
			for (int j = 0; j < this.instances; j++) {
				if (this.backlogAt[j] != Long.MIN_VALUE && this.backlogAt[j] >= this.now - backlogWindowNanos()) {
					count++;
					queued += this.backlogQueued[j];
					rate += this.backlogRate[j];
				}
			}
			instance.fleetBacklogged = count;
			instance.fleetQueued = queued;
			instance.fleetRate = rate;
		}

		/** The reply's side: the gate's share among the instances with a backlog, and its part of their rate. */
		private void paceByBacklog(Instance instance) {
			ProviderGate gate = instance.gate();
			int sharing = (instance.reporting && instance.fleetBacklogged > 0)
					? Math.min(instance.fleetBacklogged, this.instances) : this.instances;
			gate.share(1.0 / sharing);
			if (instance.reporting && instance.reportedQueued > 0 && instance.fleetQueued > 0 && instance.fleetRate > 0) {
				double part = Math.min(1.0, instance.reportedQueued / (double) instance.fleetQueued);
				gate.paceAt(instance.fleetRate * part, this.now);
			}
		}

		private void syncAtStore(Instance instance, double delta) {
			if (this.mode.coordinated) {
				countBacklogs(instance);
			}
			BudgetSettings settings = this.backlog.budget();
			double level = this.state.level(settings, this.now);
			if (delta != 0) {
				this.state.tokens = Math.max(0, Math.min(settings.capacity(), level + delta));
			}
			if (instance.pushedCooldown - this.now > 0) {
				this.state.cooldownUntil = Math.max(this.state.cooldownUntil, instance.pushedCooldown);
			}
			instance.reading = this.state.tokens;
			long reply = this.now + this.half;
			instance.readingAt = reply;
			schedule(reply, Kind.SYNC_REPLY, instance.index, this.state.cooldownUntil);
			if (this.state.claimOwner >= 0 && this.now > this.state.claimUntil + leaseNanos()) {
				// the claim's key has expired
				this.state.claimOwner = -1;
				this.state.claimUntil = Long.MIN_VALUE;
			}
			// what the reply carries of the claim: whether the claim this instance follows still stands
			if (instance.following != Long.MIN_VALUE && this.state.claimUntil != instance.following) {
				schedule(reply, Kind.CLAIM_GONE, instance.index, 0);
			}
		}

		private void syncReply(Instance instance, long cooldownUntil) {
			instance.share = instance.reading / this.instances - instance.debt;
			instance.shareAt = this.now;
			if (cooldownUntil - this.now > 0) {
				instance.gate().closeUntil(cooldownUntil);
				if (this.mode.coordinated && instance.gate().rate().isEmpty()) {
					// the provider throttled the fleet: this gate paces after the cooldown, as the starter's does
					instance.gate().onThrottle(this.now, this.now);
				}
				instance.pushedCooldown = Math.max(instance.pushedCooldown, cooldownUntil);
				instance.claimed = Math.max(instance.claimed, cooldownUntil);
			}
			if (this.mode.coordinated) {
				paceByBacklog(instance);
			}
		}

		/** The gate's first request after a cooldown is ready: claim the probe of the fleet's latest cooldown. */
		private void requestClaim(Instance instance) {
			if (instance.claimed == Long.MIN_VALUE) {
				instance.gate().probeGranted();
				return;
			}
			schedule(this.now + this.half, Kind.CLAIM_AT_STORE, instance.index, instance.claimed);
		}

		private void claimAtStore(Instance instance, long until) {
			if (this.state.claimOwner < 0 || this.state.claimUntil < until
					|| this.now > this.state.claimUntil + leaseNanos()) {
				this.state.claimUntil = until;
				this.state.claimOwner = instance.index;
			}
			long owner = (this.state.claimUntil == until) ? this.state.claimOwner : -1;
			schedule(this.now + this.half, Kind.CLAIM_REPLY, instance.index, owner);
		}

		/** The claim this instance followed is gone: answered, expired or replaced. */
		private void claimGone(Instance instance) {
			instance.following = Long.MIN_VALUE;
			instance.gate().fleetProbeAnswered();
		}

		/** The store's answer to this instance's claim of the probe after its latest cooldown. */
		private void claimReply(Instance instance, int owner) {
			ProviderGate gate = instance.gate();
			long until = instance.claimed;
			if (owner == instance.index || owner < 0) {
				instance.owned = (owner < 0) ? Long.MIN_VALUE : until;
				gate.probeGranted();
			}
			else if (gate.followProbe(until + leaseNanos())) {
				instance.following = until;
			}
		}

		private void endProbeAtStore(Instance instance, long until) {
			if (this.state.claimOwner == instance.index && this.state.claimUntil == until) {
				this.state.claimOwner = -1;
				this.state.claimUntil = Long.MIN_VALUE;
			}
		}

		private long leaseNanos() {
			return this.backlog.policy().attemptTimeout().toNanos();
		}

		private long latency() {
			long min = this.backlog.latencyMin().toNanos();
			long range = this.backlog.latencyMax().toNanos() - min;
			return min + ((range == 0) ? 0 : this.latency.nextLong(range + 1));
		}

		private void schedule(long at, Kind kind, int subject, long value) {
			this.queue.add(new Event(at, this.sequence++, kind, subject, value));
		}

	}

}
