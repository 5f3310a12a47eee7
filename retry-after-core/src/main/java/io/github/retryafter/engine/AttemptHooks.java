package io.github.retryafter.engine;

import java.util.Optional;

/**
 * What a transport says around its attempts, the same for the blocking {@link RetryLoop} and the non-blocking
 * {@link AsyncRetryLoop}: how to read a response ({@link RetryRunner.ResponseAdapter}), what a failure means, what
 * stands for a failed response once it is released, and what to tell when a retry is scheduled or the provider's gate
 * holds the next attempt. Implementations are usually one object per operation, used by one step at a time.
 * @param <T> what one attempt returns
 */
public interface AttemptHooks<T> extends RetryRunner.ResponseAdapter<T> {

	/**
	 * Says what an exception thrown by an attempt means for the request's side effects.
	 * @param failure the exception
	 * @return the kind, or empty when it is not an I/O failure; {@link FailureKind#classify} by default
	 */
	default Optional<FailureKind> classify(Throwable failure) {
		return FailureKind.classify(failure);
	}

	/**
	 * Returns what stands for a failed response once it is
	 * {@link RetryRunner.ResponseAdapter#discard(Object, java.time.Duration) discarded}, in case the engine then
	 * refuses the next attempt and the loop ends with it. Called just before the discard.
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

}
