package io.github.retryafter.engine;

/**
 * What an I/O failure means for the request's side effects, which is what decides whether it may be replayed.
 */
public enum FailureKind {

	/** The request never left (connection refused, DNS failure): nothing was applied, so any method may be retried. */
	NOT_SENT,

	/** The request was sent and no response came back (connection reset, response lost): it may have been applied. */
	OUTCOME_UNKNOWN,

	/** The attempt timed out after sending: it may have been applied. */
	TIMED_OUT

}
