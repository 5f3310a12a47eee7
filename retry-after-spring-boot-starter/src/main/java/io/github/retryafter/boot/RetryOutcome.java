package io.github.retryafter.boot;

import java.util.Optional;

import io.github.retryafter.engine.NotBefore;
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
 * @param notBefore the instant the provider named, when the operation ended without success and the provider named
 * one still ahead: the later of its last {@code Retry-After} floor and its cooldown. An outer retry layer must not
 * retry before {@link NotBefore#instant()}; {@link NotBefore#remaining()} is what was left of it when the operation
 * ended
 */
public record RetryOutcome(String provider, Outcome outcome, int attempts, String reason,
		Optional<String> idempotencyKey, Optional<NotBefore> notBefore) {

	/**
	 * Creates an outcome that hands on no instant.
	 * @param provider the provider the operation belonged to
	 * @param outcome how it ended
	 * @param attempts how many HTTP attempts were sent
	 * @param reason a sentence saying why it ended, with the numbers
	 * @param idempotencyKey the key sent on every attempt, if any
	 */
	public RetryOutcome(String provider, Outcome outcome, int attempts, String reason,
			Optional<String> idempotencyKey) {
		this(provider, outcome, attempts, reason, idempotencyKey, Optional.empty());
	}

	/**
	 * Reads the outcome of a finished operation.
	 * @param operation the operation
	 * @param outcome how it ended
	 * @param reason why it ended
	 * @return the outcome
	 */
	public static RetryOutcome of(RetryOperation operation, Outcome outcome, String reason) {
		return new RetryOutcome(operation.spec().provider(), outcome, operation.attempts(), reason,
				operation.idempotencyKey(), operation.notBefore());
	}

	/**
	 * Describes the outcome without the idempotency key's value: a key may be a secret a log must not hold.
	 * @return the outcome, the key shown as {@code present} or {@code none}
	 */
	@Override
	public String toString() {
		return "RetryOutcome[provider=" + this.provider + ", outcome=" + this.outcome + ", attempts=" + this.attempts
				+ ", reason=" + this.reason + ", idempotencyKey="
				+ (this.idempotencyKey.isPresent() ? "present" : "none")
				+ this.notBefore.map((at) -> ", notBefore=" + at.instant()).orElse("") + "]";
	}

}
