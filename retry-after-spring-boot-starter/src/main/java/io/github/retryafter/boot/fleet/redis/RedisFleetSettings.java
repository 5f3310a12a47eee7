package io.github.retryafter.boot.fleet.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How an instance talks to the fleet's Redis. Immutable and thread-safe.
 *
 * @param keyPrefix the prefix of every key, shared by the instances of one fleet
 * @param commandTimeout the longest a request waits for Redis before the instance falls back to local state
 * @param flushInterval how often batched deposits are sent and the fleet's state read back
 * @param probeInterval how often Redis is probed while the instance is on local state
 * @param keyTtl the longest a key lives untouched
 */
public record RedisFleetSettings(String keyPrefix, Duration commandTimeout, Duration flushInterval, Duration probeInterval,
		Duration keyTtl) {

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 */
	public RedisFleetSettings {
		Objects.requireNonNull(keyPrefix, "keyPrefix");
		if (keyPrefix.isBlank()) {
			throw new IllegalArgumentException("keyPrefix must not be blank");
		}
		positive("commandTimeout", commandTimeout);
		positive("flushInterval", flushInterval);
		positive("probeInterval", probeInterval);
		positive("keyTtl", keyTtl);
	}

	/**
	 * Returns how long a probe may take: longer than a command, since it also reloads the scripts.
	 * @return ten times the command timeout, at least one second
	 */
	public Duration probeTimeout() {
		Duration tenTimes = this.commandTimeout.multipliedBy(10);
		return (tenTimes.compareTo(Duration.ofSeconds(1)) > 0) ? tenTimes : Duration.ofSeconds(1);
	}

	private static void positive(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive but was " + value);
		}
	}

}
