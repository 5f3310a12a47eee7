package io.github.retryafter.engine;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.retryafter.Cancellation;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.internal.BoundedLru;
import io.github.retryafter.internal.FieldText;
import io.github.retryafter.internal.Seconds;
import io.github.retryafter.pacing.ProviderGate;

/**
 * The transport-agnostic retry engine: after each attempt it decides whether to retry, after which delay and why, or to
 * stop with which {@link Outcome}. It does no I/O and never sleeps: adapters (the blocking {@link RetryRunner}, a
 * WebClient filter, a RestClient interceptor) send the requests and wait, driving one {@link RetryOperation} per
 * logical operation from {@link #start(OperationSpec, Cancellation)}.
 * <p>
 * The rules, in the order they are applied after an attempt ({@link #decide}):
 * <ol>
 * <li>a {@link Classification#SUCCESS} ends the operation with {@link Outcome#SUCCESS}, even if the deadline or a
 * cancellation arrived while it was in flight: the effect happened and its result is there;</li>
 * <li>{@link Outcome#CANCELLED} if the operation was cancelled;</li>
 * <li>{@link Outcome#DEADLINE_EXCEEDED} if no more than {@link RetryPolicy#minAttemptTime()} is left of the deadline
 * (after {@link RetryPolicy#deadlineReserve()});</li>
 * <li>{@link Outcome#NOT_RETRYABLE} if the classifier says so; a retryable outcome that is not replay-safe ends as
 * {@link Outcome#OUTCOME_UNKNOWN} when the request may have been applied (a timeout or lost response of a method
 * outside {@link RetryPolicy#retryableMethods()} without an idempotency key), otherwise as
 * {@link Outcome#NOT_RETRYABLE} (such a request that got a response, or a body that cannot be replayed). A failure
 * that was {@link FailureKind#NOT_SENT not sent} is always replay-safe;</li>
 * <li>{@link Outcome#ATTEMPTS_EXHAUSTED} once {@link RetryPolicy#maxAttempts()} requests were made;</li>
 * <li>{@link Outcome#WAIT_TOO_LONG} if the server's {@code Retry-After} is valid but longer than the planner's max
 * wait: it is never shortened. Any other unusable {@code Retry-After} is treated as absent, reported, and replaced by
 * the fallback {@link Backoff};</li>
 * <li>{@link Outcome#WAIT_EXCEEDS_DEADLINE} if the server's floor (or, without a hint, the backoff delay) plus a
 * useful attempt does not fit in the deadline; jitter above the server's floor may shrink to fit, the floor never;</li>
 * <li>{@link Outcome#TOTAL_WAIT_EXCEEDED} if the floor would take the operation's waiting past
 * {@link RetryPolicy#totalWait()} (jitter above the floor again shrinks to fit);</li>
 * <li>{@link Outcome#BUDGET_EXHAUSTED} if the budget has no token for the provider and none held in flight that may
 * come back, read last, so no token is spent on a retry that would not happen; the token itself is taken, or refused,
 * in one call when the retry is sent.</li>
 * </ol>
 * With {@link RetryPolicy#pacing() pacing} on, every {@link Scope} (a provider, or one origin of a provider that keeps
 * its state per origin) has a {@link ProviderGate}: {@link RetryOperation} asks it before every attempt (so a request
 * may be told to {@link Permit.Wait wait} and ask again, or be refused with {@link Outcome#PROVIDER_COOLING_DOWN}) and
 * reports every response to it: a usable {@code Retry-After} on a retryable, 429 or 503 response closes the gate until
 * the instant the server named (measured from receipt, never shortened), but for at most
 * {@link io.github.retryafter.pacing.PacingSettings#maxCooldown()}: a hint too long for the planner's max wait ends
 * its own operation and closes the gate for that cap; a 429 of at most a second from a provider that is admitting is
 * the exception, which only its own operation waits for ({@link ProviderGate#absorbs}). A 429 or 503 lowers the rate,
 * a success grows it, and, with {@link io.github.retryafter.pacing.PacingSettings#rateLimitFields()}, the provider's
 * announced quota paces it and a remaining of zero closes the gate until the reset. After a cooldown one request
 * probes first. The gate reads the hint with its own planner, without jitter and without a max wait, so it draws no random
 * numbers and an operation's own decisions are the same with pacing on or off.
 * <p>
 * The wait from a {@code Retry-After} follows {@link RetryPolicy#hintMode()}: {@link HintMode#FLOOR_PLUS_JITTER} is the
 * planner's plan, {@link HintMode#EXACT} its floor, {@link HintMode#MAX_WITH_BACKOFF} {@code max(floor, backoff draw)}
 * plus the planner's jitter (the planner draws first, then the backoff), and {@link HintMode#CAPPED}
 * {@code min(hintCap, floor)} with no random draw on the hinted path (its planner runs without jitter and without max
 * wait, because the cap replaces it). The engine's own backoff after the n-th failed attempt is
 * {@code policy.backoff().draw(n, random)}.
 * <p>
 * Immutable and thread-safe, as long as its random source, budget and listener are.
 */
