package io.github.retryafter.engine;

/**
 * Whether an attempt is an operation's first request or a retry; metrics count the two apart, because the ratio of
 * retries to first attempts is the retry amplification.
 */
public enum AttemptKind {

	/** The operation's first request: it never consumes retry budget. */
	FIRST,

	/** A repeat of the request: it took one token from the provider's and the global budget. */
	RETRY

}
