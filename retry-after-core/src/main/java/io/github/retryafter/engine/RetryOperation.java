package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.github.retryafter.Cancellation;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.ProviderGate;

/**
 * One logical operation's state machine, started by {@link RetryEngine#start}. An adapter drives it:
 * <pre>{@code
 * RetryOperation operation = engine.start(spec, cancellation);
 * while (true) {
 *     Permit permit = operation.beforeAttempt();
 *     if (permit instanceof Permit.Wait wait) {
 *         waitUntil(wait.notBeforeNanos(), cancellation);    // the provider's gate; then ask again
 *         continue;
 *     }
 *     if (!(permit instanceof Permit.Proceed proceed)) {
 *         break;                                            // refused: the operation is over
 *     }
 *     AttemptOutcome outcome = send(proceed.timeout(), operation.idempotencyKey());
 *     if (operation.afterAttempt(outcome) instanceof Decision.Retry retry) {
 *         waitUntil(retry.notBeforeNanos(), cancellation);   // on the engine's ticker
 *     }
 * }
 * }</pre>
 * Blocking adapters do not write this loop: {@link RetryLoop} is it, with hooks; the reactive filter and the fleet
 * simulator (which cannot block) follow the same two calls.
 * <p>
 The operation is where a decision's effects happen, once: {@link #beforeAttempt()} asks the provider's gate and
 * takes the retry's token (a retry is paid for when it is sent); {@link #afterAttempt(AttemptOutcome)} reports the
 * attempt's end to the gate and the budget, then acts on what the engine's rules decide. It emits the listener's
 * events and keeps an immutable {@link #trace()}.
 * <p>
 * Not thread-safe: one thread, or one reactive subscriber, drives it at a time. Its {@link Cancellation} may be
 * cancelled from any thread; the operation notices it at its next call. An operation started without one
 * ({@link RetryEngine#start(OperationSpec)}) makes it the first time {@link #cancellation()} is called, from any
 * thread, and every call returns that one.
 */
public final class RetryOperation {

	private enum Phase {

		READY, IN_FLIGHT, FINISHED

	}

	private static final AtomicReferenceFieldUpdater<RetryOperation, Cancellation> CANCELLATION =
			AtomicReferenceFieldUpdater.newUpdater(RetryOperation.class, Cancellation.class, "cancellation");

	private final RetryEngine engine;

	private final OperationSpec spec;

	// given at start, or made when first asked for (so an operation nobody cancels or waits in makes none); set once
	private volatile Cancellation cancellation;

	private final long startedAtNanos;

	// the latest attempt, kept as fields and made into an AttemptRecord only when asked for (trace()) or superseded;
	// its kind is its number's (the first is the only FIRST), a first attempt's tokens after are its tokens before,
	// and its timeout is what its start left of the deadline (timeout(...)), so none of the three is stored
	private long latestStartedAtNanos;

	private double latestTokensBefore;

	/** When the latest attempt's outcome was recorded; meaningful only once {@link #lastOutcome} is its outcome. */
	private long latestEndedAtNanos;

	/** What the engine decided after the latest attempt; {@code null} while it is in flight or if it never ended. */
	private Decision latestDecision;

	private Phase phase = Phase.READY;

	private int attempts;

	private AttemptOutcome lastOutcome;

	private Decision.Stop finalStop;

	// what only a retry, a wait or a probe needs, or null: made the first time one of them happens, so a first attempt
	// that succeeds builds none
	private OperationExtra extra;

	RetryOperation(RetryEngine engine, OperationSpec spec, Cancellation cancellation, long startedAtNanos) {
		this.engine = engine;
		this.spec = spec;
		if (cancellation != null) {
			// not a volatile write: the object is published to other threads the way it is handed to them
			CANCELLATION.lazySet(this, cancellation);
		}
		this.startedAtNanos = startedAtNanos;
	}

