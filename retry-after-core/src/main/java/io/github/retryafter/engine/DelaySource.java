package io.github.retryafter.engine;

/**
 * Where a retry's delay came from.
 */
public enum DelaySource {

	/** The server's {@code Retry-After}, through the planner. */
	RETRY_AFTER,

	/** The client's own fallback backoff: no usable {@code Retry-After}. */
	BACKOFF

}
