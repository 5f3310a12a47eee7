package io.github.retryafter.okhttp;

import io.github.retryafter.Cancellation;

/**
 * Tracks the calls a {@link RetryAfterInterceptor} holds between attempts, so an application that shuts down can
 * cancel their waits (the Spring Boot starter cancels them when its context closes): a cancelled wait sends no further
 * request and the call ends {@code CANCELLED}. {@link #NONE}, the default, tracks nothing. Implementations are
 * thread-safe.
 */
public interface WaitTracker {

	/** Tracks nothing: a wait ends by itself, by {@code Call.cancel()} or by the call's {@code callTimeout}. */
	WaitTracker NONE = new WaitTracker() {

		@Override
		public void waiting(Cancellation cancellation) {
		}

		@Override
		public void ended(Cancellation cancellation) {
		}

	};

	/**
	 * A call is about to wait before its next attempt; called before every wait of the call.
	 * @param cancellation the call's operation's cancellation: cancelling it ends the wait
	 */
	void waiting(Cancellation cancellation);

	/**
	 * The call that waited ended.
	 * @param cancellation the cancellation given to {@link #waiting}
	 */
	void ended(Cancellation cancellation);

}
