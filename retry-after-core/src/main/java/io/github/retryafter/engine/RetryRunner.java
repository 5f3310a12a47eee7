package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

import io.github.retryafter.BodySource;
import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Sleeper;

/**
 * The blocking runner for plain Java callers: it drives a {@link RetryOperation} with any attempt function through
 * the one {@link RetryLoop}, waits between attempts with a {@link io.github.retryafter.Waiter} on the engine's ticker
 * and an injectable {@link Sleeper}, and returns a {@link Result} instead of throwing. It honours {@link Permit.Wait} (the provider's gate, with pacing on) the same way:
 * it waits, then asks again.
 * <p>
 * Each attempt is a call of an {@link Attempt} with an {@link AttemptContext} (attempt number, timeout, the
 * idempotency key to send): the function sends the request, enforcing the timeout itself, and returns the response; a
 * {@link ResponseAdapter} reads its status and headers and {@link ResponseAdapter#discard(Object, Duration) discards}
 * a failed response before the wait for its retry, never draining it past the instant the retry is due; every
 * response the caller does not get back is discarded, also when the engine or a listener throws. An exception is
 * mapped by a {@link FailureClassifier} to a {@link FailureKind}; an exception it does not recognise as an I/O failure
 * (a bug, a parse error) ends the operation with {@link Outcome#NOT_RETRYABLE} and is returned in the result. An operation cancelled during a wait sends no
 * further request and ends {@link Outcome#CANCELLED}; so does one whose thread is interrupted (the interrupt flag is
 * restored).
 * <p>
 * Immutable and thread-safe: one runner serves any number of threads, each running its own operations.
 */
public final class RetryRunner {

	private final RetryEngine engine;

	private final RetryLoop loop;

	private final FailureClassifier failureClassifier;

	private RetryRunner(RetryEngine engine, RetryLoop loop, FailureClassifier failureClassifier) {
		// the engine and the loop come from of() and this runner, which have used both already
		this.engine = engine;
		this.loop = loop;
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
		return new RetryRunner(engine, RetryLoop.of(engine.ticker(), Objects.requireNonNull(sleeper, "sleeper")),
				defaultFailureClassifier());
	}

	/**
	 * Returns a copy of this runner that maps exceptions with {@code failureClassifier}.
	 * @param failureClassifier the classifier
	 * @return a new runner
	 */
	public RetryRunner withFailureClassifier(FailureClassifier failureClassifier) {
		return new RetryRunner(this.engine, this.loop, failureClassifier);
	}

	/**
	 * Returns a classifier for a runner used as an outer loop around calls that retry by themselves (retry-after's
	 * clients, or another runner): an exception that carries the provider's instant ({@link NotBefore#find}: the
	 * inner layer gave up and named it) is a failure to retry, of kind {@link FailureKind#OUTCOME_UNKNOWN} (so an
	 * unsafe method without an idempotency key is still not repeated), and the runner waits no less than that instant,
	 * read as the delay-seconds it leaves (rounded up), with its own jitter, max wait and deadline as for a
	 * {@code Retry-After}. Any other exception goes to {@code fallback}.
	 * @param fallback the classifier for exceptions that carry no instant
	 * @return the classifier
	 */
	public static FailureClassifier outerLoop(FailureClassifier fallback) {
		Objects.requireNonNull(fallback, "fallback");
		return (failure) -> NotBefore.find(failure).isPresent() ? Optional.of(FailureKind.OUTCOME_UNKNOWN)
				: fallback.classify(failure);
	}

