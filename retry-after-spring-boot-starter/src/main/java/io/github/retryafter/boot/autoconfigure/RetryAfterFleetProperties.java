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

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public Duration getFlushInterval() {
		return this.flushInterval;
	}

	public void setFlushInterval(Duration flushInterval) {
		this.flushInterval = flushInterval;
	}

	public Duration getProbeInterval() {
		return this.probeInterval;
	}

	public void setProbeInterval(Duration probeInterval) {
		this.probeInterval = probeInterval;
	}

	public Duration getKeyTtl() {
		return this.keyTtl;
	}

	public void setKeyTtl(Duration keyTtl) {
		this.keyTtl = keyTtl;
	}

	public int getRejoinProbes() {
		return this.rejoinProbes;
	}

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
