package io.github.retryafter.boot.fleet;

import java.time.Duration;
import java.util.Optional;

/**
 * What the Actuator endpoint and the health contributor show of the fleet.
 *
 * @param store where the fleet's state lives ({@code redis})
 * @param state the store's state; for Redis {@code CONNECTING}, {@code REDIS} or {@code LOCAL_FALLBACK}
 * @param shared whether retry decisions go to the fleet's store right now (else they are local to this instance)
 * @param keyPrefix the prefix of the fleet's keys
 * @param fallbacks how many times this instance fell back to local state
 * @param lastError the last failure of the store, if any
 * @param commandTimeout the longest a request waits for the store
 * @param keyFallbacks how many times a key fell back to local state because its value was not the fleet's (garbage,
 * a wrong type)
 * @param instances the fleet's instances this one counted last (at least 1)
 */
public record FleetStatus(String store, String state, boolean shared, String keyPrefix, long fallbacks,
		Optional<String> lastError, Duration commandTimeout, long keyFallbacks, int instances) {
}