	/**
	 * Asks whether the next attempt may be sent, and with which timeout. In order: a finished operation refuses with
	 * its final stop; a cancelled one ends as {@link Outcome#CANCELLED}; calling before the scheduled retry's
	 * {@link Decision.Retry#notBeforeNanos()} is a bug and throws; no more than {@link RetryPolicy#minAttemptTime()} left
	 * of the deadline (after the reserve) ends as {@link Outcome#DEADLINE_EXCEEDED}; with pacing on, the provider's gate
	 * may answer {@link Permit.Wait} (wait, then call again: nothing is counted or spent) or refuse, which ends the
	 * operation as {@link Outcome#PROVIDER_COOLING_DOWN}; a retry the budget refuses ends as
	 * {@link Outcome#BUDGET_EXHAUSTED}. Otherwise the attempt is counted, its token taken (retries only) and the
	 * attempt event emitted.
	 * @return proceed with the attempt number and timeout {@code min(attemptTimeout, remaining - reserve)}, wait for
	 * the provider's gate, or refused with the stop that ended the operation
	 * @throws IllegalStateException if an attempt is in flight, or the scheduled retry instant has not been reached
	 */
	public Permit beforeAttempt() {
		if (this.phase == Phase.FINISHED) {
			return new Permit.Refused(this.finalStop);
		}
		if (this.phase == Phase.IN_FLIGHT) {
			throw new IllegalStateException("beforeAttempt() called while attempt " + this.attempts
					+ " is in flight; call afterAttempt() with its outcome first");
		}
		long now = this.engine.ticker().read();
		int next = this.attempts + 1;
		Permit refused = refusedUpFront(next, now);
		if (refused != null) {
			return refused;
		}
		RetryPolicy policy = this.engine.policy();
		long deadline = deadlineNanos();
		DeadlineRule rule = policy.deadlineRule();
		Duration timeout = rule.attemptTime(rule.availableNanos(deadline, now), false);
		long latestStart = rule.latestStartNanos(deadline);
		if (policy.pacing().enabled() && !keepsAdmission(now)) {
			Permit held = admit(next, now, latestStart, timeout);
			if (held != null) {
				return held;
			}
		}
		double before = this.engine.tokens().available(this.spec.scope());
		Permit noToken = (next > 1) ? takeToken(next, now, latestStart, before) : null;
		return (noToken != null) ? noToken : started(next, now, timeout, before);
	}

	/**
	 * What ends an operation before its gate or budget is asked: a cancellation, or too little left of the deadline;
	 * and a call before the scheduled retry's instant, which is a bug.
	 */
	private Permit refusedUpFront(int next, long now) {
		if (cancelled()) {
			return new Permit.Refused(finish(Outcome.CANCELLED, "cancelled before attempt " + next));
		}
		Decision.Retry pending = pendingRetryOrNull();
		if (pending != null && now < pending.notBeforeNanos()) {
			throw new IllegalStateException("beforeAttempt() called at ticker " + now + " ns, "
					+ (pending.notBeforeNanos() - now) + " ns before the retry's not-before instant "
					+ pending.notBeforeNanos() + " ns; wait until then");
		}
		RetryPolicy policy = this.engine.policy();
		DeadlineRule rule = policy.deadlineRule();
		long available = rule.availableNanos(deadlineNanos(), now);
		if (rule.leavesAnAttempt(available)) {
			return null;
		}
		String reason = "deadline: " + RetryEngine.seconds(Duration.ofNanos(Math.max(0, available)))
				+ " left before attempt " + next + ", no more than the minimum useful attempt of "
				+ RetryEngine.seconds(policy.minAttemptTime());
		if (next > 1) {
			OperationEvents.refusal(this, Optional.of(Outcome.DEADLINE_EXCEEDED), Optional.empty(), reason, now);
		}
		return new Permit.Refused(finish(Outcome.DEADLINE_EXCEEDED, reason));
	}

	/**
	 * Asks the provider's gate (pacing on): a hold is a {@link Permit.Wait} (the request joins the gate's queue the
	 * first time, unless it is full), a refusal ends the operation, a probe is remembered for its answer.
	 * @return the permit that ends this call, or {@code null} to go on to the budget
	 */
	private Permit admit(int next, long now, long latestStart, Duration timeout) {
		ProviderGate gate = this.engine.gate(this.spec.scope());
		ProviderGate.Admission admission = gate.admit(next == 1, now, latestStart,
				(this.extra != null) ? this.extra.held : null, Saturating.toNanos(timeout));
		if (admission instanceof ProviderGate.Admission.Hold hold) {
			OperationExtra extra = extra();
			if (!extra.queueAt(gate)) {
				return queueFull(gate, next, now);
			}
			extra.hold(hold, gate, now);
			return new Permit.Wait(hold.untilNanos(), hold.reason());
		}
		leaveQueue();
		if (this.extra != null) {
			this.extra.held = null;
		}
		if (admission instanceof ProviderGate.Admission.Refuse refuse) {
			return refused(Outcome.PROVIDER_COOLING_DOWN, refuse.reason() + "; attempt " + next + " was not sent", now);
		}
		if (admission instanceof ProviderGate.Admission.Probe) {
			extra().probing = gate;
		}
		return null;
	}

