package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link FleetRuntime} treats its store. Immutable and thread-safe.
 *
 * @param storeName the store's name in logs ({@code Redis})
 * @param commandTimeout the longest an operation waits for the store, as the logs say it
 * @param probeInterval how often the store is probed while this instance is not shared
 * @param probeTimeout the longest the startup read waits for the first connection
 * @param rejoinProbes how many good probes in a row an instance on its local fallback needs to share again
 * (hysteresis: a link that flaps keeps the instance local)
 * @param answerWithin how long a thread that may block waits for a submitted task's answer, zero for not at all
 */
public record FleetRuntimeSettings(String storeName, Duration commandTimeout, Duration probeInterval,
		Duration probeTimeout, int rejoinProbes, Duration answerWithin) {

	/**
	 * Validates eagerly.
	 * @param storeName the store's name in logs
	 * @param commandTimeout the longest an operation waits for the store, positive
	 * @param probeInterval how often the store is probed while not shared, positive
	 * @param probeTimeout the longest the startup read waits, positive
	 * @param rejoinProbes good probes in a row to share again, at least 1
	 * @param answerWithin how long a caller waits for a submitted task's answer, zero or positive
	 * @throws IllegalArgumentException naming the bad value
	 */
	public FleetRuntimeSettings {
		Objects.requireNonNull(storeName, "storeName");
		positive("commandTimeout", commandTimeout);
		positive("probeInterval", probeInterval);
		positive("probeTimeout", probeTimeout);
		if (rejoinProbes < 1) {
			throw new IllegalArgumentException("rejoinProbes must be at least 1 but was " + rejoinProbes);
		}
		Objects.requireNonNull(answerWithin, "answerWithin");
		if (answerWithin.isNegative()) {
			throw new IllegalArgumentException("answerWithin must not be negative but was " + answerWithin);
		}
	}

	private static void positive(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive but was " + value);
		}
	}

}
