package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

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
 * An adapter may ask for the first permit, send the first attempt and report it itself, so that a call the engine
 * stops on at once needs no exchange, and hand the operation to the loop where it goes on
 * ({@link #resume(RetryOperation, Exchange, Permit) from a permit}, or
 * {@link #resume(RetryOperation, Exchange, Decision, Object, Throwable) from a decision}): the loop is the same.
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
		return drive(operation, exchange, operation.beforeAttempt(), null, null, null);
	}

	/**
	 * Drives {@code operation} on from the permit its first {@link RetryOperation#beforeAttempt()} answered, which the
	 * caller asked for itself and did not send on: the fast path of an adapter that makes no exchange for a call its
	 * engine lets through and stops on at once, and hands the rest to the loop. A {@link Permit.Wait} is waited out
	 * and the operation asked again; a {@link Permit.Refused} ends it; a {@link Permit.Proceed} is sent.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 * @param <X> what {@link Exchange#end} may throw
	 * @param operation a started operation that has sent nothing yet
	 * @param exchange the transport's side
	 * @param permit what {@code operation.beforeAttempt()} answered
	 * @return what {@link Exchange#end} or {@link Exchange#interrupted} made of the end
	 * @throws X as {@link Exchange#end} or {@link Exchange#interrupted} decides
	 */
	public <T, R, X extends Exception> R resume(RetryOperation operation, Exchange<T, R, X> exchange, Permit permit)
			throws X {
		return drive(operation, exchange, Objects.requireNonNull(permit, "permit"), null, null, null);
	}

	/**
	 * Drives {@code operation} on from an attempt the caller sent and reported itself (the same fast path), given what
	 * the engine decided on it: a retry is waited out as the loop's own are (the response is
	 * {@link Exchange#standIn stood in for} and {@link Exchange#discard(Object, Duration) discarded} first, the
	 * failure kept for the end), and a stop ends the operation through {@link Exchange#end}.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 * @param <X> what {@link Exchange#end} may throw
	 * @param operation the operation, with the attempt reported ({@link RetryOperation#afterAttempt} or
	 * {@link RetryOperation#afterFailure})
	 * @param exchange the transport's side, which now owns {@code response}
	 * @param decision what the operation answered
	 * @param response the attempt's response; {@code null} if it threw
	 * @param failure what the attempt threw; {@code null} if it returned a response
	 * @return what {@link Exchange#end} or {@link Exchange#interrupted} made of the end
	 * @throws X as {@link Exchange#end} or {@link Exchange#interrupted} decides
	 * @throws IllegalArgumentException unless exactly one of {@code response} and {@code failure} is given
	 */
	public <T, R, X extends Exception> R resume(RetryOperation operation, Exchange<T, R, X> exchange,
			Decision decision, T response, Throwable failure) throws X {
		Objects.requireNonNull(decision, "decision");
		if ((response == null) == (failure == null)) {
			throw new IllegalArgumentException("give the attempt's response or its failure, not both and not neither");
		}
		return drive(operation, exchange, null, decision, response, failure);
	}

	/**
	 * The loop: from a permit not yet acted on, or from the decision on the attempt that returned {@code response} or
	 * threw {@code failure}; both kept, as what ends the operation, until the next attempt replaces them.
	 */
	private <T, R, X extends Exception> R drive(RetryOperation operation, Exchange<T, R, X> exchange, Permit next,
			Decision decided, T response, Throwable failure) throws X {
		Permit permit = next;
		Decision decision = decided;
		try {
			while (true) {
				if (decision != null) {
					if (decision instanceof Decision.Stop stop) {
						return (response != null) ? endWith(exchange, stop, response)
								: exchange.end(stop, null, failure);
					}
					response = AttemptSteps.retrying(exchange, (Decision.Retry) decision, response,
							this.ticker.read());
					await(((Decision.Retry) decision).notBeforeNanos(), operation, exchange);
					decision = null;
					permit = operation.beforeAttempt();
				}
				if (permit instanceof Permit.Proceed proceed) {
					long sentAt = this.ticker.read();
					try {
						response = exchange.send(proceed);
						failure = null;
					}
					catch (InterruptedException ex) {
						failure = ex;
						throw ex;
					}
					catch (Exception ex) {
						response = null;
						failure = ex;
						decision = operation.afterFailure(ex, exchange.classify(ex), sentAt, this.ticker.read());
						continue;
					}
					decision = AttemptSteps.decide(operation, exchange, response, sentAt, this.ticker.read());
				}
				else if (permit instanceof Permit.Wait wait) {
					exchange.held(wait);
					await(wait.notBeforeNanos(), operation, exchange);
					permit = operation.beforeAttempt();
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
	public interface Exchange<T, R, X extends Exception> extends AttemptHooks<T> {

		/**
		 * Sends the request once, giving up after {@code proceed.bound()} when it names one (otherwise the client's
		 * own timeouts alone bound the attempt).
		 * @param proceed the attempt's number and timeout
		 * @return the response, whatever its status
		 * @throws Exception an I/O failure ({@link #classify classified}), an interrupt, or anything else (which
		 * ends the operation {@link Outcome#NOT_RETRYABLE})
		 */
		T send(Permit.Proceed proceed) throws Exception;

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