	/**
	 * Takes the retry's token, or is refused, in one call ({@link RetryTokens#take}). A retry told to wait for a token
	 * held in flight withdraws its probe, or keeps the gate's admission while it waits; nothing is spent meanwhile. A
	 * retry the provider asked for, which its gate just admitted, goes without one ({@link RetryTokens#tokenFree}).
	 * @return the permit that ends this call, or {@code null} once the retry may go
	 */
	private Permit takeToken(int next, long now, long latestStart, double before) {
		OperationExtra extra = extra();
		if (extra.pendingRetry != null && RetryTokens.tokenFree(this.engine.policy(), extra.pendingRetry)) {
			extra.retrySent(latestRecord(), before, false);
			return null;
		}
		RetryTokens.Take take = this.engine.tokens()
			.take(this.spec.scope(), next, now, latestStart, extra.tokenWaitSince(now));
		if (take instanceof RetryTokens.Take.Await await) {
			// with pacing on, the gate admitted this retry (unless it probes): it keeps that admission while it waits
			boolean keeps = extra.probing == null && this.engine.policy().pacing().enabled();
			extra.awaitToken(now, keeps ? this.engine.gate(this.spec.scope()) : null);
			return new Permit.Wait(await.untilNanos(), GateHold.BUDGET);
		}
		if (take instanceof RetryTokens.Take.Refused refusal) {
			return refused(Outcome.BUDGET_EXHAUSTED, refusal.reason(), now);
		}
		extra.retrySent(latestRecord(), ((RetryTokens.Take.Taken) take).after(), true);
		return null;
	}

	/** Counts the attempt, puts it in flight and reports it: what a permit to send means. */
	private Permit started(int next, long now, Duration timeout, double before) {
		this.attempts = next;
		this.phase = Phase.IN_FLIGHT;
		this.latestStartedAtNanos = now;
		this.latestTokensBefore = before;
		this.latestDecision = null;
		Permit.Proceed proceed = this.engine.proceed(next, timeout, deadlineNanos(), now);
		OperationEvents.waited(this, (next > 1) ? this.extra.takeGap() : null, now);
		OperationEvents.attempt(this, proceed.timeout(), now, before, (next == 1) ? before : this.extra.tokensAfter);
		return proceed;
	}

	/** The gate already holds max-queued requests: this one ends at once, unsent, rather than wait in memory. */
	private Permit queueFull(ProviderGate gate, int next, long now) {
		return refused(Outcome.PROVIDER_COOLING_DOWN, "'" + gate.scope() + "' already holds "
				+ gate.settings().maxQueued() + " requests (max-queued); attempt " + next + " was not sent: shed load"
				+ " before it reaches the client, or raise max-queued if the heap can hold more", now);
	}

	/** Ends the operation before an attempt it would have sent, reporting the refusal. */
	private Permit refused(Outcome outcome, String reason, long now) {
		OperationEvents.refusal(this, Optional.of(outcome), Optional.empty(), reason, now);
		return new Permit.Refused(finish(outcome, reason));
	}

	/** Whether this retry keeps the admission its gate gave it before it had to wait for a token. */
	private boolean keepsAdmission(long now) {
		return this.extra != null && this.extra.keepsAdmission(now);
	}

	/**
	 * Records the outcome of the attempt in flight, reports it to the provider's gate (pacing on) and asks the engine
	 * what follows. A retry adds its delay to the total wait and must be waited out on the engine's ticker before
	 * {@link #beforeAttempt()}; a stop ends the operation. A successful first attempt deposits into the budget; a
	 * successful retry gives its token back.
	 * @param outcome what the attempt produced
	 * @return the engine's decision
	 * @throws IllegalStateException if no attempt is in flight
	 */
	public Decision afterAttempt(AttemptOutcome outcome) {
		Objects.requireNonNull(outcome, "outcome");
		requireInFlight("afterAttempt()");
		this.lastOutcome = outcome;
		AttemptJudge judge = this.engine.judge();
		Classification classification = judge.classify(outcome);
		// a success ends the operation whatever its state (the judge's first rule), so it needs none
		OperationState state = (classification == Classification.SUCCESS) ? null
				: new OperationState(this.spec, this.attempts, this.startedAtNanos, deadlineNanos(), totalWait(),
						cancelled());
		GateFeed.Pause pause = attemptEnded(outcome, classification);
		Evaluation evaluation = (state == null) ? Evaluation.SUCCEEDED
				: judge.judge(state, outcome, classification, this.engine.ticker().read(),
						this.engine.tokens().view(this.spec.scope()));
		long now = this.engine.ticker().read();
		Decision decision = evaluation.decision();
		this.latestEndedAtNanos = now;
		this.latestDecision = decision;
		if (decision instanceof Decision.Retry retry) {
			scheduled(retry, outcome, pause, now);
		}
		else if (evaluation.refusedRetry() && decision instanceof Decision.Stop stop) {
			OperationEvents.refusal(this, Optional.of(stop.outcome()), evaluation.hintError(), stop.reason(), now);
		}
		OperationEvents.cooldownStarted(this, pause, outcome, decision, now);
		return (decision instanceof Decision.Stop stop) ? finish(stop) : decision;
	}

