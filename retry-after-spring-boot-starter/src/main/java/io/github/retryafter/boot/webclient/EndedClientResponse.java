package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.reactive.function.client.support.ClientResponseWrapper;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.StandInResponse;

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

	/**
	 * Bounds the body of a failed response an operation ends on: a server that sends its headers and then nothing
	 * cannot hold the caller past {@code endNanos}. A body still arriving then fails with a {@link TimeoutException}
	 * and its connection is closed.
	 * @param response the failed response
	 * @param endNanos when its body must have arrived, on {@code ticker}
	 * @param ticker the engine's monotonic clock
	 * @param scheduler where the bound is scheduled
	 * @return the response with its body bounded
	 */
	static ClientResponse bounded(ClientResponse response, long endNanos, Ticker ticker, Scheduler scheduler) {
		Mono<Long> end = Mono.defer(
				() -> Mono.delay(Duration.ofNanos(Math.max(0, endNanos - ticker.read())), scheduler));
		return response.mutate()
			.body((body) -> body.timeout(end, (buffer) -> end)
				.onErrorMap(TimeoutException.class, (ex) -> new TimeoutException("the body of the failed response "
						+ "the operation ended on did not arrive within the operation's deadline")))
			.build();
	}

	/**
	 * The stand-in of a failed response as the WebClient's caller gets it: its status and headers, no body.
	 * @param standIn what was kept of the failed response before its body was released
	 * @return the response
	 */
	static ClientResponse of(StandInResponse standIn) {
		return ClientResponse.create(standIn.getStatusCode())
			.headers((target) -> target.addAll(standIn.getHeaders()))
			.request(standIn.getRequest())
			.build();
	}

}
