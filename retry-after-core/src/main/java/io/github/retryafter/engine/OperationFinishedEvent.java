package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

/**
 * A logical operation ended; emitted exactly once per operation.
 *
 * @param spec the operation
 * @param outcome how it ended
 * @param reason a sentence with the numbers
 * @param attempts how many requests were sent
 * @param totalWait the waiting planned between attempts
 * @param elapsed the time from the operation's start to its end
 * @param lastOutcome the last attempt's outcome, if an attempt finished
 */
public record OperationFinishedEvent(OperationSpec spec, Outcome outcome, String reason, int attempts,
		Duration totalWait, Duration elapsed, Optional<AttemptOutcome> lastOutcome) {

	/**
	 * Returns how many of the attempts were retries.
	 * @return {@code max(0, attempts - 1)}
	 */
	public int retries() {
		return Math.max(0, this.attempts - 1);
	}

}