	/**
	 * What the end of the attempt in flight does to the provider's gate and the budget, all of it and only here,
	 * before the judge decides what follows: the gate hears the response (pacing on) and its probe's answer; a first
	 * attempt that succeeded deposits, a retry gives its token back when it succeeded and otherwise leaves it spent.
	 * @return the pause the response named for the gate, {@code null} when none (or pacing is off)
	 */
	private GateFeed.Pause attemptEnded(AttemptOutcome outcome, Classification classification) {
		boolean succeeded = classification == Classification.SUCCESS;
		GateFeed.Pause pause = null;
		if (this.engine.policy().pacing().enabled() && outcome instanceof AttemptOutcome.Response response) {
			pause = this.engine.gateFeed()
				.observe(this.engine.gate(this.spec.scope()), this.spec, this.attempts, response, classification);
		}
		endProbe(true, succeeded);
		boolean retry = this.attempts > 1;
		boolean token = tokenHeld();
		if (retry) {
			this.extra.tokenHeld = false;
		}
		this.engine.tokens().attemptEnded(this.spec.scope(), retry, token, succeeded);
		return pause;
	}

	/** A retry decided: it is pending, counted in the total wait and measured from now ({@link Gap}), and reported. */
	private void scheduled(Decision.Retry retry, AttemptOutcome outcome, GateFeed.Pause pause, long now) {
		extra().retryScheduled(retry, pause, now);
		this.phase = Phase.READY;
		retry.refusedHint()
			.ifPresent((ex) -> OperationEvents.refusal(this, Optional.empty(), Optional.of(ex.code()),
					"unusable Retry-After after attempt " + this.attempts + " treated as absent: " + ex.getMessage(),
					now));
		OperationEvents.retryScheduled(this, outcome, retry, now);
	}

	/**
	 * Records an attempt that threw: an I/O failure goes to {@link #afterAttempt} as an
	 * {@link AttemptOutcome.Failure} of its kind; an exception that is not one (an empty kind: a codec error, a bug)
	 * ends the operation {@link Outcome#NOT_RETRYABLE}, naming the exception's class (not its message, which may
	 * carry anything).
	 * @param failure what the attempt threw
	 * @param kind what it means for side effects, usually {@link FailureKind#classify}
	 * @param sentAtNanos when the attempt was sent
	 * @param failedAtNanos when the failure was observed
	 * @return the engine's decision
	 * @throws IllegalStateException if no attempt is in flight
	 */
	public Decision afterFailure(Throwable failure, Optional<FailureKind> kind, long sentAtNanos, long failedAtNanos) {
		if (kind.isPresent()) {
			return afterAttempt(new AttemptOutcome.Failure(kind.get(), failure, sentAtNanos, failedAtNanos));
		}
		requireInFlight("afterFailure()");
		return stop(Outcome.NOT_RETRYABLE, "attempt " + this.attempts + " threw " + failure.getClass().getName()
				+ ", which is not an I/O failure");
	}

	/**
	 * Ends the operation as {@link Outcome#CANCELLED}: no further attempt is permitted. Idempotent: on an operation
	 * that has already ended it changes nothing and returns the stop it ended with.
	 * @return the stop the operation ended with
	 */
	public Decision.Stop cancel() {
		if (this.phase == Phase.FINISHED) {
			return this.finalStop;
		}
		return finish(Outcome.CANCELLED, "cancelled after " + this.attempts + " attempt(s)");
	}

