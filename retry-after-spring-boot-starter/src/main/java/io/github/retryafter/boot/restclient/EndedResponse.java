package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

import io.github.retryafter.boot.RetryAfterOutcomeException;

/**
 * The failed response an operation ended on, handed to the caller with how it ended, so that
 * {@link OutcomeStatusHandler} can attach that to the exception the client throws for it. Delegates everything else.
 * Used by one thread at a time, like any {@link ClientHttpResponse}.
 */
final class EndedResponse implements ClientHttpResponse {

	private final ClientHttpResponse response;

	private final RetryAfterOutcomeException outcome;

	EndedResponse(ClientHttpResponse response, RetryAfterOutcomeException outcome) {
		this.response = response;
		this.outcome = outcome;
	}

	/** How the operation ended. */
	RetryAfterOutcomeException outcome() {
		return this.outcome;
	}

	@Override
	public HttpStatusCode getStatusCode() throws IOException {
		return this.response.getStatusCode();
	}

	@Override
	public String getStatusText() throws IOException {
		return this.response.getStatusText();
	}

	@Override
	public HttpHeaders getHeaders() {
		return this.response.getHeaders();
	}

	@Override
	public InputStream getBody() throws IOException {
		return this.response.getBody();
	}

	@Override
	public void close() {
		this.response.close();
	}

}
