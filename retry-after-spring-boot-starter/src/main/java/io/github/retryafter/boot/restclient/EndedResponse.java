package io.github.retryafter.boot.restclient;

import org.springframework.http.client.ClientHttpResponse;

import io.github.retryafter.boot.RetryAfterOutcomeException;

/**
 * The failed response an operation ended on, handed to the caller with how it ended, so that
 * {@link OutcomeStatusHandler} can attach that to the exception the client throws for it. Delegates everything
 * else.
 * Used by one thread at a time, like any {@link ClientHttpResponse}.
 */
final class EndedResponse extends DelegatingResponse {

	private final RetryAfterOutcomeException outcome;

	EndedResponse(ClientHttpResponse response, RetryAfterOutcomeException outcome) {
		super(response);
		this.outcome = outcome;
	}

	/** How the operation ended. */
	RetryAfterOutcomeException outcome() {
		return this.outcome;
	}

}
