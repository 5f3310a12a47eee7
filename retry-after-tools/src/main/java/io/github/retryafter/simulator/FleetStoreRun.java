package io.github.retryafter.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.HintedRetries;
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
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.InMemoryFleetStore;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.fleet.SharedCooldownListener;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.pacing.FleetGate;
import io.github.retryafter.simulator.FleetStoreSimulation.Backlog;
import io.github.retryafter.simulator.FleetStoreSimulation.Mode;
import io.github.retryafter.simulator.FleetStoreSimulation.Result;
import io.github.retryafter.simulator.FleetStoreSimulation.Store;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.SeededRandom;

/**
 * One run of a {@link Backlog} on a fleet, on one virtual time line: the operations, the provider, and each instance's
 * engine with its budget. In the store modes the instances share an {@link InMemoryFleetStore} on that time line; a
 * task an instance hands to its store's thread runs half a round trip later (the store applies it then, as Redis
 * would), and each instance's flush runs every flush interval. In {@link Mode#STORE} the budget is the real
 * {@link FleetRetryBudget} and the cooldown the real {@link SharedCooldown}, told of closed gates by the real
 * {@link SharedCooldownListener}; {@link Mode#STORE_UNCOORDINATED} runs {@link UncoordinatedFleetBudget} and
 * {@link UncoordinatedCooldown} over the same store. Confined to one thread.
 */
final class FleetStoreRun {

	static final long SECOND = 1_000_000_000L;

	private static final Instant ORIGIN = FakeClock.DEFAULT_ORIGIN;

	private static final String PROVIDER = OperationSpec.DEFAULT_PROVIDER;

	/** The sim has no global bucket to speak of: one no retry ever empties. */
	private static final BudgetSettings NO_GLOBAL = new BudgetSettings(Double.MAX_VALUE / 4, 0, 0);

	enum Kind {

		SEND, ARRIVE, RECEIVE, FLUSH, TASK

	}

	private record Event(long at, long sequence, Kind kind, int subject, long value) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
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

	/** One application instance: its engine (and so its gate), its link to the store and its cooldown's side. */
	private static final class Instance {

		final int index;

		RetryEngine engine;

		InMemoryFleetStore.Member member;

		SharedCooldown cooldown;

		UncoordinatedCooldown uncoordinated;

		Instance(int index) {
			this.index = index;
		}

		FleetGate gate() {
			return this.engine.gate(PROVIDER).fleet();
		}

	}

	private final Backlog backlog;

	private final Store store;

	private final long half;

	private long now;

	private final int instances;

	private final Mode mode;

	private final Instance[] fleet;

	private final Op[] ops;

	private final InMemoryFleetStore shared = new InMemoryFleetStore(() -> this.now);

	private final PriorityQueue<Event> queue = new PriorityQueue<>();

	private final SplittableRandom latency;

	// tasks handed to the instances' store threads, by index, until they run
	private final List<Runnable> tasks = new ArrayList<>();

	private long sequence;

	private long attempts;

	private long early;

	private long failedRetries;

	// whether a retry after a hinted refusal goes without a token under the backlog's policy
	private final boolean tokenFree;

	// failed retries the provider asked for, sent without a token (the engine's default, HintedRetries.PACED)
	private long failedPacedRetries;

	private long firstSuccesses;

	private int successes;

	private int ended;

	private final List<Long> done = new ArrayList<>();

	private final List<String> reasons = new ArrayList<>();

