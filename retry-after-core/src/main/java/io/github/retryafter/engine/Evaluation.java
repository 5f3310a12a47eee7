package io.github.retryafter.engine;

import java.util.Optional;

import io.github.retryafter.RetryAfterError;

/**
 * What {@link AttemptJudge} decided before or after an attempt: the decision, whether a wanted retry (or a request
 * its provider's gate or budget turned away) was refused, and the error of a {@code Retry-After} it could not use,
 * for the operation's events. Immutable.
 *
 * @param decision retry or stop
 * @param refusedRetry whether a rule refused what wanted to go on (a retry, or a request its gate or budget turned
 * away), which the operation reports
 * @param hintError why the response's {@code Retry-After} was not used, when it was not
 */
record Evaluation(Decision decision, boolean refusedRetry, Optional<RetryAfterError> hintError) {

	/** The success path's evaluation, shared: success is the common case and its reason needs no numbers. */
	static final Evaluation SUCCEEDED = stop(Outcome.SUCCESS, "the attempt succeeded", false);

	static Evaluation stop(Outcome outcome, String reason, boolean refusedRetry) {
		return new Evaluation(new Decision.Stop(outcome, reason), refusedRetry, Optional.empty());
	}

}
