package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.micrometer.observation.Observation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterOperations.Prepared;
import io.github.retryafter.boot.RetryAfterOperations.Started;
import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.StandInResponse;
import io.github.retryafter.boot.observation.RetryAfterObservations.AttemptObservation;
import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DrainBound;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryLoop;

/**
 * A RestClient interceptor that retries the careful way, through the core's one blocking loop ({@link RetryLoop}): it
 * asks the provider's engine after every attempt, waits through the core's {@link Waiter} (interruptible, re-armed
 * against the deadline on the monotonic clock, with an injectable sleeper), re-sends the same body bytes, closes every
 * failed response before waiting, and returns the final response unchanged. When the provider's gate holds a request
 * ({@link io.github.retryafter.engine.Permit.Wait}: the provider is cooling down, or the request has a slot in its
 * rate), it waits the same way, in the calling thread, and asks again. This class only says how to send one attempt
 * and what the caller gets at the end.
 * <p>
 * Every attempt is bounded by the time the engine gives it ({@code min(attempt-timeout, deadline left)}) from sending
 * it until its headers arrive, then, as a read timeout, each wait for the body's next bytes (so a streamed body is
 * never cut as a whole): at the bound a shared watchdog interrupts the thread waiting for headers and aborts a body
 * that stopped arriving, and the attempt ends with a {@link java.net.SocketTimeoutException} (the engine's
 * {@code TIMED_OUT}). A provider that keeps the client's own timeouts (a model profile) has its first attempt bounded
 * by the request factory's own timeouts alone, and a retry by what is left of the deadline. With the JDK {@code HttpClient} and Reactor Netty factories that ends the
 * operation within its deadline whatever the server does; Apache HttpClient 5 and {@code HttpURLConnection} cannot
 * be interrupted while waiting for headers, so there the factory's own read timeout
 * ({@code spring.http.clients.read-timeout}) bounds that wait. A failed response the engine retries has at most
 * {@code retry.after.max-drain} bytes of its body read, never past the instant its retry is due nor longer than
 * {@link DrainBound#MAX}; beyond that its connection is aborted, not pooled. Every response the caller
 * does not get is closed, also when the engine or a listener throws.
 * <p>
 * Interrupting the calling thread during a wait ends the operation as {@code CANCELLED}, sends no further request and
 * throws {@link InterruptedIOException} with the interrupt flag restored. Thread-safe.
 */