	private final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);

	// the provider's token bucket, full when it comes back
	private double providerTokens;

	private long providerAt;

	FleetStoreRun(Backlog backlog, int instances, Store store, Mode mode, long seed) {
		this.backlog = backlog;
		this.instances = instances;
		this.store = store;
		this.mode = mode;
		RetryPolicy policy = policy(backlog, mode);
		this.tokenFree = policy.hintedRetries() == HintedRetries.PACED && policy.pacing().enabled();
		this.latency = new SplittableRandom(seed);
		this.half = store.roundTrip().toNanos() / 2;
		this.providerTokens = backlog.burst();
		this.providerAt = backlog.outage().toNanos();
		this.fleet = new Instance[instances];
		for (int i = 0; i < instances; i++) {
			this.fleet[i] = join(i, seed);
		}
		for (int i = 0; i < instances; i++) {
			Instance instance = this.fleet[i];
			RetryEngine.Builder engine = RetryEngine.builder()
				.policy(policy(backlog, mode))
				.ticker(() -> this.now)
				.wallClock(() -> ORIGIN.plusNanos(this.now))
				.random(SeededRandom.of(seed * 31 + i))
				.budget(budget(instance));
			instance.engine = cooldown(instance, engine).build();
			if (mode.coordinated()) {
				instance.cooldown.attach((name) -> Optional.of(instance.gate()));
				// the first flush at once: each gate's share and probe arbiter, as the starter's first tick sets them
				instance.cooldown.sync();
			}
			else if (mode.shared()) {
				instance.uncoordinated.attach(instance.gate());
			}
			if (mode.shared()) {
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

	/** An instance joins the store: what it hands to its store's thread runs half a round trip later. */
	private Instance join(int index, long seed) {
		Instance instance = new Instance(index);
		if (this.mode.shared()) {
			instance.member = this.shared.join("instance-" + index, (task) -> {
				this.tasks.add(task);
				schedule(this.now + this.half, Kind.TASK, index, this.tasks.size() - 1);
			});
		}
		return instance;
	}

	/** The instance's side of the fleet's cooldown: the real one, or the uncoordinated one; none without a store. */
	private RetryEngine.Builder cooldown(Instance instance, RetryEngine.Builder engine) {
		if (this.mode.coordinated()) {
			// no round trip on the caller's thread, as for the budget: attach reads nothing
			instance.cooldown = SharedCooldown.builder(instance.member)
				.provider(PROVIDER, SharedCooldown.DEFAULT_CAP, this.backlog.policy().attemptTimeout())
				.ticker(() -> this.now)
				.flushInterval(this.store.flushInterval())
				.mayBlock(() -> false)
				.build();
			return engine.listener(new SharedCooldownListener(instance.cooldown));
		}
		if (this.mode.shared()) {
			instance.uncoordinated = new UncoordinatedCooldown(instance.member, PROVIDER, () -> this.now);
		}
		return engine;
	}

	private RetryBudget budget(Instance instance) {
		if (this.mode == Mode.STORE) {
			// decided as Reactor's event loops do: no round trip on the caller's thread
			return FleetRetryBudget.builder(instance.member)
				.global(NO_GLOBAL)
				.provider(PROVIDER, this.backlog.budget())
				.ticker(() -> this.now)
				.mayBlock(() -> false)
				.build();
		}
		if (this.mode == Mode.STORE_UNCOORDINATED) {
			return new UncoordinatedFleetBudget(instance.member, PROVIDER, this.backlog.budget(), () -> this.now);
		}
		return TokenBucketRetryBudget.builder()
			.ticker(() -> this.now)
			.providerDefaults(this.backlog.budget())
			.global(NO_GLOBAL)
			.build();
	}

	Result execute() {
		while (!this.queue.isEmpty() && this.ended < this.ops.length) {
			Event event = this.queue.poll();
			this.now = event.at();
			dispatch(event);
		}
		long[] times = this.done.stream().mapToLong(Long::longValue).sorted().toArray();
		BudgetSettings budget = this.backlog.budget();
		double perBucket = budget.capacity() + budget.refillPerSecond() * this.now / (double) SECOND;
		double bound = (this.mode.shared() ? perBucket : perBucket * this.instances)
				+ this.firstSuccesses * budget.depositRatio();
		return new Result(this.mode, this.instances, this.ops.length, this.successes, this.attempts, this.early,
				this.failedRetries, this.failedPacedRetries, bound, this.outcomes, FleetSimulation.percentile(times, 0.50),
				FleetSimulation.percentile(times, 0.99), this.backlog.bound(0.50), this.backlog.bound(0.99),
				this.reasons);
	}

	private void dispatch(Event event) {
		int i = event.subject();
		switch (event.kind()) {
			case SEND -> send(this.ops[i]);
			case ARRIVE -> arrive(this.ops[i]);
			case RECEIVE -> receive(this.ops[i]);
			case FLUSH -> flush(this.fleet[i]);
			case TASK -> this.tasks.set((int) event.value(), null).run();
		}
	}

	/** The flush interval's tick: the store's participants (the budget and the cooldown) sync on its thread. */
	private void flush(Instance instance) {
		schedule(this.now + this.store.flushInterval().toNanos(), Kind.FLUSH, instance.index, 0);
		instance.member.runtime().submit(instance.member::flush);
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
		if (op.attempts > 1 && op.retryAfter != null && this.tokenFree) {
			// this retry followed a refusal with a hint, so it went without a token
			this.failedPacedRetries++;
		}
		else if (op.attempts > 1) {
			this.failedRetries++;
		}
		op.status = status;
		op.retryAfter = Integer.toString(hintSeconds);
		op.instructedAt = this.now + hintSeconds * SECOND;
	}

	/**
	 * The backlog's policy; in {@link Mode#STORE_UNCOORDINATED} every retry takes a token, hinted or not
	 * ({@link HintedRetries#TOKENS}).
	 */
	private static RetryPolicy policy(Backlog backlog, Mode mode) {
		return (mode == Mode.STORE_UNCOORDINATED)
				? backlog.policy().toBuilder().hintedRetries(HintedRetries.TOKENS).build() : backlog.policy();
	}

	private void receive(Op op) {
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
			ended(op, (Decision.Stop) decision);
		}
		if (op.instance.uncoordinated != null) {
			op.instance.uncoordinated.afterResponse();
		}
	}

	private void ended(Op op, Decision.Stop stop) {
		this.outcomes.merge(stop.outcome(), 1, Integer::sum);
		reason(stop);
		this.ended++;
		if (stop.outcome() == Outcome.SUCCESS) {
			this.successes++;
			this.done.add(this.now);
			if (op.attempts == 1) {
				this.firstSuccesses++;
			}
		}
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