public final class RetryEngine {

	/** How many origin gates an engine holds unless told otherwise. */
	public static final int DEFAULT_MAX_ORIGINS = 1000;

	private final RetryPolicy policy;

	private final RetryBudget budget;

	private final Ticker ticker;

	private final AttemptJudge judge;

	private final RetryTokens tokens;

	private final RetryListener listener;

	private final RetryAfterPlanner planner;

	private final GateFeed gateFeed;

	/** The permit of every first attempt with the whole attempt timeout to spare: one, shared. */
	private final Permit.Proceed firstProceed;

	private final boolean clientTimeouts;

	// one per provider name: bounded by configuration (names never come from URLs)
	private final ConcurrentHashMap<String, ProviderGate> gates = new ConcurrentHashMap<>();

	// one per origin of the scopes that name one: at most maxOrigins, least recently used forgotten (starts fresh)
	private final BoundedLru<Scope, ProviderGate> originGates;

	private RetryEngine(Builder builder) {
		this.policy = builder.policy;
		this.budget = builder.budget;
		// the clocks and the random source are the planner's: set on the builder's planner builder, read back here
		this.planner = builder.planner.options(this.policy.hintMode().plannerOptions(this.policy.planner())).build();
		this.ticker = this.planner.ticker();
		this.judge = new AttemptJudge(this.policy, this.planner);
		this.tokens = new RetryTokens(this.budget);
		this.listener = RetryListener.guarded(builder.listener);
		this.originGates = new BoundedLru<>(builder.maxOrigins,
				(scope) -> new ProviderGate(scope, this.policy.pacing(), this.ticker));
		this.firstProceed = new Permit.Proceed(1, this.policy.attemptTimeout(), false,
				this.policy.conventions().attemptHeader());
		this.clientTimeouts = builder.clientTimeouts;
		this.gateFeed = new GateFeed(this.policy, this.planner, this.listener);
	}

	/**
	 * Returns a builder with the default policy, an unlimited budget, the system clocks, the thread-local random source
	 * and no listener.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the policy.
	 * @return the policy
	 */
	public RetryPolicy policy() {
		return this.policy;
	}

	/**
	 * Returns whether the client's own timeouts bound each attempt rather than the policy's attempt timeout, for
	 * calls long by nature (model completions): the first attempt is given no bound of the engine's, neither the
	 * attempt timeout nor the deadline ({@link Permit.Proceed#clientTimeouts()}), and a retry what is left of the
	 * deadline; {@link RetryPolicy#attemptTimeout()} then only says how long the provider's gate waits for a probe's
	 * answer before another request may probe. Off unless set on the builder.
	 * @return whether the client's own timeouts bound each attempt
	 */
	public boolean clientTimeouts() {
		return this.clientTimeouts;
	}

	/**
	 * Returns the monotonic clock deadlines, waits and budgets are on.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Returns the retry budget.
	 * @return the budget
	 */
	public RetryBudget budget() {
		return this.budget;
	}

	/**
	 * Returns the planner the engine built from {@link RetryPolicy#planner()} and its clocks and random source.
	 * @return the planner
	 */
	public RetryAfterPlanner planner() {
		return this.planner;
	}

	/**
	 * Returns the gate of {@code provider}, created on first use with the policy's {@link RetryPolicy#pacing()}
	 * settings. With pacing off the gate exists but nothing consults or feeds it.
	 * @param provider a provider name; expected from configuration (a bounded set), never from URLs
	 * @return the provider's gate
	 */
	public ProviderGate gate(String provider) {
		Objects.requireNonNull(provider, "provider");
		ProviderGate gate = this.gates.get(provider);
		if (gate != null) {
			return gate;
		}
		return this.gates.computeIfAbsent(provider,
				(name) -> new ProviderGate(name, this.policy.pacing(), this.ticker));
	}

