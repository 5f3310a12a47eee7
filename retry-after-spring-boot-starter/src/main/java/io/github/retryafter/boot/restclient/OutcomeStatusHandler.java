package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.web.client.DefaultResponseErrorHandler;
import org.springframework.web.client.RestClientResponseException;

import io.github.retryafter.boot.RetryAfterOutcomeException;

/**
 * The last default status handler of every {@code RestClient} built under {@link HandOverRestClientBuilder}, for the
 * failed responses retry-after ends an operation on (attempts exhausted, a wait too long, a budget refusal...) that no
 * handler before it matched: it throws the exception Spring's default handling throws for the status
 * ({@code HttpClientErrorException.TooManyRequests} for a {@code 429}, with the body readable by
 * {@code getResponseBodyAs}), carrying the operation's {@link RetryAfterOutcomeException} as a suppressed exception,
 * so that whoever catches it can read the outcome and the instant the provider named
 * ({@link io.github.retryafter.engine.NotBefore#find(Throwable)}). Every other response is left to Spring's default
 * handling. Thread-safe.
 */
public final class OutcomeStatusHandler extends DefaultResponseErrorHandler {

	/**
	 * Creates a handler that decodes error bodies with Spring's default client converters.
	 */
	public OutcomeStatusHandler() {
		List<HttpMessageConverter<?>> converters = new ArrayList<>();
		HttpMessageConverters.forClient().registerDefaults().build().forEach(converters::add);
		setMessageConverters(converters);
	}

	@Override
	public boolean hasError(ClientHttpResponse response) throws IOException {
		return response instanceof EndedResponse && super.hasError(response);
	}

	@Override
	public void handleError(URI url, HttpMethod method, ClientHttpResponse response) throws IOException {
		try {
			super.handleError(url, method, response);
		}
		catch (RestClientResponseException ex) {
			ex.addSuppressed(((EndedResponse) response).outcome());
			throw ex;
		}
	}

}
