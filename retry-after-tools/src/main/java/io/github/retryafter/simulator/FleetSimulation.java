package io.github.retryafter.simulator;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
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
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Backoff;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.SeededRandom;

/**
 * A deterministic discrete-event simulation of a fleet of clients retrying against one provider (or, for independent
 * episodes, one provider each), comparing {@link FleetPolicy retry policies} on the same {@link Workload}.
 * <p>
 * Everything happens on one virtual monotonic time line: a priority queue of events (a client sends, a request reaches
 * the provider, a response reaches the client), no threads and no real time. The hint-mode policies drive the real
 * {@link RetryEngine} and {@link RetryOperation}: the engine's ticker is the virtual time, its wall clock the virtual
 * time plus the client's skew, its random source a {@link SeededRandom} per client. The comparison policies are
 * implemented here with the same attempt limit, deadline and minimum useful attempt (100 ms, the engine's default).
 * Every client of every policy meets the same scenario: the same start, skew and outage, drawn from the seed. Budgets
 * are unlimited: each client is one process running one operation, so a per-process budget would only cap attempts,
 * which the attempt limit already does. The exception is {@link FleetPolicy#FLOOR_PLUS_JITTER_PACED}: its clients are
 * the operations of one application, sharing one engine (one gate per provider, the first client's clock, one random
 * source), which is what provider pacing is for.
 * <p>
 * What is measured, per policy: success rate, amplification (attempts per operation), the herd (the largest share of
 * all retries reaching the provider within {@link PolicyResult#HERD_WINDOW}), early retries (retries reaching the
 * provider before the instant it instructed that client to wait for, on the provider's own time line) and the 50th and
 * 99th percentile of the time to success.
 * <p>
 * The same workload, seed and policy always give the same result. Stateless and thread-safe; a run is confined to
 * the calling thread.
 */
public final class FleetSimulation {

	/** The engine's default minimum useful attempt, applied to the comparison policies too. */
	static final long MIN_ATTEMPT_NANOS = RetryPolicy.DEFAULTS.minAttemptTime().toNanos();

	/** The fallback backoff of the engine's default policy, used by the exponential and full-jitter policies. */
	static final Backoff BACKOFF = RetryPolicy.DEFAULTS.backoff();

	private static final Instant ORIGIN = FakeClock.DEFAULT_ORIGIN;

	private static final int SEND = 0;

	private static final int ARRIVE = 1;

	private static final int RECEIVE = 2;

	/**
	 * How each comparison policy, the ones without a hint mode, picks the delay before its next attempt (empty: it
	 * gives up). Fixed: one entry per such {@link FleetPolicy}; the hint-mode policies ask the engine instead.
	 */
	private static final Map<FleetPolicy, ComparisonDelay> COMPARISONS = new EnumMap<>(Map.of(
			FleetPolicy.NO_RETRY, (run, client, answer) -> Optional.empty(),
			FleetPolicy.EXPONENTIAL, (run, client, answer) -> Optional.of(BACKOFF.ceiling(client.attempts)),
			FleetPolicy.FULL_JITTER,
			(run, client, answer) -> Optional.of(BACKOFF.draw(client.attempts, client.random.nextDouble()).delay()),
			FleetPolicy.NAIVE_CLIENT_CLOCK,
			(run, client, answer) -> Optional.of(run.naive(client, answer.retryAfter()))));

	private FleetSimulation() {
	}

	/**
	 * Runs every policy on the workload.
	 * @param workload the workload
	 * @param seed the seed every random draw derives from
	 * @return the report, policies in {@link FleetPolicy} order
	 */
	public static FleetReport run(Workload workload, long seed) {
		return run(workload, seed, List.of(FleetPolicy.values()));
	}

	/**
	 * Runs the given policies on the workload, each on the same scenario.
	 * @param workload the workload
	 * @param seed the seed every random draw derives from
	 * @param policies the policies, in the order to report them
	 * @return the report
	 */
	public static FleetReport run(Workload workload, long seed, List<FleetPolicy> policies) {
		Objects.requireNonNull(workload, "workload");
		Scenario scenario = Scenario.draw(workload, seed);
		List<PolicyResult> results = new ArrayList<>();
		for (FleetPolicy policy : policies) {
			results.add(new Run(workload, scenario, seed, policy).execute());
		}
		return new FleetReport(workload, seed, results);
	}