	/**
	 * Ends the operation with the given outcome, for adapters that must end it themselves (a body that cannot be
	 * replayed, an exception that is not an I/O failure). On an operation that has already ended it changes nothing.
	 * @param outcome how the operation ends
	 * @param reason a sentence saying why
	 * @return the stop the operation ended with
	 */
	public Decision.Stop stop(Outcome outcome, String reason) {
		Objects.requireNonNull(outcome, "outcome");
		Objects.requireNonNull(reason, "reason");
		if (this.phase == Phase.FINISHED) {
			return this.finalStop;
		}
		return finish(outcome, reason);
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

	/** Whether the operation's cancellation fired; one not made yet has not. */
	private boolean cancelled() {
		Cancellation current = this.cancellation;
		return current != null && current.isCancelled();
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

	private Decision.Retry pendingRetryOrNull() {
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
		boolean latest = this.attempts > 0 && (this.latestDecision != null || this.phase == Phase.FINISHED);
		List<AttemptRecord> before = (this.extra != null) ? this.extra.earlier() : List.of();
		return latest ? OperationExtra.with(before, latestRecord()) : List.copyOf(before);
	}

	/**
	 * The latest attempt as a record: without outcome, end and decision while it is in flight, or when the
	 * operation was ended while it was.
	 */
	private AttemptRecord latestRecord() {
		boolean ended = this.latestDecision != null;
		boolean first = this.attempts == 1;
		long deadline = deadlineNanos();
		long started = this.latestStartedAtNanos;
		Duration timeout = this.engine.attemptTime(this.engine.policy().deadlineRule().availableNanos(deadline, started));
		return new AttemptRecord(this.attempts, first ? AttemptKind.FIRST : AttemptKind.RETRY,
				elapsedAt(this.latestStartedAtNanos), timeout,
				DeadlineRule.remaining(deadline, started), this.latestTokensBefore,
				first ? this.latestTokensBefore : this.extra.tokensAfter,
				ended ? Optional.of(this.lastOutcome) : Optional.empty(),
				ended ? Optional.of(elapsedAt(this.latestEndedAtNanos)) : Optional.empty(),
				Optional.ofNullable(this.latestDecision));
	}

	private Decision.Stop finish(Outcome outcome, String reason) {
		return finish(new Decision.Stop(outcome, reason));
	}

	private Decision.Stop finish(Decision.Stop stop) {
		this.finalStop = stop;
		this.phase = Phase.FINISHED;
		if (stop.outcome() != Outcome.SUCCESS && stop.outcome() != Outcome.CANCELLED) {
			HandOn.of(this.engine, this.spec, this.attempts, this.lastOutcome).ifPresent((at) -> extra().notBefore = at);
		}
		leaveQueue();
		endProbe(false, false);
		if (tokenHeld()) {
			settleToken();
		}
		if (this.extra != null) {
			this.extra.ended();
		}
		OperationEvents.finished(this, stop);
		return this.finalStop;
	}

	private void requireInFlight(String call) {
		if (this.phase != Phase.IN_FLIGHT) {
			throw new IllegalStateException(call + " called with no attempt in flight (" + this.phase
					+ (this.finalStop != null ? ", ended " + this.finalStop.outcome() : "")
					+ "); call beforeAttempt() and send only when it returns Permit.Proceed");
		}
	}

	/**
	 * Reports the probe's answer to its gate, once ({@code answered}: its outcome was observed). Only a success
	 * ({@code admitted}) may open the gate before the cooldown's end; an answer that leaves it open is reported.
	 */
	private void endProbe(boolean answered, boolean admitted) {
		ProviderGate gate = (this.extra != null) ? this.extra.endProbe(admitted) : null;
		if (answered && gate != null && gate.cooldownRemaining().isZero()) {
			OperationEvents.cooldownEnded(this, gate);
		}
	}

	/** The retry holding a token ended without success: its token stays spent, and it is no longer in flight. */
	private void settleToken() {
		this.extra.tokenHeld = false;
		this.engine.tokens().attemptEnded(this.spec.scope(), true, true, false);
	}

	private void leaveQueue() {
		if (this.extra != null) {
			this.extra.leaveQueue();
		}
	}

	/** Whether the attempt in flight is a retry holding a budget token. */
	private boolean tokenHeld() {
		return this.extra != null && this.extra.tokenHeld;
	}

	/** The state beyond a first attempt that succeeds, made on first use. */
	private OperationExtra extra() {
		if (this.extra == null) {
			this.extra = new OperationExtra();
		}
		return this.extra;
	}

	/** The operation's engine, for its events. */
	RetryEngine engine() {
		return this.engine;
	}

	private Duration elapsedAt(long now) {
		return Duration.ofNanos(now - this.startedAtNanos);
	}

}