	/**
	 * Returns the gate of {@code scope}: the provider's own ({@link #gate(String)}) for a provider-wide scope, or the
	 * origin's, created on first use. Origin gates are bounded: at most {@link Builder#maxOrigins} (default
	 * {@value #DEFAULT_MAX_ORIGINS}), the least recently used forgotten, so an origin met again after it was forgotten
	 * starts open.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the scope's gate
	 */
	public ProviderGate gate(Scope scope) {
		return scope.perOrigin() ? this.originGates.get(scope) : gate(scope.provider());
	}

	/**
	 * Returns the origin gates held now (the scopes that name an origin), for reports.
	 * @return a snapshot, in no particular order; at most {@link Builder#maxOrigins} gates
	 */
	public Collection<ProviderGate> originGates() {
		return this.originGates.values();
	}

	/**
	 * Starts a logical operation now. The operation's deadline is the spec's own, or the policy's.
	 * @param spec the operation
	 * @param cancellation cancels the operation from any thread
	 * @return the operation, to be driven by one thread at a time
	 */
	public RetryOperation start(OperationSpec spec, Cancellation cancellation) {
		Objects.requireNonNull(cancellation, "cancellation");
		return begin(spec, cancellation);
	}

	/**
	 * Starts a logical operation now, with a cancellation of its own made the first time
	 * {@link RetryOperation#cancellation()} is called (from any thread; until then nothing can have cancelled it), for
	 * adapters whose operations mostly succeed without anyone asking for one. Otherwise the same as
	 * {@link #start(OperationSpec, Cancellation)}.
	 * @param spec the operation
	 * @return the operation, to be driven by one thread at a time
	 */
	public RetryOperation start(OperationSpec spec) {
		return begin(spec, null);
	}

	private RetryOperation begin(OperationSpec spec, Cancellation cancellation) {
		Objects.requireNonNull(spec, "spec");
		// the operation computes its deadline from the spec's or the policy's and this reading, when it needs it
		return new RetryOperation(this, spec, cancellation, this.ticker.read());
	}

	/**
	 * Decides what follows an attempt, reading "now" from the ticker. It consumes random draws (the planner's jitter,
	 * the backoff draw) but takes no budget token and emits no event: {@link RetryOperation#afterAttempt} makes the
	 * same decision and acts on it. See the class description for the rules and their order.
	 * @param state the operation after the attempt
	 * @param outcome what the attempt produced
	 * @return retry after a delay, or stop with an outcome
	 * @throws RetryAfterException with {@link RetryAfterError#INVALID_RANDOM} when the random source draws outside
	 * {@code [0, 1)}
	 * @throws IllegalArgumentException with {@link RetryPolicy#subtractRoundTrip()} on, when the response's received
	 * instant precedes its sent instant; or when the random source draws outside {@code [0, 1)} for the backoff
	 */
	public Decision decide(OperationState state, AttemptOutcome outcome) {
		Classification classification = this.judge.classify(outcome);
		Objects.requireNonNull(state, "state");
		long now = this.ticker.read();
		return this.judge.judge(state, outcome, classification, now, this.tokens.view(state.spec().scope())).decision();
	}

	/** Decides after each attempt, for every operation of this engine. */
	AttemptJudge judge() {
		return this.judge;
	}

	/** Reaches the budget for every operation of this engine. */
	RetryTokens tokens() {
		return this.tokens;
	}

	/** Tells the gates what each response said. */
	GateFeed gateFeed() {
		return this.gateFeed;
	}

	RetryListener listener() {
		return this.listener;
	}

	/**
	 * The permit of an attempt starting at {@code nowNanos}: {@code timeout} ({@code min(attemptTimeout, left of the
	 * deadline)}), the first attempt's shared when that is the whole attempt timeout; with the client's own timeouts,
	 * what is left of the deadline, which bounds a retry only.
	 */
	Permit.Proceed proceed(int attempt, Duration timeout, long deadlineNanos, long nowNanos) {
		if (this.clientTimeouts) {
			return new Permit.Proceed(attempt, attemptTime(this.policy.availableNanos(deadlineNanos, nowNanos)),
					attempt == 1, this.policy.conventions().attemptHeader());
		}
		return (attempt == 1 && timeout == this.policy.attemptTimeout()) ? this.firstProceed
				: new Permit.Proceed(attempt, timeout, false, this.policy.conventions().attemptHeader());
	}

