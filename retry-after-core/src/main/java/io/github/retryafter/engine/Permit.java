package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to {@link RetryOperation#beforeAttempt()}: send the attempt with this timeout, or do not send it.
 */
public sealed interface Permit {

	/**
	 * Send the attempt.
	 * @param attempt the attempt number, from 1
	 * @param timeout the time the attempt is given: {@code min(attemptTimeout, remaining deadline - reserve)}
	 */
	record Proceed(int attempt, Duration timeout) implements Permit {

		/**
		 * Checks the arguments.
		 */
		public Proceed {
			Objects.requireNonNull(timeout, "timeout");
			if (attempt < 1) {
				throw new IllegalArgumentException("attempt must be at least 1 but was " + attempt);
			}
		}

	}

	/**
	 * Do not send: the operation is over.
	 * @param stop how it ended
	 */
	record Refused(Decision.Stop stop) implements Permit {

		/**
		 * Checks the arguments.
		 */
		public Refused {
			Objects.requireNonNull(stop, "stop");
		}

	}

}
