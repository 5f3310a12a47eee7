package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;

/**
 * The blocking attempt loop, written once: {@code beforeAttempt} → wait → send → {@code afterAttempt} → release, for
 * a {@link RetryOperation} of any engine. A transport supplies an {@link Exchange}: how to send one attempt and read
 * what came back, plus hooks to discard a failed response it is retrying, to register for cancellation around a wait,
 * to classify an exception, and to turn the end into what its caller gets. {@link RetryRunner}, the Spring
 * RestClient interceptor and the JDK {@code HttpClient} adapter are such exchanges.
 * <p>
 * The loop, in order: asks {@link RetryOperation#beforeAttempt()}; on {@link Permit.Wait} waits on the
 * {@link Waiter} and asks again; on {@link Permit.Refused} ends with the last response (or what stands for it after
 * {@link Exchange#discard(Object, Duration)}) or the last exception. On {@link Permit.Proceed} it sends; an exception is classified
 * ({@link Exchange#classify}, by default {@link FailureKind#classify}), and one that is not an I/O failure ends the
 * operation {@link Outcome#NOT_RETRYABLE}. A response the engine retries is discarded before the wait (its connection
 * is not held while waiting), told how long until its retry is due so that draining its body never delays the retry;
 * one it stops on is handed back as it is. A response is discarded at once, with no time to drain, when the engine, a
 * listener or {@link Exchange#end} throws while holding it: no response is left unreleased on any path. A wait that
 * is cancelled returns to
 * {@code beforeAttempt()}, which refuses with {@link Outcome#CANCELLED}; an interrupt (during a wait, or thrown by the
 * attempt) cancels the operation, restores the interrupt flag and ends through {@link Exchange#interrupted}.
 * <p>
 * Allocates nothing of its own per attempt beyond the outcome the engine records. Immutable and thread-safe: one loop
 * serves any number of threads, each driving its own operation.
 */
public final class RetryLoop {

	private final Waiter waiter;

	private final Ticker ticker;

	private RetryLoop(Waiter waiter) {
		this.waiter = Objects.requireNonNull(waiter, "waiter");
		this.ticker = waiter.ticker();
	}

	/**
	 * Returns a loop that waits through {@code waiter} and stamps attempts on its ticker.
	 * @param waiter blocks until a retry is due, on the monotonic clock the engines' deadlines are on
	 * @return a new loop
	 */
	public static RetryLoop of(Waiter waiter) {
		return new RetryLoop(waiter);
	}

	/**
	 * Returns a loop on {@code ticker} that blocks through {@code sleeper} (a fake clock in tests).
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param sleeper how to block between attempts
	 * @return a new loop
	 */
	public static RetryLoop of(Ticker ticker, Sleeper sleeper) {
		return new RetryLoop(Waiter.of(ticker, sleeper));
	}

