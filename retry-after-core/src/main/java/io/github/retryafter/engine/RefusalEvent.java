package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.internal.FieldText;

/**
 * Something that wanted a retry was refused. Either the server's {@code Retry-After} was unusable and is treated as
 * absent (then {@link #stop()} is empty and the operation goes on with its own backoff), or a retryable failure will
 * not be retried, and {@link #stop()} says how the operation ends: {@link Outcome#OUTCOME_UNKNOWN} (an unsafe request
 * may have been applied: tell a person and look the outcome up before sending again), {@link Outcome#NOT_RETRYABLE}
 * (not replay-safe), {@link Outcome#BUDGET_EXHAUSTED}, {@link Outcome#WAIT_TOO_LONG} and so on.
 *
 * @param spec the operation
 * @param attempt the last attempt made
 * @param stop how the operation ends because of the refusal; empty when only a hint was refused
 * @param hintError the code of the refused {@code Retry-After}, if that is what was refused or why
 * @param reason a sentence with the numbers, cut to {@value FieldText#MAX_REASON} characters
 * @param remainingDeadline what is left of the deadline
 * @param budgetTokens the tokens available to this provider
 * @param elapsed the time since the operation started
 */
public record RefusalEvent(OperationSpec spec, int attempt, Optional<Outcome> stop, Optional<RetryAfterError> hintError,
		String reason, Duration remainingDeadline, double budgetTokens, Duration elapsed) {

	/**
	 * Cuts the reason to {@value FieldText#MAX_REASON} characters and escapes its control characters.
	 * @param spec the operation
	 * @param attempt the last attempt made
	 * @param stop how the operation ends because of the refusal; empty when only a hint was refused
	 * @param hintError the code of the refused {@code Retry-After}, if that is what was refused or why
	 * @param reason a sentence with the numbers
	 * @param remainingDeadline what is left of the deadline
	 * @param budgetTokens the tokens available to this provider
	 * @param elapsed the time since the operation started
	 */
	public RefusalEvent {
		reason = FieldText.reason(reason);
	}

	/**
	 * Returns whether the retry budget refused the retry.
	 * @return whether the operation stops with {@link Outcome#BUDGET_EXHAUSTED}
	 */
	public boolean isBudgetRefusal() {
		return this.stop.filter((outcome) -> outcome == Outcome.BUDGET_EXHAUSTED).isPresent();
	}

}
