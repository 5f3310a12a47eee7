package io.github.retryafter.boot.restclient;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Objects;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterOperations.Prepared;
import io.github.retryafter.boot.RetryAfterOperations.Started;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryOperation;

/**
 * A RestClient interceptor that retries the careful way: it asks the provider's engine after every attempt, waits
 * through the core's {@link Waiter} (interruptible, re-armed against the deadline on the monotonic clock, with an
 * injectable sleeper), re-sends the same body bytes, closes every failed response, and returns the final response
 * unchanged. When the provider's gate holds a request ({@link Permit.Wait}: the provider is cooling down, or the request
 * has a slot in its rate), it waits the same way, in the calling thread, and asks again.
 * <p>
 * Interrupting the calling thread during a wait ends the operation as {@code CANCELLED}, sends no further request and
 * throws {@link InterruptedIOException} with the interrupt flag restored. Thread-safe.
 */
public final class RetryAfterClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final RetryAfterOperations operations;

	private final Ticker ticker;

	private final Waiter waiter;

	/**
	 * Creates the interceptor.
	 * @param operations prepares the operation of each request
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param waiter blocks until a retry is due
	 */
	public RetryAfterClientHttpRequestInterceptor(RetryAfterOperations operations, Ticker ticker, Waiter waiter) {
		this.operations = Objects.requireNonNull(operations, "operations");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.waiter = Objects.requireNonNull(waiter, "waiter");
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		Prepared prepared = this.operations.prepare(request.getMethod().name(), request.getURI(),
				request.getHeaders()::getFirst, request.getAttributes(), body.length);
		if (prepared.disabled()) {
			return execution.execute(request, body);
		}
		prepared.headerToAdd().ifPresent(header -> request.getHeaders().set(header.getKey(), header.getValue()));
		Started started = this.operations.start(prepared);
		try {
			return run(started, request, body, execution);
		}
		finally {
			started.end();
		}
	}

	private ClientHttpResponse run(Started started, HttpRequest request, byte[] body,
			ClientHttpRequestExecution execution) throws IOException {
		RetryOperation operation = started.operation();
		ClientHttpResponse previous = null;
		while (true) {
			Permit permit = operation.beforeAttempt();
			if (permit instanceof Permit.Refused refused) {
				return stopped(started, refused.stop(), previous);
			}
			if (permit instanceof Permit.Wait wait) {
				await(operation, wait.notBeforeNanos(), started);
				continue;
			}
			long sentAt = this.ticker.read();
			ClientHttpResponse response;
			try {
				response = execution.execute(request, body);
			}
			catch (IOException | RuntimeException ex) {
				Decision decision = started.afterFailure(ex, sentAt, this.ticker.read());
				if (decision instanceof Decision.Stop stop) {
					started.report(stop);
					ex.addSuppressed(started.outcomeException(stop));
					throw ex;
				}
				previous = null;
				await(operation, ((Decision.Retry) decision).notBeforeNanos(), started);
				continue;
			}
			long receivedAt = this.ticker.read();
			HttpHeaders headers = response.getHeaders();
			Decision decision = operation.afterAttempt(
					new AttemptOutcome.Response(response.getStatusCode().value(), headers::getOrEmpty, sentAt, receivedAt));
			if (decision instanceof Decision.Stop stop) {
				started.report(stop);
				return response;
			}
			previous = new HeadersOnlyResponse(response.getStatusCode(), response.getStatusText(), headers);
			response.close();
			await(operation, ((Decision.Retry) decision).notBeforeNanos(), started);
		}
	}

	private void await(RetryOperation operation, long notBeforeNanos, Started started) throws InterruptedIOException {
		started.beforeWait();
		try {
			this.waiter.awaitDeadline(notBeforeNanos, started.cancellation());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			operation.cancel();
			InterruptedIOException interrupted = new InterruptedIOException(
					"interrupted while waiting to retry; no further request was sent");
			interrupted.initCause(ex);
			throw interrupted;
		}
	}

	private ClientHttpResponse stopped(Started started, Decision.Stop stop, ClientHttpResponse previous)
			throws IOException {
		started.report(stop);
		if (previous != null) {
			return previous;
		}
		throw started.outcomeException(stop);
	}

	/**
	 * The status and headers of a failed response whose body was released while waiting, returned if the engine
	 * refuses the next attempt after the wait (for instance when the budget ran dry meanwhile).
	 */
	private static final class HeadersOnlyResponse implements ClientHttpResponse {

		private final HttpStatusCode status;

		private final String statusText;

		private final HttpHeaders headers;

		HeadersOnlyResponse(HttpStatusCode status, String statusText, HttpHeaders headers) {
			this.status = status;
			this.statusText = statusText;
			HttpHeaders copy = HttpHeaders.copyOf(headers);
			copy.remove(HttpHeaders.CONTENT_LENGTH);
			copy.remove(HttpHeaders.TRANSFER_ENCODING);
			this.headers = HttpHeaders.readOnlyHttpHeaders(copy);
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return this.status;
		}

		@Override
		public String getStatusText() {
			return this.statusText;
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(new byte[0]);
		}

		@Override
		public void close() {
		}

	}

}
