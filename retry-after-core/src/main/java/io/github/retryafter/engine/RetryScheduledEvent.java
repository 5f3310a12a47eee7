package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;

/**
 * A retry was scheduled after a failed attempt. The retry's budget token is not taken yet: it is taken when the retry is
 * sent (see {@link AttemptEvent#tokensBefore()}), so {@link #budgetTokens()} is what was available when it was planned.
 *
 * @param spec the operation
 * @param attempt the attempt that failed
 * @param outcome what that attempt produced
 * @param decision the retry decision, with its delay, source, plan or draw and refused hint
 * @param remainingDeadline what is left of the deadline once the delay has passed
 * @param totalWait the operation's waiting including this delay
 * @param budgetTokens the tokens available to this provider when the retry was planned
 * @param elapsed the time since the operation started
 */
public record RetryScheduledEvent(OperationSpec spec, int attempt, AttemptOutcome outcome, Decision.Retry decision,
		Duration remainingDeadline, Duration totalWait, double budgetTokens, Duration elapsed) {

	/**
	 * Returns how long the retry waits.
	 * @return the delay
	 */
	public Duration delay() {
		return this.decision.delay();
	}

	/**
	 * Returns where the delay came from.
	 * @return the source
	 */
	public DelaySource source() {
		return this.decision.source();
	}

	/**
	 * Returns the planner's plan when the server's {@code Retry-After} was used; its {@link RetryPlan#skew()} is the
	 * server clock's offset from ours.
	 * @return the plan, if any
	 */
	public Optional<RetryPlan> plan() {
		return this.decision.plan();
	}

	/**
	 * Returns the backoff draw when our own backoff was used or compared.
	 * @return the draw, if any
	 */
	public Optional<BackoffDraw> draw() {
		return this.decision.draw();
	}

	/**
	 * Returns the code of a {@code Retry-After} the planner refused as unusable and which was treated as absent.
	 * @return the code, if a hint was refused
	 */
	public Optional<RetryAfterError> refusedHint() {
		return this.decision.refusedHint().map((ex) -> ex.code());
	}

}
