package io.github.retryafter.boot;

import java.io.IOException;

/**
 * Says how a retried operation ended when it ended without a response to return: attached as a suppressed exception
 * to the last attempt's own error (which reaches the caller unchanged), or thrown by itself when no attempt could be
 * sent at all (for example, the deadline had passed or the operation was cancelled).
 * <p>
 * It extends {@link IOException} so a blocking {@code RestClient} can throw it through its interceptor chain.
 */
public class RetryAfterOutcomeException extends IOException {

	private final transient RetryOutcome outcome;

	/**
	 * Creates an exception for an outcome.
	 * @param outcome how the operation ended
	 */
	public RetryAfterOutcomeException(RetryOutcome outcome) {
		super("retry-after stopped operation on provider '" + outcome.provider() + "' with " + outcome.outcome()
				+ " after " + outcome.attempts() + " attempt(s): " + outcome.reason());
		this.outcome = outcome;
	}

	/**
	 * Returns how the operation ended.
	 * @return the outcome
	 */
	public RetryOutcome outcome() {
		return this.outcome;
	}

}