	/**
	 * Returns the engine policy a hint-mode {@link FleetPolicy} runs with on the workload: the library's defaults, with
	 * the workload's attempt limit and deadline (also the total wait and the planner's max wait), the policy's hint
	 * mode and jitter, the provider's cap as the hint cap and the fields a client of that provider reads
	 * ({@link ProviderModel#fields()}).
	 * @param workload the workload
	 * @param policy a policy with a hint mode
	 * @return the engine policy
	 */
	public static RetryPolicy enginePolicy(Workload workload, FleetPolicy policy) {
		ClientModel client = workload.client();
		return RetryPolicy.builder()
			.maxAttempts(client.maxAttempts())
			.deadline(client.deadline())
			.totalWait(client.deadline())
			.hintMode(policy.hintMode().orElseThrow(() -> new IllegalArgumentException(policy + " has no hint mode")))
			.hintCap(workload.provider().hintCap())
			.planner(PlannerOptions.builder()
				.maxWait(client.deadline())
				.jitter(policy.jitter().orElseThrow())
				.fields(workload.provider().fields())
				.build())
			.pacing(policy.pacing())
			.build();
	}

	/** A comparison policy's choice after a failed attempt: the delay before the next one, or empty to give up. */
	@FunctionalInterface
	private interface ComparisonDelay {

		Optional<Duration> after(Run run, Client client, Answer answer);

	}

	/**
	 * A running provider for the model: its sliding window or its windows when it has them, else its outage and rate
	 * limit.
	 */
	private static SimulatedProvider provider(ProviderModel model, long outageEnd) {
		if (model.slidingWindow().isPresent()) {
			return new SlidingWindowProvider(model);
		}
		return model.windows().isPresent() ? new WindowedProvider(model) : new OutageProvider(model, outageEnd);
	}

	/** One client: its scenario, its engine operation (hint modes) and its one request in flight. */
	private static final class Client {

		final int index;

		final long start;

		final long deadline;

		final long skew;

		final SimulatedProvider provider;

		final SplittableRandom latency;

		final RandomSource random;

		RetryEngine engine;

		RetryOperation operation;

		int attempts;

		long sentAt;

		long instructedAt = Answer.NONE;

		Answer pending;

		Client(int index, long start, long deadline, long skew, SimulatedProvider provider, SplittableRandom latency,
				RandomSource random) {
			this.index = index;
			this.start = start;
			this.deadline = deadline;
			this.skew = skew;
			this.provider = provider;
			this.latency = latency;
			this.random = random;
		}

	}

	private record Event(long at, long sequence, int client, int kind) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	/** One policy on one workload. */
	private static final class Run {

		private final Workload workload;

		private final FleetPolicy policy;

		/** The policy's delay when the simulation runs it, {@code null} when the engine does. */
		private final ComparisonDelay comparison;

		private final Client[] clients;

		private final PriorityQueue<Event> queue = new PriorityQueue<>();

		private final long latencyMin;

		private final long latencyRange;

		private long now;

		private long sequence;

		private long attempts;

		private long early;

		private int successes;

		private final List<Long> toSuccess = new ArrayList<>();

		private long lastSuccess = Answer.NONE;

		private long[] arrivals = new long[1024];

		private int retries;

		private long lateAttempts;

		private long lateRefusals;

