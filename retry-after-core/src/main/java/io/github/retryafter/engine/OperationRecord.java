package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.github.retryafter.Cancellation;
import io.github.retryafter.internal.Saturating;

/**
 * What one operation records of itself, and the read-only answers built from it: its spec, start and cancellation,
 * the attempts permitted, the latest attempt's start, end and decision, how it ended, and what only a retry, a wait or
 * a probe needs ({@link OperationExtra}, made on first use). {@link RetryOperation}, its only kind, drives it and acts;
 * one object still holds one operation's state, as Failsafe's execution does for its executor.
 * <p>
 * Not thread-safe: its operation's driver writes it. Its cancellation may be read, and made, from any thread.
 */
abstract sealed class OperationRecord permits RetryOperation {

	private static final AtomicReferenceFieldUpdater<OperationRecord, Cancellation> CANCELLATION =
			AtomicReferenceFieldUpdater.newUpdater(OperationRecord.class, Cancellation.class, "cancellation");

	private final RetryEngine engine;

	private final OperationSpec spec;

	// given at start, or made when first asked for (so an operation nobody cancels or waits in makes none); set once
	private volatile Cancellation cancellation;

	private final long startedAtNanos;

	private int attempts;

	// the latest attempt, kept as fields and made into an AttemptRecord only when asked for (trace()) or superseded;
	// its kind is its number's (the first is the only FIRST), a first attempt's tokens after are its tokens before,
	// and its timeout is what its start left of the deadline (DeadlineRule), so none of the three is stored
	private long latestStartedAtNanos;

	private double latestTokensBefore;

	/** When the latest attempt's outcome was recorded; meaningful only once {@link #lastOutcome} is its outcome. */
	private long latestEndedAtNanos;

	/** What the engine decided after the latest attempt; {@code null} while it is in flight or if it never ended. */
	private Decision latestDecision;

	private AttemptOutcome lastOutcome;

	private Decision.Stop finalStop;

	// what only a retry, a wait or a probe needs, or null: made the first time one of them happens, so a first attempt
	// that succeeds builds none
	private OperationExtra extra;

	OperationRecord(RetryEngine engine, OperationSpec spec, Cancellation cancellation, long startedAtNanos) {
		this.engine = engine;
		this.spec = spec;
		if (cancellation != null) {
			// not a volatile write: the object is published to other threads the way it is handed to them
			CANCELLATION.lazySet(this, cancellation);
		}
		this.startedAtNanos = startedAtNanos;
	}

	/** Attempt {@code attempt} is permitted at {@code nowNanos} with {@code tokensBefore} in the budget: in flight. */
	final void attemptStarted(int attempt, long nowNanos, double tokensBefore) {
		this.attempts = attempt;
		this.latestStartedAtNanos = nowNanos;
		this.latestTokensBefore = tokensBefore;
		this.latestDecision = null;
	}

	/** The attempt in flight produced {@code outcome}. */
	final void outcomeRecorded(AttemptOutcome outcome) {
		this.lastOutcome = outcome;
	}

	/** The engine decided {@code decision} after the latest attempt, at {@code nowNanos}: the attempt has ended. */
	final void decided(Decision decision, long nowNanos) {
		this.latestEndedAtNanos = nowNanos;
		this.latestDecision = decision;
	}

	/** The operation ended with {@code stop}. */
	final void ended(Decision.Stop stop) {
		this.finalStop = stop;
	}

	/** The operation ended without success: the instant its provider named, if one is ahead, is kept to hand on. */
	final void keepHandOn() {
		HandOn.of(this.engine, this.spec, this.attempts, this.lastOutcome).ifPresent((at) -> extra().notBefore = at);
	}

	/** The stop the operation ended with, {@code null} while it runs. */
	final Decision.Stop endedWith() {
		return this.finalStop;
	}

	/** The state beyond a first attempt that succeeds, made on first use. */
	final OperationExtra extra() {
		if (this.extra == null) {
			this.extra = new OperationExtra();
		}
		return this.extra;
	}

	/** The state beyond a first attempt that succeeds, {@code null} when nothing needed it yet. */
	final OperationExtra extraIfMade() {
		return this.extra;
	}

	/** The operation's engine, for its events. */
	final RetryEngine engine() {
		return this.engine;
	}

	/** Whether the operation's cancellation fired; one not made yet has not. */
	final boolean cancelled() {
		Cancellation current = this.cancellation;
		return current != null && current.isCancelled();
	}

	/**
	 * Returns the operation's spec.
	 * @return the spec
	 */
	public OperationSpec spec() {
		return this.spec;
	}

