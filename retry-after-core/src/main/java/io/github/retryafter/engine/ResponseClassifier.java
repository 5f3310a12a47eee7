package io.github.retryafter.engine;

/**
 * Decides whether one attempt's outcome is a success, a temporary failure or a permanent one. Plug in a provider's own
 * rules (a 200 carrying an error object, a 409 that means "already done") by wrapping {@link RetryPolicy#classifier()}.
 * <p>
 * Replay safety is not the classifier's business: the engine checks the method and idempotency key separately.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ResponseClassifier {

	/**
	 * Classifies an attempt's outcome.
	 * @param outcome the response or failure
	 * @return the classification
	 */
	Classification classify(AttemptOutcome outcome);

}
