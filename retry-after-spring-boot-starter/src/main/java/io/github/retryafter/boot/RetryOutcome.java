package io.github.retryafter.boot;

import java.util.Optional;

import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryOperation;

/**
 * How one logical operation made through a retrying client ended, as told to
 * {@link RetryAfterAttributes#onOutcome(java.util.function.Consumer)} listeners and carried by
 * {@link RetryAfterOutcomeException}.
 *
 * @param provider the provider the operation belonged to
 * @param outcome how it ended
 * @param attempts how many HTTP attempts were sent
 * @param reason a sentence saying why it ended, with the numbers
 * @param idempotencyKey the key sent on every attempt, if any
 */
public record RetryOutcome(String provider, Outcome outcome, int attempts, String reason,
		Optional<String> idempotencyKey) {

	/**
	 * Reads the outcome of a finished operation.
	 * @param operation the operation
	 * @param outcome how it ended
	 * @param reason why it ended
	 * @return the outcome
	 */
	public static RetryOutcome of(RetryOperation operation, Outcome outcome, String reason) {
		return new RetryOutcome(operation.spec().provider(), outcome, operation.attempts(), reason,
				operation.idempotencyKey());
	}

	/**
	 * Describes the outcome without the idempotency key's value: a key may be a secret a log must not hold.
	 * @return the outcome, the key shown as {@code present} or {@code none}
	 */
	@Override
	public String toString() {
		return "RetryOutcome[provider=" + this.provider + ", outcome=" + this.outcome + ", attempts=" + this.attempts
				+ ", reason=" + this.reason + ", idempotencyKey="
				+ (this.idempotencyKey.isPresent() ? "present" : "none") + "]";
	}

}
