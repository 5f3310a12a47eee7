package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response that hands every call to the client's own response, for the interceptor's wrappers to override what
 * they add ({@link GuardedResponse}: the attempt's bound on its body; {@link EndedResponse}: how the operation ended).
 * Used by one thread at a time, like any {@link ClientHttpResponse}.
 */
abstract class DelegatingResponse implements ClientHttpResponse {

	final ClientHttpResponse response;

	DelegatingResponse(ClientHttpResponse response) {
		this.response = response;
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
