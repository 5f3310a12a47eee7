package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

/**
 * An attempt is about to be sent: its permit was granted.
 *
 * @param spec the operation (its provider names the budget and the metrics)
 * @param attempt the attempt number, from 1
 * @param kind whether it is the first request or a retry
 * @param idempotencyKey the key the request carries, the same on every attempt
 * @param timeout the time this attempt is given
 * @param remainingDeadline what was left of the operation's deadline when the attempt was permitted
 * @param tokensBefore the budget tokens available to this provider before the attempt (the smaller of its own and the
 * global bucket); infinite when unlimited
 * @param tokensAfter the same after the attempt's token was taken; equal to {@code tokensBefore} for a first attempt
 * @param elapsed the time since the operation started
 */
public record AttemptEvent(OperationSpec spec, int attempt, AttemptKind kind, Optional<String> idempotencyKey,
		Duration timeout, Duration remainingDeadline, double tokensBefore, double tokensAfter, Duration elapsed) {

	/**
	 * Describes the event without the idempotency key's value: a key may be a secret a log must not hold.
	 * @return the event, the key shown as {@code present} or {@code none}
	 */
	@Override
	public String toString() {
		return "AttemptEvent[spec=" + this.spec + ", attempt=" + this.attempt + ", kind=" + this.kind
				+ ", idempotencyKey=" + (this.idempotencyKey.isPresent() ? "present" : "none") + ", timeout="
				+ this.timeout + ", remainingDeadline=" + this.remainingDeadline + ", tokensBefore=" + this.tokensBefore
				+ ", tokensAfter=" + this.tokensAfter + ", elapsed=" + this.elapsed + "]";
	}

}