	/**
	 * Drives {@code operation} to its end, blocking the calling thread while it waits.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 * @param <X> what {@link Exchange#end} may throw
	 * @param operation a started operation that has sent nothing yet
	 * @param exchange the transport's side
	 * @return what {@link Exchange#end} or {@link Exchange#interrupted} made of the end
	 * @throws X as {@link Exchange#end} or {@link Exchange#interrupted} decides
	 */
	public <T, R, X extends Exception> R run(RetryOperation operation, Exchange<T, R, X> exchange) throws X {
		T response = null;
		Throwable failure = null;
		try {
			while (true) {
				Permit permit = operation.beforeAttempt();
				if (permit instanceof Permit.Proceed proceed) {
					long sentAt = this.ticker.read();
					T received;
					try {
						received = exchange.send(proceed);
					}
					catch (InterruptedException ex) {
						failure = ex;
						throw ex;
					}
					catch (Exception ex) {
						response = null;
						failure = ex;
						Decision decision = operation.afterFailure(ex, exchange.classify(ex), sentAt,
								this.ticker.read());
						if (decision instanceof Decision.Stop stop) {
							return exchange.end(stop, null, ex);
						}
						Decision.Retry retry = (Decision.Retry) decision;
						exchange.retryScheduled(retry);
						await(retry.notBeforeNanos(), operation, exchange);
						continue;
					}
					response = received;
					failure = null;
					Decision decision = decide(operation, exchange, received, sentAt);
					if (decision instanceof Decision.Stop stop) {
						return endWith(exchange, stop, received);
					}
					Decision.Retry retry = (Decision.Retry) decision;
					long notBefore = retry.notBeforeNanos();
					response = exchange.standIn(received);
					exchange.discard(received, untilDue(notBefore));
					exchange.retryScheduled(retry);
					await(notBefore, operation, exchange);
				}
				else if (permit instanceof Permit.Wait wait) {
					exchange.held(wait);
					await(wait.notBeforeNanos(), operation, exchange);
				}
				else {
					return exchange.end(((Permit.Refused) permit).stop(), response, failure);
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return exchange.interrupted(operation.cancel(), response, failure, ex);
		}
	}

	/** Hands a response to the engine; if the engine or a listener throws, the response is discarded first. */
	private <T> Decision decide(RetryOperation operation, Exchange<T, ?, ?> exchange, T received, long sentAt) {
		try {
			return operation.afterAttempt(new AttemptOutcome.Response(exchange.status(received),
					exchange.headers(received), sentAt, this.ticker.read()));
		}
		catch (RuntimeException | Error ex) {
			exchange.discard(received, Duration.ZERO);
			throw ex;
		}
	}

	/** Ends with a response the engine stopped on; if ending throws, the response is discarded first. */
	private <T, R, X extends Exception> R endWith(Exchange<T, R, X> exchange, Decision.Stop stop, T received)
			throws X {
		try {
			return exchange.end(stop, received, null);
		}
		catch (Throwable ex) {
			exchange.discard(received, Duration.ZERO);
			throw ex;
		}
	}

	/** The time from now until {@code notBeforeNanos} on the ticker, never negative. */
	private Duration untilDue(long notBeforeNanos) {
		return Duration.ofNanos(Math.max(0, notBeforeNanos - this.ticker.read()));
	}

	/** Waits on the operation's cancellation, asked for only here: an operation that never waits needs none. */
	private void await(long notBeforeNanos, RetryOperation operation, Exchange<?, ?, ?> exchange)
			throws InterruptedException {
		exchange.beforeWait();
		try {
			this.waiter.awaitDeadline(notBeforeNanos, operation.cancellation());
		}
		finally {
			exchange.afterWait();
		}
	}

	/**
	 * A transport's side of the loop: how to send one attempt, and what to do around it. Implementations are usually
	 * one object per operation (it may hold the request), used by one thread.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 * @param <X> what {@link #end} may throw
	 */
	public interface Exchange<T, R, X extends Exception> extends RetryRunner.ResponseAdapter<T> {

		/**
		 * Sends the request once, giving up after {@code proceed.timeout()}.
		 * @param proceed the attempt's number and timeout
		 * @return the response, whatever its status
		 * @throws Exception an I/O failure ({@link #classify classified}), an interrupt, or anything else (which
		 * ends the operation {@link Outcome#NOT_RETRYABLE})
		 */
		T send(Permit.Proceed proceed) throws Exception;

		/**
		 * Says what an exception thrown by {@link #send} means for the request's side effects.
		 * @param failure the exception
		 * @return the kind, or empty when it is not an I/O failure; {@link FailureKind#classify} by default
		 */
		default Optional<FailureKind> classify(Throwable failure) {
			return FailureKind.classify(failure);
		}

		/**
		 * Returns what stands for a failed response once it is {@link #discard(Object, Duration) discarded}, in case the engine then
		 * refuses the next attempt and the loop ends with it. Called just before {@link #discard(Object, Duration)}.
		 * @param response the failed response the engine retries
		 * @return what to end with instead: by default the response itself
		 */
		default T standIn(T response) {
			return response;
		}

		/**
		 * Called when the engine has scheduled a retry, before waiting for it (a tracing hook: the delay and where it
		 * came from). Does nothing by default.
		 * @param retry the engine's decision
		 */
		default void retryScheduled(Decision.Retry retry) {
		}

		/**
		 * Called when the provider's gate holds the next attempt, before waiting for it. Does nothing by default.
		 * @param wait until when, and why
		 */
		default void held(Permit.Wait wait) {
		}

		/**
		 * Called before every wait (between attempts, or for the provider's gate): register for cancellation here
		 * (shutdown, for example). Does nothing by default.
		 */
		default void beforeWait() {
		}

		/**
		 * Called after every wait, however it ended: undo {@link #beforeWait()} here. Does nothing by default.
		 */
		default void afterWait() {
		}

		/**
		 * Makes what the caller gets of the operation's end.
		 * @param stop how the operation ended, with its reason
		 * @param response the last response, or what {@link #standIn} made of it; {@code null} if none
		 * @param failure the last attempt's exception; {@code null} if it did not throw
		 * @return what the caller gets
		 * @throws X if the caller is to get an exception
		 */
		R end(Decision.Stop stop, T response, Throwable failure) throws X;

		/**
		 * Makes what the caller gets of an operation whose thread was interrupted: it has been cancelled and the
		 * interrupt flag restored. By default the same as {@link #end}.
		 * @param stop the cancellation's stop
		 * @param response the last response, or what {@link #standIn} made of it; {@code null} if none
		 * @param failure the last attempt's exception, or the interrupt if the attempt threw it; {@code null} if none
		 * @param interruption the interrupt
		 * @return what the caller gets
		 * @throws X if the caller is to get an exception
		 */
		default R interrupted(Decision.Stop stop, T response, Throwable failure, InterruptedException interruption)
				throws X {
			return end(stop, response, failure);
		}

	}

}
