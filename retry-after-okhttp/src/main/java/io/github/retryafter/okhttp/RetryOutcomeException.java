package io.github.retryafter.okhttp;

import java.io.IOException;
import java.util.Objects;

import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.Outcome;

/**
 * Says how a retried call ended when it ended without a response to return: attached as a suppressed exception to the
 * last attempt's own {@link IOException} (which reaches the caller unchanged), or thrown by itself when no attempt
 * was sent (the deadline had passed, or the call was cancelled before its first attempt). An {@link IOException}, so
 * that {@code Call.execute()} and {@code Callback.onFailure} carry it. Immutable.
 */
public final class RetryOutcomeException extends IOException {

	private static final long serialVersionUID = 1L;

	/** How the operation ended. */
	private final Outcome outcome;

	/** Why, with the numbers. */
	private final String reason;

	/** The provider the request was routed to. */
	private final String provider;

	/** How many requests were sent. */
	private final int attempts;

	/**
	 * Creates the exception.
	 * @param stop how the operation ended, and why
	 * @param provider the provider the request was routed to
	 * @param attempts how many requests were sent
	 */
	public RetryOutcomeException(Decision.Stop stop, String provider, int attempts) {
		super("retry-after stopped the call to provider '" + provider + "' with " + stop.outcome() + " after "
				+ attempts + " attempt(s): " + stop.reason());
		this.outcome = stop.outcome();
		this.reason = stop.reason();
		this.provider = Objects.requireNonNull(provider, "provider");
		this.attempts = attempts;
	}

	/**
	 * Returns how the operation ended.
	 * @return the outcome
	 */
	public Outcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns why, with the numbers.
	 * @return the engine's reason
	 */
	public String reason() {
		return this.reason;
	}

	/**
	 * Returns the provider the request was routed to.
	 * @return the provider's name
	 */
	public String provider() {
		return this.provider;
	}

	/**
	 * Returns how many requests were sent.
	 * @return the attempts, {@code 0} when none was sent
	 */
	public int attempts() {
		return this.attempts;
	}

}