	/**
	 * Returns the operation's cancellation.
	 * @return the cancellation
	 */
	public Cancellation cancellation() {
		Cancellation current = this.cancellation;
		if (current != null) {
			return current;
		}
		Cancellation made = Cancellation.create();
		return CANCELLATION.compareAndSet(this, null, made) ? made : this.cancellation;
	}

	/**
	 * Returns how many attempts were permitted so far.
	 * @return the attempt count
	 */
	public int attempts() {
		return this.attempts;
	}

	/**
	 * Returns the idempotency key every attempt carries: the same on every attempt.
	 * @return the key, if the operation has one
	 */
	public Optional<String> idempotencyKey() {
		return this.spec.idempotencyKey();
	}

	/**
	 * Returns how the operation ended.
	 * @return the outcome, empty while it is running
	 */
	public Optional<Outcome> outcome() {
		return Optional.ofNullable(this.finalStop).map(Decision.Stop::outcome);
	}

	/**
	 * Returns the stop the operation ended with, with its reason.
	 * @return the stop, empty while it is running
	 */
	public Optional<Decision.Stop> finalStop() {
		return Optional.ofNullable(this.finalStop);
	}

	/**
	 * Returns the provider's instant an operation that ended without success hands on (set before its finished event).
	 * @return the instant, empty while running, after a success or cancellation, or when the provider named none ahead
	 */
	public Optional<NotBefore> notBefore() {
		return (this.extra != null) ? Optional.ofNullable(this.extra.notBefore) : Optional.empty();
	}

	/**
	 * Returns the retry waiting to be sent, if one is scheduled.
	 * @return the retry decision
	 */
	public Optional<Decision.Retry> pendingRetry() {
		return Optional.ofNullable(pendingRetryOrNull());
	}

	final Decision.Retry pendingRetryOrNull() {
		return (this.extra != null) ? this.extra.pendingRetry : null;
	}

	/**
	 * Returns the waiting planned between attempts so far.
	 * @return the total wait
	 */
	public Duration totalWait() {
		return (this.extra != null) ? this.extra.totalWait : Duration.ZERO;
	}

	/**
	 * Returns the ticker reading when the operation started.
	 * @return nanoseconds on the engine's ticker
	 */
	public long startedAtNanos() {
		return this.startedAtNanos;
	}

	/**
	 * Returns the operation's absolute deadline.
	 * @return nanoseconds on the engine's ticker
	 */
	public long deadlineNanos() {
		// the spec's deadline or the policy's, from the start: computed, not stored, like the engine's start does it
		return Saturating.add(this.startedAtNanos,
				Saturating.toNanos(this.spec.deadline().orElse(this.engine.policy().deadline())));
	}

	/**
	 * Returns the outcome of the last attempt that finished.
	 * @return the outcome, empty before the first one
	 */
	public Optional<AttemptOutcome> lastOutcome() {
		return Optional.ofNullable(this.lastOutcome);
	}

	/**
	 * Returns every attempt so far, in order, as an immutable snapshot.
	 * @return the attempts
	 */
	public List<AttemptRecord> trace() {
		// the latest attempt is in the trace once it ended, or once the operation ended while it was in flight
		boolean latest = this.attempts > 0 && (this.latestDecision != null || this.finalStop != null);
		List<AttemptRecord> before = (this.extra != null) ? this.extra.earlier() : List.of();
		return latest ? OperationExtra.with(before, latestRecord()) : List.copyOf(before);
	}

	/**
	 * The latest attempt as a record: without outcome, end and decision while it is in flight, or when the
	 * operation was ended while it was. Its timeout is what the deadline rule gave it at its start.
	 */
	final AttemptRecord latestRecord() {
		boolean ended = this.latestDecision != null;
		boolean first = this.attempts == 1;
		long deadline = deadlineNanos();
		long started = this.latestStartedAtNanos;
		Duration timeout = this.engine
			.attemptTime(this.engine.policy().deadlineRule().availableNanos(deadline, started));
		return new AttemptRecord(this.attempts, first ? AttemptKind.FIRST : AttemptKind.RETRY, elapsedAt(started),
				timeout, DeadlineRule.remaining(deadline, started), this.latestTokensBefore,
				first ? this.latestTokensBefore : this.extra.tokensAfter,
				ended ? Optional.of(this.lastOutcome) : Optional.empty(),
				ended ? Optional.of(elapsedAt(this.latestEndedAtNanos)) : Optional.empty(),
				Optional.ofNullable(this.latestDecision));
	}

	private Duration elapsedAt(long nowNanos) {
		return Duration.ofNanos(nowNanos - this.startedAtNanos);
	}

}
