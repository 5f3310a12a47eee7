package io.github.retryafter.engine;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Waiter;

/**
 * The blocking runner for plain Java callers: it drives a {@link RetryOperation} with any attempt function, waits
 * between attempts with a {@link Waiter} on the engine's ticker and an injectable {@link Sleeper}, and returns a
 * {@link Result} instead of throwing. It honours {@link Permit.Wait} (the provider's gate, with pacing on) the same way:
 * it waits, then asks again.
 * <p>
 * Each attempt is a call of an {@link Attempt} with an {@link AttemptContext} (attempt number, timeout, the
 * idempotency key to send): the function sends the request, enforcing the timeout itself, and returns the response; a
 * {@link ResponseAdapter} reads its status and headers. An exception is mapped by a {@link FailureClassifier} to a
 * {@link FailureKind}; an exception it does not recognise as an I/O failure (a bug, a parse error) ends the operation
 * with {@link Outcome#NOT_RETRYABLE} and is returned in the result. An operation cancelled during a wait sends no
 * further request and ends {@link Outcome#CANCELLED}; so does one whose thread is interrupted (the interrupt flag is
 * restored).
 * <p>
 * Immutable and thread-safe: one runner serves any number of threads, each running its own operations.
 */
public final class RetryRunner {

	private final RetryEngine engine;

	private final Waiter waiter;

	private final FailureClassifier failureClassifier;

	private RetryRunner(RetryEngine engine, Waiter waiter, FailureClassifier failureClassifier) {
		this.engine = Objects.requireNonNull(engine, "engine");
		this.waiter = Objects.requireNonNull(waiter, "waiter");
		this.failureClassifier = Objects.requireNonNull(failureClassifier, "failureClassifier");
	}

	/**
	 * Returns a runner that really sleeps, with the default failure classifier.
	 * @param engine the engine
	 * @return a new runner
	 */
	public static RetryRunner of(RetryEngine engine) {
		return of(engine, Sleeper.system());
	}

	/**
	 * Returns a runner that sleeps through {@code sleeper} (a fake clock in tests), with the default failure classifier.
	 * @param engine the engine
	 * @param sleeper how to block between attempts
	 * @return a new runner
	 */
	public static RetryRunner of(RetryEngine engine, Sleeper sleeper) {
		return new RetryRunner(engine, Waiter.of(engine.ticker(), Objects.requireNonNull(sleeper, "sleeper")),
				defaultFailureClassifier());
	}

	/**
	 * Returns a copy of this runner that maps exceptions with {@code failureClassifier}.
	 * @param failureClassifier the classifier
	 * @return a new runner
	 */
	public RetryRunner withFailureClassifier(FailureClassifier failureClassifier) {
		return new RetryRunner(this.engine, this.waiter, failureClassifier);
	}

	/**
	 * Returns the classifier used unless another is given: {@link ConnectException}, {@link UnknownHostException},
	 * {@link NoRouteToHostException} and {@link HttpConnectTimeoutException} were {@link FailureKind#NOT_SENT not
	 * sent}; {@link SocketTimeoutException}, {@link HttpTimeoutException} and {@link TimeoutException}
	 * {@link FailureKind#TIMED_OUT timed out}; any other {@link IOException} has an
	 * {@link FailureKind#OUTCOME_UNKNOWN unknown outcome}; anything else is not an I/O failure.
	 * @return the default classifier
	 */
	public static FailureClassifier defaultFailureClassifier() {
		return (failure) -> {
			if (failure instanceof ConnectException || failure instanceof UnknownHostException
					|| failure instanceof NoRouteToHostException || failure instanceof HttpConnectTimeoutException) {
				return Optional.of(FailureKind.NOT_SENT);
			}
			if (failure instanceof SocketTimeoutException || failure instanceof HttpTimeoutException
					|| failure instanceof TimeoutException) {
				return Optional.of(FailureKind.TIMED_OUT);
			}
			if (failure instanceof IOException) {
				return Optional.of(FailureKind.OUTCOME_UNKNOWN);
			}
			return Optional.empty();
		};
	}

	/**
	 * Runs one logical operation that nobody cancels.
	 * @param <T> the response type
	 * @param spec the operation
	 * @param adapter reads a response's status and headers
	 * @param attempt sends one attempt
	 * @return how the operation ended, with the last response or exception
	 */
	public <T> Result<T> run(OperationSpec spec, ResponseAdapter<? super T> adapter, Attempt<? extends T> attempt) {
		return run(spec, Cancellation.never(), adapter, attempt);
	}

