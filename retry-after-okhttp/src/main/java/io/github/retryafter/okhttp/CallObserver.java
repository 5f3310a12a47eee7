package io.github.retryafter.okhttp;

import java.time.Duration;
import java.util.function.BiConsumer;

import okhttp3.Request;

import io.github.retryafter.engine.Outcome;

/**
 * Observes what a {@link RetryAfterInterceptor} does with a call, for tracing and timing: the logical operation, each
 * attempt inside it (whose trace context it may write into the attempt's request headers), and the waits between
 * them. The Spring Boot starter gives the interceptor one backed by Micrometer's observations; {@link #NONE}, the
 * default, observes nothing and costs nothing. Implementations are thread-safe; the observation of one call is used
 * by that call's thread only.
 */
@FunctionalInterface
public interface CallObserver {

	/** Observes nothing. */
	CallObserver NONE = (provider, request) -> Operation.NONE;

	/**
	 * A call's operation starts.
	 * @param provider the provider the call was routed to
	 * @param request the call's request, as the application made it
	 * @return the operation's observation, ended with {@link Operation#stop()}
	 */
	Operation start(String provider, Request request);

	/**
	 * One call's operation.
	 */
	interface Operation {

		/** Observes nothing. */
		Operation NONE = new Operation() {
		};

		/**
		 * An attempt is about to be sent.
		 * @param attempt its number, from 1
		 * @param headers sets a header of the attempt's request (a tracer's context), replacing any value it had
		 * @return the attempt's observation, ended with {@link Attempt#stop()}
		 */
		default Attempt attempt(int attempt, BiConsumer<String, String> headers) {
			return Attempt.NONE;
		}

		/**
		 * The call waits before its next attempt: called for a retry's wait, and each time the provider's gate holds
		 * the call, which may be several times before one attempt (a held call asks again when its hold ends, and may
		 * be held again). An observer counting waits counts the first call after each {@link #attempt}.
		 * @param delay how long
		 * @param source why: {@code RETRY_AFTER}, {@code BACKOFF} or {@code GATE}
		 */
		default void waiting(Duration delay, String source) {
		}

		/**
		 * The operation ended.
		 * @param outcome how
		 * @param attempts the attempts sent
		 */
		default void ended(Outcome outcome, int attempts) {
		}

		/** Ends the observation; called once, last. */
		default void stop() {
		}

	}

	/**
	 * One attempt: from sending until its status arrives, or it fails.
	 */
	interface Attempt {

		/** Observes nothing. */
		Attempt NONE = new Attempt() {
		};

		/**
		 * The attempt's response arrived.
		 * @param status its status
		 */
		default void response(int status) {
		}

		/**
		 * The attempt failed.
		 * @param failure why
		 */
		default void failure(Throwable failure) {
		}

		/** Ends the observation; called once, last. */
		default void stop() {
		}

	}

}
