package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the fleet-wide retry budget and provider cooldown, under {@code retry.after.fleet.*}.
 */
@ConfigurationProperties("retry.after.fleet")
public class RetryAfterFleetProperties {

	/**
	 * Where the retry budget and the provider cooldown live: 'none' keeps them in this instance, 'redis' shares them
	 * with every instance using the same key prefix through Spring Data Redis (Lettuce).
	 */
	private Store store = Store.NONE;

	/**
	 * Prefix of every Redis key, shared by the instances of one fleet. Defaults to 'spring.application.name'.
	 */
	private String keyPrefix;

	/**
	 * Longest a request waits for Redis on a retry decision before the instance falls back to its local budget and
	 * cooldown.
	 */
	private Duration commandTimeout = Duration.ofMillis(50);

	/**
	 * Interval at which deposits from original requests are sent to Redis, and the fleet's cooldowns and budget
	 * levels read back, on one background thread.
	 */
	private Duration flushInterval = Duration.ofMillis(50);

	/**
	 * Interval at which an instance that fell back to its local budget probes Redis to return to it.
	 */
	private Duration probeInterval = Duration.ofMillis(500);

	/**
	 * Longest a budget key lives untouched; a bucket whose key expired is full again.
	 */
	private Duration keyTtl = Duration.ofHours(1);

	/**
	 * Consecutive successful probes, one every probe interval, an instance on its local fallback needs before it
	 * returns to Redis, so that a link that flaps keeps it local.
	 */
	private int rejoinProbes = 3;

	/**
	 * Returns the {@code store} setting: where the retry budget and the provider cooldown live: 'none' keeps them in
	 * this instance, 'redis' shares them with every instance using the same key prefix through Spring Data Redis
	 * (Lettuce).
	 * @return the setting
	 */
	public Store getStore() {
		return this.store;
	}

	/**
	 * Sets the {@code store} setting.
	 * @param store where the retry budget and the provider cooldown live: 'none' keeps them in this instance, 'redis'
	 * shares them with every instance using the same key prefix through Spring Data Redis (Lettuce)
	 */
	public void setStore(Store store) {
		this.store = store;
	}

	/**
	 * Returns the {@code key-prefix} setting: prefix of every Redis key, shared by the instances of one fleet.
	 * @return the setting, or {@code null} when not set
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Sets the {@code key-prefix} setting.
	 * @param keyPrefix prefix of every Redis key, shared by the instances of one fleet
	 */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Returns the {@code command-timeout} setting: longest a request waits for Redis on a retry decision before the
	 * instance falls back to its local budget and cooldown.
	 * @return the setting
	 */
	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	/**
	 * Sets the {@code command-timeout} setting.
	 * @param commandTimeout longest a request waits for Redis on a retry decision before the instance falls back to its
	 * local budget and cooldown
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	/**
	 * Returns the {@code flush-interval} setting: interval at which deposits from original requests are sent to Redis,
	 * and the fleet's cooldowns and budget levels read back, on one background thread.
	 * @return the setting
	 */
	public Duration getFlushInterval() {
		return this.flushInterval;
	}

	/**
	 * Sets the {@code flush-interval} setting.
	 * @param flushInterval interval at which deposits from original requests are sent to Redis, and the fleet's
	 * cooldowns and budget levels read back, on one background thread
	 */
	public void setFlushInterval(Duration flushInterval) {
		this.flushInterval = flushInterval;
	}

	/**
	 * Returns the {@code probe-interval} setting: interval at which an instance that fell back to its local budget
	 * probes Redis to return to it.
	 * @return the setting
	 */
	public Duration getProbeInterval() {
		return this.probeInterval;
	}

	/**
	 * Sets the {@code probe-interval} setting.
	 * @param probeInterval interval at which an instance that fell back to its local budget probes Redis to return to
	 * it
	 */
	public void setProbeInterval(Duration probeInterval) {
		this.probeInterval = probeInterval;
	}

	/**
	 * Returns the {@code key-ttl} setting: longest a budget key lives untouched.
	 * @return the setting
	 */
	public Duration getKeyTtl() {
		return this.keyTtl;
	}

	/**
	 * Sets the {@code key-ttl} setting.
	 * @param keyTtl longest a budget key lives untouched
	 */
	public void setKeyTtl(Duration keyTtl) {
		this.keyTtl = keyTtl;
	}

	/**
	 * Returns the {@code rejoin-probes} setting: consecutive successful probes, one every probe interval, an instance
	 * on its local fallback needs before it returns to Redis, so that a link that flaps keeps it local.
	 * @return the setting
	 */
	public int getRejoinProbes() {
		return this.rejoinProbes;
	}

	/**
	 * Sets the {@code rejoin-probes} setting.
	 * @param rejoinProbes consecutive successful probes, one every probe interval, an instance on its local fallback
	 * needs before it returns to Redis, so that a link that flaps keeps it local
	 */
	public void setRejoinProbes(int rejoinProbes) {
		this.rejoinProbes = rejoinProbes;
	}

	/**
	 * Where the fleet's shared state lives.
	 */
	public enum Store {

		/** Nowhere: each instance keeps its own budget and cooldown. */
		NONE,

		/** Redis, through Spring Data Redis with Lettuce. */
		REDIS

	}

}
