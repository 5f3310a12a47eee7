package io.github.retryafter.engine;

/**
 * What a {@link ResponseClassifier} makes of one attempt's outcome.
 */
public enum Classification {

	/** The attempt succeeded: the operation ends with {@link Outcome#SUCCESS}. */
	SUCCESS,

	/** A temporary failure: retry if the request is replay-safe and deadline, attempts and budget allow. */
	RETRYABLE,

	/** A failure that repeating will not fix: the operation ends with {@link Outcome#NOT_RETRYABLE}. */
	NOT_RETRYABLE

}
