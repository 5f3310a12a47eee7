package io.github.retryafter.okhttp;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

import okhttp3.Response;

import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.Ending;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;

/**
 * Says how a retried call ended when it ended without a response to return: attached as a suppressed exception to the
 * last attempt's own {@link IOException} (which reaches the caller unchanged), or thrown by itself when no attempt
 * was sent (the deadline had passed, or the call was cancelled before its first attempt). An {@link IOException}, so
 * that {@code Call.execute()} and {@code Callback.onFailure} carry it. When the call ended on a failed response
 * instead (OkHttp hands back a {@code 429} as a response, not an exception), the response's request carries it as a
 * tag ({@link #of(Response)}). It carries the instant the provider named ({@link #notBefore()}), for an outer retry
 * layer. Immutable.
 */
public final class RetryOutcomeException extends IOException implements NotBefore.Carrier {

	private static final long serialVersionUID = 1L;

	/** How the operation ended. */
	private final Outcome outcome;

	/** Why, with the numbers. */
	private final String reason;

	/** The provider the request was routed to. */
	private final String provider;

	/** How many requests were sent. */
	private final int attempts;

	/** The instant the provider named, or {@code null}. */
	private final transient NotBefore notBefore;

	/**
	 * Creates the exception.
	 * @param stop how the operation ended, and why
	 * @param provider the provider the request was routed to
	 * @param attempts how many requests were sent
	 */
	public RetryOutcomeException(Decision.Stop stop, String provider, int attempts) {
		this(stop, provider, attempts, Optional.empty());
	}

	/**
	 * Creates the exception, with the instant the provider named.
	 * @param stop how the operation ended, and why
	 * @param provider the provider the request was routed to
	 * @param attempts how many requests were sent
	 * @param notBefore the instant the provider named, which an outer retry layer must not retry before
	 */
	public RetryOutcomeException(Decision.Stop stop, String provider, int attempts, Optional<NotBefore> notBefore) {
		super(Ending.describe(provider, stop.outcome(), attempts, stop.reason(), notBefore));
		this.outcome = stop.outcome();
		this.reason = stop.reason();
		this.provider = Objects.requireNonNull(provider, "provider");
		this.attempts = attempts;
		this.notBefore = notBefore.orElse(null);
	}

	/**
	 * Returns how the call ended when retry-after gave up on a failed response and handed that response back (OkHttp
	 * does not throw for a status): carried as a tag of the response's request.
	 * @param response a response returned through {@link RetryAfterInterceptor}
	 * @return the outcome, empty after a success or a plain failed first response that was not retryable
	 */
	public static Optional<RetryOutcomeException> of(Response response) {
		return Optional.ofNullable(response.request().tag(RetryOutcomeException.class));
	}

	/**
	 * Returns the instant the provider named, which an outer retry layer must not retry before.
	 * @return the instant, empty when the provider named none still ahead
	 */
	@Override
	public Optional<NotBefore> notBefore() {
		return Optional.ofNullable(this.notBefore);
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