	/**
	 * Returns the classifier used unless another is given: {@link FailureKind#classify}, which walks the exception's
	 * causes.
	 * @return the default classifier
	 */
	public static FailureClassifier defaultFailureClassifier() {
		return FailureKind::classify;
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
	 * Runs one logical operation, blocking the calling thread while it waits between attempts. A response the engine
	 * retries is {@link ResponseAdapter#discard discarded} before the wait; if the engine then refuses the next
	 * attempt, the result carries that discarded response.
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
		return this.loop.run(operation, new Run<T>(operation, adapter, attempt, this.failureClassifier,
				this.engine.policy().idempotencyKeyHeader()));
	}

	/** One run's side of the loop: the caller's attempt and adapter, ending in a {@link Result}. */
	private record Run<T>(RetryOperation operation, ResponseAdapter<? super T> adapter, Attempt<? extends T> attempt,
			FailureClassifier failureClassifier,
			String idempotencyKeyHeader) implements RetryLoop.Exchange<T, Result<T>, RuntimeException> {

		@Override
		public T send(Permit.Proceed proceed) throws Exception {
			return this.attempt.call(new AttemptContext(this.operation.spec(), proceed.attempt(), proceed.timeout(),
					this.operation.idempotencyKey(), this.idempotencyKeyHeader, this.operation.cancellation(),
					proceed.attemptHeader()));
		}

		@Override
		public int status(T response) {
			return this.adapter.status(response);
		}

		@Override
		public HeaderSource headers(T response) {
			return this.adapter.headers(response);
		}

		@Override
		public BodySource body(T response) {
			return this.adapter.body(response);
		}

		@Override
		public void discard(T response) {
			this.adapter.discard(response);
		}

		@Override
		public void discard(T response, Duration drainWithin) {
			this.adapter.discard(response, drainWithin);
		}

		@Override
		public Optional<FailureKind> classify(Throwable failure) {
			return this.failureClassifier.classify(failure);
		}

		@Override
		public Result<T> end(Decision.Stop stop, T response, Throwable failure) {
			return Result.of(this.operation, stop, response, failure);
		}

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

		/**
		 * Returns the first bytes of a response's body, for a body hint field: an adapter gives a source only when
		 * the provider's fields read one for the response's status ({@link io.github.retryafter.HintFields#readsBodyOf}),
		 * and the source must leave the body whole for the caller (a peek, not a read). Read at most once, and only
		 * when the field is asked for.
		 * @param response the response
		 * @return the body's source; {@link BodySource#none()} by default
		 */
		default BodySource body(T response) {
			return BodySource.none();
		}

		/**
		 * Releases a failed response the runner retries, before it waits: by default closes it when it is
		 * {@link AutoCloseable} (what closing throws is ignored: the response is being dropped), so its connection
		 * is not held through the wait.
		 * @param response the response
		 */
		default void discard(T response) {
			if (response instanceof AutoCloseable closeable) {
				try {
					closeable.close();
				}
				catch (Exception ex) {
					// Dropped either way: a failed close of a failed response changes nothing the caller sees.
				}
			}
		}

		/**
		 * The discard hook: releases a failed response the runner retries, before it waits, knowing how long until
		 * that retry is due. An adapter that reads the rest of the body to keep its connection reusable reads it
		 * within {@link DrainBound#window(Duration) DrainBound.window(drainWithin)} (and no more than it can afford),
		 * and beyond that aborts the connection rather than return it to a pool; draining must never delay the retry.
		 * {@code drainWithin} is zero when the response is dropped because the engine, a listener or the end of the
		 * run threw: release it at once. By default calls {@link #discard(Object)}, which closes without draining.
		 * @param response the response
		 * @param drainWithin the time until the retry is due on the engine's ticker, never negative
		 */
		default void discard(T response, Duration drainWithin) {
			discard(response);
		}

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
	 * @param attemptHeader the header in which the provider reads the retries sent before this attempt, if it asks
	 * for one ({@link Permit.Proceed#attemptHeader()})
	 */
	public record AttemptContext(OperationSpec spec, int attempt, Duration timeout, Optional<String> idempotencyKey,
			String idempotencyKeyHeader, Cancellation cancellation, Optional<String> attemptHeader) {

		/**
		 * What one attempt is given, for a provider that asks for no attempt header.
		 * @param spec the operation
		 * @param attempt the attempt number, from 1
		 * @param timeout the time the attempt may take
		 * @param idempotencyKey the key to send, the same on every attempt
		 * @param idempotencyKeyHeader the header to send it in
		 * @param cancellation the operation's cancellation, to abandon a request in flight
		 */
		public AttemptContext(OperationSpec spec, int attempt, Duration timeout, Optional<String> idempotencyKey,
				String idempotencyKeyHeader, Cancellation cancellation) {
			this(spec, attempt, timeout, idempotencyKey, idempotencyKeyHeader, cancellation, Optional.empty());
		}

		/**
		 * Writes the request fields this attempt must carry, replacing any of the same name: the idempotency key in
		 * its header, and the provider's attempt header with the retries sent before this attempt.
		 * @param fields sets one request field, replacing its values
		 */
		public void writeFields(BiConsumer<String, String> fields) {
			this.idempotencyKey.ifPresent((key) -> fields.accept(this.idempotencyKeyHeader, key));
			this.attemptHeader.ifPresent((header) -> fields.accept(header, Integer.toString(this.attempt - 1)));
		}

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
	 * @param notBefore the instant the provider named, when the run ended without success and the provider named one
	 * still ahead: what an outer layer must not retry before ({@link NotBefore})
	 */
	public record Result<T>(Outcome outcome, String reason, Optional<T> response, Optional<Throwable> failure,
			int attempts, Duration totalWait, Optional<String> idempotencyKey, List<AttemptRecord> trace,
			Optional<NotBefore> notBefore) {

		/**
		 * Returns whether the operation succeeded.
		 * @return whether the outcome is {@link Outcome#SUCCESS}
		 */
		public boolean isSuccess() {
			return this.outcome == Outcome.SUCCESS;
		}

		/**
		 * Returns how {@code operation} ended, for adapters that end in a result.
		 * @param <T> the response type
		 * @param operation the operation, ended
		 * @param stop how it ended
		 * @param response the last response, or {@code null}
		 * @param failure the last attempt's exception, or {@code null}
		 * @return the result
		 */
		public static <T> Result<T> of(RetryOperation operation, Decision.Stop stop, T response, Throwable failure) {
			return new Result<>(stop.outcome(), stop.reason(), Optional.ofNullable(response),
					Optional.ofNullable(failure), operation.attempts(), operation.totalWait(),
					operation.idempotencyKey(), operation.trace(), operation.notBefore());
		}

	}

}
