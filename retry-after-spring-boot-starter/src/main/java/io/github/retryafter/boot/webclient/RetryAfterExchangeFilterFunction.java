package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.Objects;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Scheduler;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterOperations.Prepared;
import io.github.retryafter.boot.RetryAfterOperations.Started;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryOperation;

/**
 * A WebClient filter that retries the careful way: it asks the provider's engine after every attempt, waits without
 * blocking on an injectable {@link Scheduler}, re-arming against the deadline on the engine's {@link Ticker} (a timer
 * that fires early costs an extra delay, never an early retry), releases the body of every failed attempt, and gives
 * the caller the final response unchanged. When the provider's gate holds a request ({@link Permit.Wait}: the provider
 * is cooling down, or the request has a slot in its rate), it waits the same way, on the scheduler, and asks again:
 * no thread is held per waiting request.
 * <p>
 * Cancelling the subscriber during a wait ends the operation as {@code CANCELLED} and sends no further request. For
 * virtual-time tests, give it a {@code VirtualTimeScheduler} and a ticker reading that scheduler's clock.
 * Thread-safe.
 */
public final class RetryAfterExchangeFilterFunction implements ExchangeFilterFunction {

	private final RetryAfterOperations operations;

	private final Ticker ticker;

	private final Scheduler scheduler;

	/**
	 * Creates the filter.
	 * @param operations prepares the operation of each request
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param scheduler where waits and attempt timeouts are scheduled
	 */
	public RetryAfterExchangeFilterFunction(RetryAfterOperations operations, Ticker ticker, Scheduler scheduler) {
		this.operations = Objects.requireNonNull(operations, "operations");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		Prepared prepared = this.operations.prepare(request.method().name(), request.url(),
				request.headers()::getFirst, request.attributes(), 0);
		if (prepared.disabled()) {
			return next.exchange(request);
		}
		ClientRequest keyed = prepared.headerToAdd()
			.map(header -> ClientRequest.from(request).header(header.getKey(), header.getValue()).build())
			.orElse(request);
		return Mono.defer(() -> {
			Started started = this.operations.start(prepared);
			return new Run(started, keyed, next).attempt(null).doFinally((signal) -> {
				if (signal == SignalType.CANCEL) {
					started.operation().cancel();
				}
				started.end();
			});
		});
	}

	/**
	 * One logical operation in flight.
	 */
	private final class Run {

		private final RetryOperation operation;

		private final Started started;

		private final ClientRequest request;

		private final ExchangeFunction next;

		Run(Started started, ClientRequest request, ExchangeFunction next) {
			this.started = started;
			this.operation = started.operation();
			this.request = request;
			this.next = next;
		}

		/**
		 * Sends the next attempt.
		 * @param previous the status and headers of the previous failed response, returned (with an empty body) if
		 * the engine refuses this attempt: the original's body was released before the wait
		 */
		Mono<ClientResponse> attempt(FailedResponse previous) {
			Permit permit = this.operation.beforeAttempt();
			if (permit instanceof Permit.Refused refused) {
				return stopped(refused.stop(), (previous != null) ? previous.toResponse() : null, null);
			}
			if (permit instanceof Permit.Wait wait) {
				return waitUntil(wait.notBeforeNanos()).then(Mono.defer(() -> attempt(previous)));
			}
			Duration timeout = ((Permit.Proceed) permit).timeout();
			long sentAt = RetryAfterExchangeFilterFunction.this.ticker.read();
			return this.next.exchange(this.request)
				.timeout(timeout, RetryAfterExchangeFilterFunction.this.scheduler)
				.map(Result::response)
				.onErrorResume(ex -> Mono.just(Result.failure(ex)))
				.flatMap(result -> (result.response() != null) ? onResponse(result.response(), sentAt)
						: onFailure(result.failure(), sentAt));
		}

		private Mono<ClientResponse> onResponse(ClientResponse response, long sentAt) {
			long receivedAt = RetryAfterExchangeFilterFunction.this.ticker.read();
			HeaderSource headers = response.headers().asHttpHeaders()::getOrEmpty;
			Decision decision = this.operation
				.afterAttempt(new AttemptOutcome.Response(response.statusCode().value(), headers, sentAt, receivedAt));
			if (decision instanceof Decision.Retry retry) {
				FailedResponse failed = FailedResponse.of(response);
				return response.releaseBody()
					.then(waitUntil(retry.notBeforeNanos()))
					.then(Mono.defer(() -> attempt(failed)));
			}
			return stopped((Decision.Stop) decision, response, null);
		}

		private Mono<ClientResponse> onFailure(Throwable failure, long sentAt) {
			Decision decision = this.operation.afterFailure(failure, FailureKind.classify(failure), sentAt,
					RetryAfterExchangeFilterFunction.this.ticker.read());
			if (decision instanceof Decision.Retry retry) {
				return waitUntil(retry.notBeforeNanos()).then(Mono.defer(() -> attempt(null)));
			}
			return stopped((Decision.Stop) decision, null, failure);
		}

		private Mono<ClientResponse> stopped(Decision.Stop stop, ClientResponse response, Throwable failure) {
			this.started.report(stop);
			if (response != null) {
				return Mono.just(response);
			}
			if (failure != null) {
				failure.addSuppressed(this.started.outcomeException(stop));
				return Mono.error(failure);
			}
			return Mono.error(this.started.outcomeException(stop));
		}

		/**
		 * Completes once the ticker has reached {@code deadlineNanos}, re-arming if a timer fires early, or at once
		 * when the operation is cancelled (the next {@code beforeAttempt} then refuses). The cancellation callback
		 * lives as long as the wait: it is removed when the wait ends, however it ends.
		 */
		private Mono<Void> waitUntil(long deadlineNanos) {
			this.started.beforeWait();
			Cancellation cancellation = this.started.cancellation();
			Mono<Void> cancelled = Mono.create(sink -> {
				Runnable wake = sink::success;
				cancellation.onCancel(wake);
				sink.onDispose(() -> cancellation.removeCallback(wake));
			});
			return Mono.firstWithSignal(rearm(deadlineNanos), cancelled);
		}

		private Mono<Void> rearm(long deadlineNanos) {
			return Mono.defer(() -> {
				long remaining = deadlineNanos - RetryAfterExchangeFilterFunction.this.ticker.read();
				if (remaining <= 0) {
					return Mono.empty();
				}
				return Mono.delay(Duration.ofNanos(remaining), RetryAfterExchangeFilterFunction.this.scheduler)
					.then(rearm(deadlineNanos));
			});
		}

	}

	/**
	 * What is kept of a failed response while waiting: its status, headers and request, not its body.
	 */
	private record FailedResponse(org.springframework.http.HttpStatusCode status,
			org.springframework.http.HttpHeaders headers, org.springframework.http.HttpRequest request) {

		static FailedResponse of(ClientResponse response) {
			org.springframework.http.HttpHeaders headers = org.springframework.http.HttpHeaders
				.copyOf(response.headers().asHttpHeaders());
			headers.remove(org.springframework.http.HttpHeaders.CONTENT_LENGTH);
			headers.remove(org.springframework.http.HttpHeaders.TRANSFER_ENCODING);
			return new FailedResponse(response.statusCode(), headers, response.request());
		}

		ClientResponse toResponse() {
			return ClientResponse.create(this.status)
				.headers((target) -> target.addAll(this.headers))
				.request(this.request)
				.build();
		}

	}

	private record Result(ClientResponse response, Throwable failure) {

		static Result response(ClientResponse response) {
			return new Result(response, null);
		}

		static Result failure(Throwable failure) {
			return new Result(null, failure);
		}

	}

}