	/** The time an attempt is given, as its permit says, when {@code availableNanos} were left of the deadline. */
	Duration attemptTime(long availableNanos) {
		return this.policy.deadlineRule().attemptTime(availableNanos, this.clientTimeouts);
	}

	/** Whether any listener wants events: without one, operations build none. */
	boolean listening() {
		return this.listener != RetryListener.NOOP;
	}

	static String describe(AttemptOutcome outcome) {
		if (outcome instanceof AttemptOutcome.Response response) {
			return "status " + response.status();
		}
		AttemptOutcome.Failure failure = (AttemptOutcome.Failure) outcome;
		return switch (failure.kind()) {
			// the class only: a failure's message may quote what the server sent
			case NOT_SENT -> "a failure before sending (" + FieldText.describe(failure.cause()) + ")";
			case OUTCOME_UNKNOWN -> "a lost response (" + FieldText.describe(failure.cause()) + ")";
			case TIMED_OUT -> "a timeout (" + FieldText.describe(failure.cause()) + ")";
		};
	}

	static String seconds(Duration duration) {
		return Seconds.format(duration);
	}

	/**
	 * Builds a {@link RetryEngine}. Not thread-safe.
	 */
	public static final class Builder {

		private RetryPolicy policy = RetryPolicy.DEFAULTS;

		private RetryBudget budget = RetryBudget.unlimited();

		/** Holds the ticker, the wall clock and the random source (its defaults are the engine's). */
		private final RetryAfterPlanner.Builder planner = RetryAfterPlanner.builder();

		private RetryListener listener = RetryListener.NOOP;

		private int maxOrigins = DEFAULT_MAX_ORIGINS;

		private boolean clientTimeouts;

		private Builder() {
		}

		/**
		 * Sets whether the client's own timeouts bound each attempt rather than the policy's attempt timeout: see
		 * {@link RetryEngine#clientTimeouts()}. Off by default.
		 * @param clientTimeouts whether they do
		 * @return this builder
		 */
		public Builder clientTimeouts(boolean clientTimeouts) {
			this.clientTimeouts = clientTimeouts;
			return this;
		}

		/**
		 * Sets how many origin gates the engine holds at most; past it the least recently used is forgotten.
		 * @param maxOrigins the bound, at least 1
		 * @return this builder
		 * @throws IllegalArgumentException if {@code maxOrigins} is below 1
		 */
		public Builder maxOrigins(int maxOrigins) {
			this.maxOrigins = BoundedLru.checkCapacity(maxOrigins, "maxOrigins");
			return this;
		}

		/**
		 * Sets the policy.
		 * @param policy the policy
		 * @return this builder
		 */
		public Builder policy(RetryPolicy policy) {
			this.policy = Objects.requireNonNull(policy, "policy");
			return this;
		}

		/**
		 * Sets the retry budget shared by the engine's operations.
		 * @param budget the budget
		 * @return this builder
		 */
		public Builder budget(RetryBudget budget) {
			this.budget = Objects.requireNonNull(budget, "budget");
			return this;
		}

		/**
		 * Sets the monotonic clock.
		 * @param ticker the ticker
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.planner.ticker(ticker);
			return this;
		}

		/**
		 * Sets the wall clock, which the planner reads only to report skew and for its client-clock fallback.
		 * @param wallClock the wall clock
		 * @return this builder
		 */
		public Builder wallClock(InstantSource wallClock) {
			this.planner.wallClock(wallClock);
			return this;
		}

		/**
		 * Sets the random source of the planner's jitter and the backoff draws.
		 * @param random the source
		 * @return this builder
		 */
		public Builder random(RandomSource random) {
			this.planner.random(random);
			return this;
		}

		/**
		 * Sets the listener; one that throws is logged and ignored.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RetryListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener");
			return this;
		}

		/**
		 * Builds the engine.
		 * @return the engine
		 */
		public RetryEngine build() {
			return new RetryEngine(this);
		}

	}

}
