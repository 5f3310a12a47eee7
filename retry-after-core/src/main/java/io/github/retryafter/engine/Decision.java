package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.internal.FieldText;

/**
 * What the engine decided after one attempt: retry after a delay, for a stated reason, or stop with an outcome.
 */
public sealed interface Decision {

	/**
	 * Retry once {@code delay} has passed.
	 * @param delay how long to wait before the next attempt, from the moment the last response arrived
	 * @param notBeforeNanos the monotonic ticker reading before which the next attempt must not be sent
	 * @param source whether the delay came from the server's {@code Retry-After} or our own backoff
	 * @param plan the planner's plan when the delay came from {@code Retry-After}
	 * @param draw the backoff draw when the delay came from (or was compared with) our own backoff
	 * @param refusedHint a {@code Retry-After} the planner refused as unusable and which was therefore treated as
	 * absent
	 */
	record Retry(Duration delay, long notBeforeNanos, DelaySource source, Optional<RetryPlan> plan,
			Optional<BackoffDraw> draw, Optional<RetryAfterException> refusedHint) implements Decision {

		/**
		 * Checks the arguments.
		 * @param delay how long to wait before the next attempt, from the moment the last response arrived
		 * @param notBeforeNanos the monotonic ticker reading before which the next attempt must not be sent
		 * @param source whether the delay came from the server's {@code Retry-After} or our own backoff
		 * @param plan the planner's plan when the delay came from {@code Retry-After}
		 * @param draw the backoff draw when the delay came from (or was compared with) our own backoff
		 * @param refusedHint a {@code Retry-After} the planner refused as unusable and which was therefore treated as
		 * absent
		 */
		public Retry {
			Objects.requireNonNull(delay, "delay");
			Objects.requireNonNull(source, "source");
			Objects.requireNonNull(plan, "plan");
			Objects.requireNonNull(draw, "draw");
			Objects.requireNonNull(refusedHint, "refusedHint");
		}

	}

	/**
	 * Stop: the operation is over.
	 * @param outcome how it ended
	 * @param reason a sentence for logs and exceptions saying why, with the numbers (cut to
	 * {@value FieldText#MAX_REASON} characters, control characters escaped)
	 */
	record Stop(Outcome outcome, String reason) implements Decision {

		/**
		 * Checks the arguments.
		 * @param outcome how it ended
		 * @param reason a sentence for logs and exceptions saying why, with the numbers
		 */
		public Stop {
			Objects.requireNonNull(outcome, "outcome");
			reason = FieldText.reason(Objects.requireNonNull(reason, "reason"));
		}

	}

}