		Run(Workload workload, Scenario scenario, long seed, FleetPolicy policy) {
			this.workload = workload;
			this.policy = policy;
			ClientModel model = workload.client();
			this.latencyMin = model.latencyMin().toNanos();
			this.latencyRange = model.latencyMax().toNanos() - this.latencyMin;
			SimulatedProvider shared = workload.isolated() ? null : provider(workload.provider(), scenario.outageEnd()[0]);
			RetryPolicy enginePolicy = policy.hintMode().isPresent() ? enginePolicy(workload, policy) : null;
			this.comparison = (enginePolicy != null) ? null : COMPARISONS.get(policy);
			if (enginePolicy == null && this.comparison == null) {
				throw new IllegalStateException(policy + " has neither a hint mode nor a comparison delay");
			}
			this.clients = new Client[workload.clients()];
			RetryEngine application = null;
			if (enginePolicy != null && enginePolicy.pacing().enabled()) {
				// One application: one engine, one gate per provider, one wall clock and one random source.
				long skew = scenario.skew()[0];
				application = RetryEngine.builder()
					.policy(enginePolicy)
					.ticker(() -> this.now)
					.wallClock(() -> ORIGIN.plusNanos(this.now + skew))
					.random(SeededRandom.of(mix(seed, policy.ordinal(), -1)))
					.build();
			}
			for (int i = 0; i < this.clients.length; i++) {
				SimulatedProvider provider = workload.isolated() ? provider(workload.provider(), scenario.outageEnd()[i])
						: shared;
				long start = scenario.start()[i];
				Client client = new Client(i, start, start + model.deadline().toNanos(), scenario.skew()[i], provider,
						new SplittableRandom(mix(seed, 1_000 + policy.ordinal(), i)),
						SeededRandom.of(mix(seed, policy.ordinal(), i)));
				if (application != null) {
					client.engine = application;
				}
				else if (enginePolicy != null) {
					long skew = client.skew;
					InstantSource wallClock = () -> ORIGIN.plusNanos(this.now + skew);
					RetryEngine engine = RetryEngine.builder()
						.policy(enginePolicy)
						.ticker(() -> this.now)
						.wallClock(wallClock)
						.random(client.random)
						.build();
					client.engine = engine;
				}
				this.clients[i] = client;
			}
		}

		PolicyResult execute() {
			for (Client client : this.clients) {
				schedule(client.start, client, SEND);
			}
			while (!this.queue.isEmpty()) {
				Event event = this.queue.poll();
				this.now = event.at();
				Client client = this.clients[event.client()];
				switch (event.kind()) {
					case SEND -> send(client);
					case ARRIVE -> arrive(client);
					default -> receive(client);
				}
			}
			return result();
		}

		private void send(Client client) {
			if (client.engine != null && client.operation == null) {
				// The operation starts when the client does: start() reads the ticker for its deadline.
				String provider = this.workload.isolated() ? "provider-" + client.index : OperationSpec.DEFAULT_PROVIDER;
				client.operation = client.engine.start(
						OperationSpec.of("GET").withProvider(provider).withJitterKey("client-" + client.index),
						Cancellation.never());
			}
			if (client.operation != null) {
				Permit permit = client.operation.beforeAttempt();
				if (permit instanceof Permit.Wait wait) {
					schedule(wait.notBeforeNanos(), client, SEND);
					return;
				}
				if (permit instanceof Permit.Refused) {
					return;
				}
			}
			client.attempts++;
			client.sentAt = this.now;
			schedule(this.now + latency(client), client, ARRIVE);
		}

		private void arrive(Client client) {
			this.attempts++;
			if (client.attempts > 1) {
				if (this.retries == this.arrivals.length) {
					this.arrivals = Arrays.copyOf(this.arrivals, this.retries * 2);
				}
				this.arrivals[this.retries++] = this.now;
				// The provider's clock is virtual time plus a constant offset: comparing virtual instants is comparing
				// instants on its time line.
				if (client.instructedAt != Answer.NONE && this.now < client.instructedAt) {
					this.early++;
				}
			}
			Answer answer = client.provider.answer(this.now);
			if (this.now >= PolicyResult.FIRST_WINDOW.toNanos()) {
				this.lateAttempts++;
				if (answer.status() == 429 || answer.status() == 503) {
					this.lateRefusals++;
				}
			}
			client.pending = answer;
			client.instructedAt = answer.instructedNanos();
			schedule(this.now + latency(client), client, RECEIVE);
		}

