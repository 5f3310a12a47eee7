package io.github.retryafter.boot.webclient;

import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.reactive.function.client.support.ClientResponseWrapper;

import io.github.retryafter.boot.RetryAfterOutcomeException;

/**
 * The failed response an operation ended on, handed to the caller with how it ended: the exception it creates (what
 * {@code retrieve()} signals for an error status, and what an {@code onStatus} handler gets from
 * {@link #createException()}) carries the operation's {@link RetryAfterOutcomeException} as a suppressed exception,
 * so that whoever catches it can read the outcome and the instant the provider named
 * ({@link io.github.retryafter.engine.NotBefore#find(Throwable)}). Everything else is the response's own.
 */
final class EndedClientResponse extends ClientResponseWrapper {

	private final RetryAfterOutcomeException outcome;

	EndedClientResponse(ClientResponse response, RetryAfterOutcomeException outcome) {
		super(response);
		this.outcome = outcome;
	}

	@Override
	public Mono<WebClientResponseException> createException() {
		return super.createException().map((ex) -> {
			ex.addSuppressed(this.outcome);
			return ex;
		});
	}

	@Override
	public <T> Mono<T> createError() {
		return createException().flatMap(Mono::error);
	}

}