	/**
	 * Runs one logical operation, blocking the calling thread while it waits between attempts.
	 * @param <T> the response type
	 * @param spec the operation
	 * @param cancellation cancels the operation from any thread; a wait in progress ends at once
	 * @param adapter reads a response's status and headers
	 * @param attempt sends one attempt
	 * @return how the operation ended, with the last response or exception
	 */
	public <T> Result<T> run(OperationSpec spec, Cancellation cancellation, ResponseAdapter<? super T> adapter,
			Attempt<? extends T> attempt) {
		Objects.requireNonNull(adapter, "adapter");
		Objects.requireNonNull(attempt, "attempt");
		RetryOperation operation = this.engine.start(spec, cancellation);
		T response = null;
		Throwable failure = null;
		while (true) {
			Permit permit = operation.beforeAttempt();
			if (permit instanceof Permit.Refused refused) {
				return result(operation, refused.stop(), response, failure);
			}
			if (permit instanceof Permit.Wait wait) {
				if (!await(wait.notBeforeNanos(), cancellation)) {
					return result(operation, operation.cancel(), response, failure);
				}
				continue;
			}
			Permit.Proceed proceed = (Permit.Proceed) permit;
			AttemptContext context = new AttemptContext(spec, proceed.attempt(), proceed.timeout(),
					operation.idempotencyKey(), this.engine.policy().idempotencyKeyHeader(), cancellation);
			long sent = this.engine.ticker().read();
			AttemptOutcome outcome;
			try {
				T value = attempt.call(context);
				response = value;
				failure = null;
				outcome = new AttemptOutcome.Response(adapter.status(value), adapter.headers(value), sent,
						this.engine.ticker().read());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return result(operation, operation.cancel(), response, ex);
			}
			catch (Exception ex) {
				failure = ex;
				response = null;
				Optional<FailureKind> kind = this.failureClassifier.classify(ex);
				if (kind.isEmpty()) {
					return result(operation, operation.stop(Outcome.NOT_RETRYABLE,
							"attempt " + proceed.attempt() + " threw " + ex + ", which is not an I/O failure"), null, ex);
				}
				outcome = new AttemptOutcome.Failure(kind.get(), ex, sent, this.engine.ticker().read());
			}
			Decision decision = operation.afterAttempt(outcome);
			if (decision instanceof Decision.Stop stop) {
				return result(operation, stop, response, failure);
			}
			Decision.Retry retry = (Decision.Retry) decision;
			if (!await(retry.notBeforeNanos(), cancellation)) {
				return result(operation, operation.cancel(), response, failure);
			}
		}
	}

	/** Waits on the engine's ticker; {@code false} when cancelled or interrupted (the flag is restored). */
	private boolean await(long deadlineNanos, Cancellation cancellation) {
		try {
			return this.waiter.awaitDeadline(deadlineNanos, cancellation);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static <T> Result<T> result(RetryOperation operation, Decision.Stop stop, T response, Throwable failure) {
		return new Result<>(stop.outcome(), stop.reason(), Optional.ofNullable(response), Optional.ofNullable(failure),
				operation.attempts(), operation.totalWait(), operation.idempotencyKey(), operation.trace());
	}

	/**
	 * Sends one attempt.
	 * @param <T> the response type
	 */
	@FunctionalInterface
	public interface Attempt<T> {

		/**
		 * Sends the request once, giving up after {@code context.timeout()}, carrying {@code context.idempotencyKey()}
		 * (when present) in the {@code context.idempotencyKeyHeader()} header.
		 * @param context the attempt's number, timeout and key
		 * @return the response, whatever its status
		 * @throws Exception an I/O failure (mapped by the runner's {@link FailureClassifier}) or anything else
		 */
		T call(AttemptContext context) throws Exception;

	}

	/**
	 * Reads what the engine needs from a response. Must be thread-safe if the runner is shared.
	 * @param <T> the response type
	 */
	public interface ResponseAdapter<T> {

		/**
		 * Returns the response's status code.
		 * @param response the response
		 * @return the status
		 */
		int status(T response);

		/**
		 * Returns the response's header fields.
		 * @param response the response
		 * @return the fields
		 */
		HeaderSource headers(T response);

	}

	/**
	 * Says what an exception thrown by an attempt means for the request's side effects. Must be thread-safe.
	 */
	@FunctionalInterface
	public interface FailureClassifier {

		/**
		 * Classifies an exception.
		 * @param failure what the attempt threw
		 * @return the failure kind, or empty if it is not an I/O failure (the operation then stops)
		 */
		Optional<FailureKind> classify(Throwable failure);

	}

	/**
	 * What one attempt is given.
	 *
	 * @param spec the operation
	 * @param attempt the attempt number, from 1
	 * @param timeout the time the attempt may take
	 * @param idempotencyKey the key to send, the same on every attempt
	 * @param idempotencyKeyHeader the header to send it in
	 * @param cancellation the operation's cancellation, to abandon a request in flight
	 */
	public record AttemptContext(OperationSpec spec, int attempt, Duration timeout, Optional<String> idempotencyKey,
			String idempotencyKeyHeader, Cancellation cancellation) {
	}

	/**
	 * How a run ended. Immutable.
	 *
	 * @param <T> the response type
	 * @param outcome how the operation ended
	 * @param reason a sentence saying why, with the numbers
	 * @param response the last attempt's response, if it produced one
	 * @param failure the last attempt's exception, if it threw
	 * @param attempts how many requests were sent
	 * @param totalWait the waiting planned between attempts
	 * @param idempotencyKey the key every attempt carried
	 * @param trace every attempt, in order
	 */
	public record Result<T>(Outcome outcome, String reason, Optional<T> response, Optional<Throwable> failure,
			int attempts, Duration totalWait, Optional<String> idempotencyKey, List<AttemptRecord> trace) {

		/**
		 * Returns whether the operation succeeded.
		 * @return whether the outcome is {@link Outcome#SUCCESS}
		 */
		public boolean isSuccess() {
			return this.outcome == Outcome.SUCCESS;
		}

	}

}