		private void receive(Client client) {
			Answer answer = client.pending;
			client.pending = null;
			if (client.operation != null) {
				Decision decision = client.operation.afterAttempt(
						new AttemptOutcome.Response(answer.status(), headers(answer), client.sentAt, this.now));
				if (answer.status() == 200) {
					succeed(client);
				}
				else if (decision instanceof Decision.Retry retry) {
					schedule(retry.notBeforeNanos(), client, SEND);
				}
				return;
			}
			if (answer.status() == 200) {
				succeed(client);
				return;
			}
			if (client.attempts >= this.workload.client().maxAttempts()) {
				return;
			}
			Optional<Duration> delay = this.comparison.after(this, client, answer);
			if (delay.isEmpty()) {
				return;
			}
			long next = this.now + delay.get().toNanos();
			if (next >= client.deadline - MIN_ATTEMPT_NANOS || next < this.now) {
				return;
			}
			schedule(next, client, SEND);
		}

		/** {@code Date.parse(header) − Date.now()}, floored at zero: the client's own clock against the server's. */
		private Duration naive(Client client, String retryAfter) {
			if (retryAfter.chars().allMatch(Character::isDigit)) {
				return Duration.ofSeconds(Long.parseLong(retryAfter));
			}
			long clientMillis = ORIGIN.toEpochMilli() + Math.floorDiv(this.now + client.skew, 1_000_000L);
			try {
				long retryAtMillis = HttpDate.parse("Retry-After", retryAfter, Math.floorDiv(clientMillis, 1000)) * 1000;
				return Duration.ofMillis(Math.max(0, retryAtMillis - clientMillis));
			}
			catch (RetryAfterException ex) {
				throw new IllegalStateException("the simulated provider wrote an unparsable Retry-After: " + retryAfter,
						ex);
			}
		}

		private void succeed(Client client) {
			this.successes++;
			this.toSuccess.add(this.now - client.start);
			this.lastSuccess = this.now;
		}

		private long latency(Client client) {
			return this.latencyMin + ((this.latencyRange == 0) ? 0 : client.latency.nextLong(this.latencyRange + 1));
		}

		private void schedule(long at, Client client, int kind) {
			this.queue.add(new Event(at, this.sequence++, client.index, kind));
		}

		private PolicyResult result() {
			long[] sorted = Arrays.copyOf(this.arrivals, this.retries);
			Arrays.sort(sorted);
			long window = PolicyResult.HERD_WINDOW.toNanos();
			long herd = 0;
			long herdAt = 0;
			for (int first = 0, last = 0; first < sorted.length; first++) {
				while (last < sorted.length && sorted[last] < sorted[first] + window) {
					last++;
				}
				if (last - first > herd) {
					herd = last - first;
					herdAt = sorted[first];
				}
			}
			long bucket = FleetReport.BUCKET.toNanos();
			int columns = (int) Math.max(1, (this.workload.client().deadline().toNanos() + bucket - 1) / bucket);
			long[] histogram = new long[columns];
			for (int first = 0, last = 0; first < sorted.length; first = last) {
				long slice = sorted[first] / window;
				while (last < sorted.length && sorted[last] / window == slice) {
					last++;
				}
				int column = (int) Math.min(columns - 1, slice * window / bucket);
				histogram[column] = Math.max(histogram[column], last - first);
			}
			long[] times = this.toSuccess.stream().mapToLong(Long::longValue).sorted().toArray();
			return new PolicyResult(this.policy, this.clients.length, this.successes, this.attempts, this.retries,
					this.early, herd, Duration.ofNanos(herdAt), percentile(times, 0.50), percentile(times, 0.99),
					Arrays.stream(histogram).boxed().toList(), this.lateAttempts, this.lateRefusals,
					(this.lastSuccess == Answer.NONE) ? Optional.empty() : Optional.of(Duration.ofNanos(this.lastSuccess)));
		}

	}

	/** The nearest-rank percentile. */
	static Optional<Duration> percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return Optional.empty();
		}
		int rank = (int) Math.ceil(p * sorted.length);
		return Optional.of(Duration.ofNanos(sorted[Math.max(0, rank - 1)]));
	}

	private static HeaderSource headers(Answer answer) {
		return answer::field;
	}

	/** A SplitMix64-style mix of a seed, a stream and an index: independent, reproducible streams. */
	private static long mix(long seed, long stream, long index) {
		long z = seed ^ (stream * 0x9e3779b97f4a7c15L) ^ (index * 0xc2b2ae3d27d4eb4fL);
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

}
