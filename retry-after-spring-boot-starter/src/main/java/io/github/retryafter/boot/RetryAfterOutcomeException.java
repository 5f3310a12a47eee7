package io.github.retryafter.boot;

import java.io.IOException;
import java.util.Optional;

import io.github.retryafter.engine.Ending;
import io.github.retryafter.engine.NotBefore;

/**
 * Says how a retried operation ended when it ended without a response to return: attached as a suppressed exception
 * to the last attempt's own error (which reaches the caller unchanged), or thrown by itself when no attempt could be
 * sent at all (for example, the deadline had passed or the operation was cancelled).
 * <p>
 * When the operation ended with a response instead (for example {@code WAIT_TOO_LONG} hands back the {@code 429}), the
 * client's own exception for that response ({@code HttpClientErrorException.TooManyRequests},
 * {@code WebClientResponseException.TooManyRequests}) carries this one as a suppressed exception, so that whoever
 * catches it can read {@link #notBefore()} (or {@link NotBefore#find(Throwable)} on what it caught).
 * <p>
 * It extends {@link IOException} so a blocking {@code RestClient} can throw it through its interceptor chain.
 */
public class RetryAfterOutcomeException extends IOException implements NotBefore.Carrier {

	private final transient RetryOutcome outcome;

	/**
	 * Creates an exception for an outcome.
	 * @param outcome how the operation ended
	 */
	public RetryAfterOutcomeException(RetryOutcome outcome) {
		super(Ending.describe(outcome.provider(), outcome.outcome(), outcome.attempts(), outcome.reason(),
				outcome.notBefore()));
		this.outcome = outcome;
	}

	/**
	 * Returns how the operation ended.
	 * @return the outcome
	 */
	public RetryOutcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns the instant the provider named, which an outer retry layer must not retry before.
	 * @return the instant, empty when the provider named none still ahead
	 */
	@Override
	public Optional<NotBefore> notBefore() {
		return this.outcome.notBefore();
	}

}
