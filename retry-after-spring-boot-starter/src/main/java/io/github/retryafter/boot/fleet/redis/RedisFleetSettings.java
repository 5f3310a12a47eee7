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
 * @param rejoinProbes how many consecutive successful probes, one every probe interval, an instance on its local
 * fallback needs before it returns to Redis (hysteresis: a link that flaps keeps the instance local)
 */
public record RedisFleetSettings(String keyPrefix, Duration commandTimeout, Duration flushInterval, Duration probeInterval,
		Duration keyTtl, int rejoinProbes) {

	/** Consecutive successful probes an instance needs to rejoin, unless configured. */
	public static final int DEFAULT_REJOIN_PROBES = 3;

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param keyPrefix the prefix of every key, shared by the instances of one fleet
	 * @param commandTimeout the longest a request waits for Redis before the instance falls back to local state
	 * @param flushInterval how often batched deposits are sent and the fleet's state read back
	 * @param probeInterval how often Redis is probed while the instance is on local state
	 * @param keyTtl the longest a key lives untouched
	 * @param rejoinProbes how many consecutive successful probes, one every probe interval, an instance on its local
	 * fallback needs before it returns to Redis (hysteresis: a link that flaps keeps the instance local)
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
		if (rejoinProbes < 1) {
			throw new IllegalArgumentException("rejoinProbes must be at least 1 but was " + rejoinProbes);
		}
	}

	/**
	 * Creates settings with {@value #DEFAULT_REJOIN_PROBES} consecutive probes to rejoin.
	 * @param keyPrefix the prefix of every key
	 * @param commandTimeout the longest a request waits for Redis
	 * @param flushInterval how often batched deposits are sent and the fleet's state read back
	 * @param probeInterval how often Redis is probed while the instance is on local state
	 * @param keyTtl the longest a key lives untouched
	 */
	public RedisFleetSettings(String keyPrefix, Duration commandTimeout, Duration flushInterval, Duration probeInterval,
			Duration keyTtl) {
		this(keyPrefix, commandTimeout, flushInterval, probeInterval, keyTtl, DEFAULT_REJOIN_PROBES);
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
