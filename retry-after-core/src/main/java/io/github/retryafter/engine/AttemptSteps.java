package io.github.retryafter.engine;

import java.time.Duration;

import io.github.retryafter.hint.ResponseHints;

/**
 * The steps both loops take on a response, written once: hand it to the engine (discarding it if the engine or a
 * listener throws), and, on a retry, stand in for it, discard it within the time until its retry is due, and tell.
 */
final class AttemptSteps {

	private AttemptSteps() {
	}

	/** Hands a response to the engine; if the engine or a listener throws, the response is discarded first. */
	static <T> Decision decide(RetryOperation operation, AttemptHooks<T> hooks, T received, long sentAt,
			long receivedAt) {
		try {
			return operation.afterAttempt(new AttemptOutcome.Response(hooks.status(received),
					ResponseHints.of(hooks.headers(received), hooks.body(received)), sentAt, receivedAt));
		}
		catch (RuntimeException | Error ex) {
			hooks.discard(received, Duration.ZERO);
			throw ex;
		}
	}

	/**
	 * A retry decided: the failed response, if any, is stood in for and discarded (told how long until its retry is
	 * due, so draining never delays it), then the retry is announced.
	 * @return what stands for the response until the next attempt; {@code null} after a failure
	 */
	static <T> T retrying(AttemptHooks<T> hooks, Decision.Retry retry, T response, long nowNanos) {
		T standIn = null;
		if (response != null) {
			standIn = hooks.standIn(response);
			hooks.discard(response, Duration.ofNanos(Math.max(0, retry.notBeforeNanos() - nowNanos)));
		}
		hooks.retryScheduled(retry);
		return standIn;
	}

}
