package io.github.retryafter.boot.fleet;

import java.time.Duration;
import java.util.Optional;

/**
 * What the Actuator endpoint and the health contributor show of the fleet.
 *
 * @param store where the fleet's state lives ({@code redis})
 * @param state {@code CONNECTING}, {@code REDIS} or {@code LOCAL_FALLBACK}
 * @param keyPrefix the prefix of the fleet's keys
 * @param fallbacks how many times this instance fell back to local state
 * @param lastError the last Redis failure, if any
 * @param commandTimeout the longest a request waits for Redis
 */
public record FleetStatus(String store, String state, String keyPrefix, long fallbacks, Optional<String> lastError,
		Duration commandTimeout) {
}
