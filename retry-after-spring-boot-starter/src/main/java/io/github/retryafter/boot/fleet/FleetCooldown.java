package io.github.retryafter.boot.fleet;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import io.github.retryafter.pacing.FleetGate;
import io.github.retryafter.pacing.ProviderGate;

/**
 * A provider cooldown shared by the instances of a fleet: a {@code Retry-After} that closed one instance's
 * {@link ProviderGate} closes every instance's gate of that provider. A store (Redis, in
 * {@code io.github.retryafter.boot.fleet.redis}) implements it; the engines reach it only through their gates and
 * {@link FleetCooldownListener}, so a second store needs no change outside its own package and configuration.
 * <p>
 * Implementations must be thread-safe and must never make a request's thread wait on the store: {@link #publish}
 * only hands the work to a background thread, and {@link #remaining} reads this instance's gate. Only
 * {@link #attach}, called once at startup before any request is sent, may wait, for a bounded time.
 */
public interface FleetCooldown {

	/**
	 * Attaches the engines' gates, once they exist; until then the cooldown reads and closes nothing. It reads the
	 * fleet's cooldowns once before it returns (waiting a bounded time, on the calling thread), so that an instance
	 * that starts while a provider is cooling down does not send it a request before the fleet's instant.
	 * @param gates the gate of a configured provider, by name, as a fleet sees it ({@link ProviderGate#fleet()})
	 */
	void attach(Function<String, Optional<FleetGate>> gates);

	/**
	 * Publishes to the fleet every gate of this instance that closed until later than the fleet knows, without
	 * waiting for the store. Never blocks.
	 */
	void publish();

	/**
	 * Returns how long {@code provider} is still cooling down on this instance, cooldowns learned from the fleet
	 * included.
	 * @param provider a configured provider
	 * @return the time left, zero when it is not cooling down or not configured
	 */
	Duration remaining(String provider);

	/**
	 * Ends {@code provider}'s cooldown for the whole fleet (an operator's reset), without waiting for the store: the
	 * store's record is removed on a background thread and this instance's gate opened again once it is, so the next
	 * read of the store does not close it again. Does nothing by default, for a store that shares no cooldown.
	 * @param provider a configured provider
	 */
	default void reset(String provider) {
	}

}