public final class RetryAfterClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final RetryAfterOperations operations;

	private final RetryLoop loop;

	private final Ticker ticker;

	/**
	 * Creates the interceptor.
	 * @param operations prepares the operation of each request
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param waiter blocks until a retry is due, reading {@code ticker}; attempts are stamped on the waiter's ticker
	 */
	public RetryAfterClientHttpRequestInterceptor(RetryAfterOperations operations, Ticker ticker, Waiter waiter) {
		this.operations = Objects.requireNonNull(operations, "operations");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.loop = RetryLoop.of(waiter);
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		Prepared prepared = this.operations.prepare(request.getMethod().name(), request.getURI(), request.getHeaders(),
				HttpHeaders::getFirst, request.getAttributes(), body.length);
		if (prepared.disabled()) {
			return execution.execute(request, body);
		}
		if (prepared.headerToAdd().isPresent()) {
			Map.Entry<String, String> header = prepared.headerToAdd().get();
			request.getHeaders().set(header.getKey(), header.getValue());
		}
		Started started = this.operations.start(prepared, request.getURI());
		// the operation is the current observation while it runs: its attempts nest in it, its logs carry it
		try (Observation.Scope scope = started.observation().observation().openScope()) {
			return this.loop.run(started.operation(), new Call(started, request, body, execution, this.ticker));
		}
		catch (StatusUnreadable ex) {
			throw ex.getCause();
		}
		finally {
			started.end();
		}
	}

	/**
	 * One request's side of the loop. Reading a response's status or status text may throw {@link IOException}; the
	 * status is read once in {@link #send} (a failure there is a failed attempt), and anything later is carried out
	 * of the loop unchecked and thrown as it was.
	 */
	private record Call(Started started, HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
			Ticker ticker) implements RetryLoop.Exchange<ClientHttpResponse, ClientHttpResponse, IOException> {

		/**
		 * Sends the request once under a guard armed for the attempt's time, observed from sending until its status
		 * is read; the response keeps the guard until it is read or closed.
		 */
		@Override
		public ClientHttpResponse send(Permit.Proceed proceed) throws IOException {
			OperationObservation operation = this.started.observation();
			// without an observation there are no trace headers to write: no writer is made for them
			AttemptObservation observation = operation.isObserved()
					? operation.attempt(proceed.attempt(), this.request.getHeaders()::set) : AttemptObservation.none();
			try {
				ClientHttpResponse response = guarded(proceed);
				observation.response(response.getStatusCode().value());
				return response;
			}
			catch (IOException | RuntimeException ex) {
				observation.failure(ex);
				throw ex;
			}
		}

		private ClientHttpResponse guarded(Permit.Proceed proceed) throws IOException {
			if (proceed.hasFields()) {
				proceed.writeFields(this.request.getHeaders()::set);
			}
			AttemptGuard guard = AttemptGuard.armEntered(proceed.attempt(), proceed.bound().orElse(null));
			GuardedResponse response;
			try {
				response = new GuardedResponse(this.execution.execute(this.request, this.body), guard);
			}
			catch (IOException | RuntimeException ex) {
				guard.exit();
				guard.disarm();
				if (guard.fired()) {
					throw guard.timedOut(ex);
				}
				throw ex;
			}
			catch (Error ex) {
				guard.exit();
				throw ex;
			}
			// left the guard and handed it the response under one lock
			if (!guard.exitAttaching(response)) {
				response.discard(Duration.ZERO, 0);
				throw guard.timedOut(null);
			}
			try {
				response.getStatusCode();
			}
			catch (IOException | RuntimeException ex) {
				response.discard(Duration.ZERO, 0);
				throw ex;
			}
			return response;
		}

		@Override
		public int status(ClientHttpResponse response) {
			try {
				return response.getStatusCode().value();
			}
			catch (IOException ex) {
				throw new StatusUnreadable(ex);
			}
		}

		@Override
		public HeaderSource headers(ClientHttpResponse response) {
			return (response instanceof GuardedResponse guarded) ? guarded : response.getHeaders()::getOrEmpty;
		}

		@Override
		public ClientHttpResponse standIn(ClientHttpResponse response) {
			try {
				return StandInResponse.of(response.getStatusCode(), response.getStatusText(), response.getHeaders(),
						null);
			}
			catch (IOException ex) {
				response.close();
				throw new StatusUnreadable(ex);
			}
		}

		@Override
		public void discard(ClientHttpResponse response) {
			discard(response, Duration.ZERO);
		}

		@Override
		public void discard(ClientHttpResponse response, Duration drainWithin) {
			if (response instanceof GuardedResponse guarded) {
				guarded.discard(DrainBound.window(drainWithin),
						this.started.prepared().provider().settings().maxDrainBytes());
			}
			else {
				response.close();
			}
		}

		@Override
		public void retryScheduled(Decision.Retry retry) {
			this.started.retryScheduled(retry);
		}

		@Override
		public void held(Permit.Wait wait) {
			this.started.held(wait, this.ticker.read());
		}

		@Override
		public void beforeWait() {
			this.started.beforeWait();
		}

		@Override
		public ClientHttpResponse end(Decision.Stop stop, ClientHttpResponse response, Throwable failure)
				throws IOException {
			this.started.report(stop);
			if (response != null) {
				Optional<RetryAfterOutcomeException> outcome = this.started.endedOn(stop);
				return outcome.isPresent() ? new EndedResponse(response, outcome.get()) : response;
			}
			Throwable thrown = this.started.endedWithout(stop, failure);
			if (thrown instanceof IOException io) {
				throw io;
			}
			// the outcome's exception is an IOException, and send() throws nothing else checked
			throw (RuntimeException) thrown;
		}

		@Override
		public ClientHttpResponse interrupted(Decision.Stop stop, ClientHttpResponse response, Throwable failure,
				InterruptedException interruption) throws InterruptedIOException {
			InterruptedIOException interrupted = new InterruptedIOException(
					"interrupted while waiting to retry; no further request was sent");
			interrupted.initCause(interruption);
			throw interrupted;
		}

	}

	/**
	 * Carries an {@link IOException} from reading a response's status line out of the loop, to be thrown as it was.
	 */
	private static final class StatusUnreadable extends UncheckedIOException {

		StatusUnreadable(IOException cause) {
			super(cause);
		}

	}

}
