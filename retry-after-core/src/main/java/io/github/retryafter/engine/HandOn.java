package io.github.retryafter.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

import io.github.retryafter.internal.Saturating;

/**
 * Finds the instant an operation that ends without success hands on ({@link NotBefore}): the later of its last
 * response's {@code Retry-After} floor and, with pacing on, its provider's cooldown, when that is still ahead.
 * Stateless.
 */
final class HandOn {

	private HandOn() {
	}

	/**
	 * Reads the provider's instant for an operation ending now.
	 * @param engine the operation's engine
	 * @param spec the operation
	 * @param attempts the attempts it sent
	 * @param last the last attempt's outcome, or {@code null} before the first
	 * @return the instant, empty when the provider named none that is still ahead
	 */
	static Optional<NotBefore> of(RetryEngine engine, OperationSpec spec, int attempts, AttemptOutcome last) {
		long at = Long.MIN_VALUE;
		if (last instanceof AttemptOutcome.Response response) {
			OptionalLong floorEnd = engine.gateFeed().floorEnd(response, Math.max(1, attempts));
			if (floorEnd.isPresent()) {
				at = floorEnd.getAsLong();
			}
		}
		if (engine.policy().pacing().enabled()) {
			at = Math.max(at, engine.gate(spec.scope()).cooldownUntilNanos());
		}
		long now = engine.ticker().read();
		if (at == Long.MIN_VALUE || at - now <= 0) {
			return Optional.empty();
		}
		Duration remaining = Duration.ofNanos(at - now);
		Instant instant = Saturating.plus(engine.planner().wallClock().instant(), remaining);
		return Optional.of(new NotBefore(at, instant, remaining));
	}

}
