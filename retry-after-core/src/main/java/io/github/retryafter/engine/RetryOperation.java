package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.Cancellation;
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
 * The operation is where a decision's effects happen, once; it decides nothing itself: {@code AttemptJudge} says
 * before an attempt whether the operation ends (cancelled, deadline) and after it what follows, and the policy's
 * {@code DeadlineRule} gives the attempt its time. {@link #beforeAttempt()} asks the provider's gate and takes the
 * retry's token (a retry is paid for when it is sent); {@link #afterAttempt(AttemptOutcome)} reports the attempt's end
 * to the gate and the budget, then acts on the judge's decision. It emits the listener's events and keeps an
 * immutable {@link #trace()} (its record of itself is kept apart, in {@code OperationRecord}).
 * <p>
 * Not thread-safe: one thread, or one reactive subscriber, drives it at a time. Its {@link Cancellation} may be
 * cancelled from any thread; the operation notices it at its next call. An operation started without one
 * ({@link RetryEngine#start(OperationSpec)}) makes it the first time {@link #cancellation()} is called, from any
 * thread, and every call returns that one.
 */
public final class RetryOperation extends OperationRecord {

	private enum Phase {

		READY, IN_FLIGHT, FINISHED

	}

	private Phase phase = Phase.READY;

	RetryOperation(RetryEngine engine, OperationSpec spec, Cancellation cancellation, long startedAtNanos) {
		super(engine, spec, cancellation, startedAtNanos);
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
			return new Permit.Refused(endedWith());
		}
		if (this.phase == Phase.IN_FLIGHT) {
			throw new IllegalStateException("beforeAttempt() called while attempt " + attempts()
					+ " is in flight; call afterAttempt() with its outcome first");
		}
		RetryEngine engine = engine();
		long now = engine.ticker().read();
		int next = attempts() + 1;
		long deadline = deadlineNanos();
		boolean cancelled = cancelled();
		if (!cancelled) {
			requireRetryDue(now);
		}
		Optional<Evaluation> upFront = engine.judge().beforeAttempt(cancelled, next, deadline, now);
		if (upFront.isPresent()) {
			return refused(upFront.get(), now);
		}
		DeadlineRule rule = engine.policy().deadlineRule();
		long available = rule.availableNanos(deadline, now);
		long latestStart = rule.latestStartNanos(deadline);
		if (engine.policy().pacing().enabled() && !keepsAdmission(now)) {
			Permit held = admit(next, now, latestStart, rule.attemptTimeoutNanos(available));
			if (held != null) {
				return held;
			}
		}
		double before = engine.tokens().available(spec().scope());
		Permit noToken = (next > 1) ? takeToken(next, now, latestStart, before) : null;
		return (noToken != null) ? noToken
				: started(next, now, rule.attemptTime(available, false), deadline, before);
	}

	/** A call before the scheduled retry's instant is a bug: the adapter did not wait out the retry's delay. */
	private void requireRetryDue(long now) {
		Decision.Retry pending = pendingRetryOrNull();
		if (pending != null && now < pending.notBeforeNanos()) {
			throw new IllegalStateException("beforeAttempt() called at ticker " + now + " ns, "
					+ (pending.notBeforeNanos() - now) + " ns before the retry's not-before instant "
					+ pending.notBeforeNanos() + " ns; wait until then");
		}
	}

	/**
	 * Asks the provider's gate (pacing on): a hold is a {@link Permit.Wait} (the request joins the gate's queue the
	 * first time, unless it is full), a refusal ends the operation, a probe is remembered for its answer.
	 * @return the permit that ends this call, or {@code null} to go on to the budget
	 */
	private Permit admit(int next, long now, long latestStart, long timeoutNanos) {
		ProviderGate gate = engine().gate(spec().scope());
		OperationExtra made = extraIfMade();
		ProviderGate.Admission admission = gate.admit(next == 1, now, latestStart, (made != null) ? made.held : null,
				timeoutNanos);
		if (admission instanceof ProviderGate.Admission.Hold hold) {
			OperationExtra extra = extra();
			if (!extra.queueAt(gate)) {
				return refused(AttemptJudge.queueFull(gate.scope(), gate.settings().maxQueued(), next), now);
			}
			extra.hold(hold, gate, now);
			return new Permit.Wait(hold.untilNanos(), hold.reason());
		}
		if (made != null) {
			made.leaveQueue();
			made.held = null;
		}
		if (admission instanceof ProviderGate.Admission.Refuse refuse) {
			return refused(AttemptJudge.refusedByGate(refuse.reason(), next), now);
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
		RetryEngine engine = engine();
		OperationExtra extra = extra();
		if (extra.pendingRetry != null && RetryTokens.tokenFree(engine.policy(), extra.pendingRetry)) {
			extra.retrySent(latestRecord(), before, false);
			return null;
		}
		RetryTokens.Take take = engine.tokens().take(spec().scope(), next, now, latestStart, extra.tokenWaitSince(now));
		if (take instanceof RetryTokens.Take.Await await) {
			// with pacing on, the gate admitted this retry (unless it probes): it keeps that admission while it waits
			boolean keeps = extra.probing == null && engine.policy().pacing().enabled();
			extra.awaitToken(now, keeps ? engine.gate(spec().scope()) : null);
			return new Permit.Wait(await.untilNanos(), GateHold.BUDGET);
		}
		if (take instanceof RetryTokens.Take.Refused refusal) {
			return refused(AttemptJudge.refusedByBudget(refusal.reason()), now);
		}
		extra.retrySent(latestRecord(), ((RetryTokens.Take.Taken) take).after(), true);
		return null;
	}

	/** Counts the attempt, puts it in flight and reports it: what a permit to send means. */
	private Permit started(int next, long now, Duration timeout, long deadline, double before) {
		attemptStarted(next, now, before);
		this.phase = Phase.IN_FLIGHT;
		Permit.Proceed proceed = engine().proceed(next, timeout, deadline, now);
		OperationEvents.waited(this, (next > 1) ? extraIfMade().takeGap() : null, now);
		OperationEvents.attempt(this, proceed.timeout(), now, before, (next == 1) ? before : extraIfMade().tokensAfter);
		return proceed;
	}

	/** Ends the operation before an attempt it would have sent, reporting the refusal when the judge says so. */
	private Permit refused(Evaluation refusal, long now) {
		Decision.Stop stop = (Decision.Stop) refusal.decision();
		if (refusal.refusedRetry()) {
			OperationEvents.refusal(this, Optional.of(stop.outcome()), Optional.empty(), stop.reason(), now);
		}
		return new Permit.Refused(finish(stop));
	}

	/** Whether this retry keeps the admission its gate gave it before it had to wait for a token. */
	private boolean keepsAdmission(long now) {
		OperationExtra made = extraIfMade();
		return made != null && made.keepsAdmission(now);
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
		outcomeRecorded(outcome);
		RetryEngine engine = engine();
		AttemptJudge judge = engine.judge();
		Classification classification = judge.classify(outcome);
		// a success ends the operation whatever its state (the judge's first rule), so it needs none
		OperationState state = (classification == Classification.SUCCESS) ? null
				: new OperationState(spec(), attempts(), startedAtNanos(), deadlineNanos(), totalWait(), cancelled());
		GateFeed.Pause pause = attemptEnded(outcome, classification);
		Evaluation evaluation = (state == null) ? Evaluation.SUCCEEDED
				: judge.judge(state, outcome, classification, engine.ticker().read(),
						engine.tokens().view(spec().scope()));
		long now = engine.ticker().read();
		Decision decision = evaluation.decision();
		decided(decision, now);
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
		RetryEngine engine = engine();
		boolean succeeded = classification == Classification.SUCCESS;
		GateFeed.Pause pause = null;
		if (engine.policy().pacing().enabled() && outcome instanceof AttemptOutcome.Response response) {
			pause = engine.gateFeed()
				.observe(engine.gate(spec().scope()), spec(), attempts(), response, classification);
		}
		endProbe(true, succeeded);
		boolean retry = attempts() > 1;
		boolean token = tokenHeld();
		if (retry) {
			extraIfMade().tokenHeld = false;
		}
		engine.tokens().attemptEnded(spec().scope(), retry, token, succeeded);
		return pause;
	}

	/** A retry decided: it is pending, counted in the total wait and measured from now ({@link Gap}), and reported. */
	private void scheduled(Decision.Retry retry, AttemptOutcome outcome, GateFeed.Pause pause, long now) {
		extra().retryScheduled(retry, pause, now);
		this.phase = Phase.READY;
		retry.refusedHint()
			.ifPresent((ex) -> OperationEvents.refusal(this, Optional.empty(), Optional.of(ex.code()),
					"unusable Retry-After after attempt " + attempts() + " treated as absent: " + ex.getMessage(),
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
		return finish(AttemptJudge.thrown(attempts(), failure));
	}

	/**
	 * Ends the operation as {@link Outcome#CANCELLED}: no further attempt is permitted. Idempotent: on an operation
	 * that has already ended it changes nothing and returns the stop it ended with.
	 * @return the stop the operation ended with
	 */
	public Decision.Stop cancel() {
		if (this.phase == Phase.FINISHED) {
			return endedWith();
		}
		return finish(new Decision.Stop(Outcome.CANCELLED, "cancelled after " + attempts() + " attempt(s)"));
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
			return endedWith();
		}
		return finish(new Decision.Stop(outcome, reason));
	}

	/**
	 * Ends the operation with {@code stop}: the provider's instant is kept to hand on (unless it succeeded or was
	 * cancelled), and whatever it holds of its gate and budget is let go (its place in the queue, its probe, its
	 * token) before the finished event.
	 */
	private Decision.Stop finish(Decision.Stop stop) {
		ended(stop);
		this.phase = Phase.FINISHED;
		if (stop.outcome() != Outcome.SUCCESS && stop.outcome() != Outcome.CANCELLED) {
			keepHandOn();
		}
		OperationExtra made = extraIfMade();
		if (made != null) {
			made.leaveQueue();
		}
		endProbe(false, false);
		if (tokenHeld()) {
			settleToken();
		}
		if (made != null) {
			made.ended();
		}
		OperationEvents.finished(this, stop);
		return stop;
	}

	private void requireInFlight(String call) {
		if (this.phase != Phase.IN_FLIGHT) {
			Decision.Stop ended = endedWith();
			throw new IllegalStateException(call + " called with no attempt in flight (" + this.phase
					+ (ended != null ? ", ended " + ended.outcome() : "")
					+ "); call beforeAttempt() and send only when it returns Permit.Proceed");
		}
	}

	/**
	 * Reports the probe's answer to its gate, once ({@code answered}: its outcome was observed). Only a success
	 * ({@code admitted}) may open the gate before the cooldown's end; an answer that leaves it open is reported.
	 */
	private void endProbe(boolean answered, boolean admitted) {
		OperationExtra made = extraIfMade();
		ProviderGate gate = (made != null) ? made.endProbe(admitted) : null;
		if (answered && gate != null && gate.cooldownRemaining().isZero()) {
			OperationEvents.cooldownEnded(this, gate);
		}
	}

	/** The retry holding a token ended without success: its token stays spent, and it is no longer in flight. */
	private void settleToken() {
		extraIfMade().tokenHeld = false;
		engine().tokens().attemptEnded(spec().scope(), true, true, false);
	}

	/** Whether the attempt in flight is a retry holding a budget token. */
	private boolean tokenHeld() {
		OperationExtra made = extraIfMade();
		return made != null && made.tokenHeld;
	}

}
