package io.github.retryafter.sample;

/**
 * One request that arrived at the simulated provider.
 *
 * @param atMillis when it arrived, in milliseconds since the scenario started, on the real clock
 * @param operationId the operation it belongs to, from its {@code Idempotency-Key}
 * @param attempt which arrival of that operation it is, from 1
 * @param status the status the provider answered
 */
public record Arrival(long atMillis, String operationId, int attempt, int status) {

	/**
	 * Returns whether this was a retry: a second or later arrival of the same operation.
	 * @return whether it was a retry
	 */
	public boolean isRetry() {
		return this.attempt > 1;
	}

}
