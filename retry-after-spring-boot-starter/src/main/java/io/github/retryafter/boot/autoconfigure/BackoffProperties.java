package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;

/**
 * Full-jitter exponential backoff: after the n-th failure the wait is drawn uniformly below
 * {@code min(max-delay, delay × 2^(n-1))}.
 * <p>
 * Bound under {@code retry.after.backoff.*} and {@code retry.after.providers.<name>.backoff.*}.
 */
public class BackoffProperties {

	/**
	 * Backoff ceiling after the first failure.
	 */
	private Duration delay;

	/**
	 * Largest backoff ceiling.
	 */
	private Duration maxDelay;

	/**
	 * Returns the {@code delay} setting: backoff ceiling after the first failure.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getDelay() {
		return this.delay;
	}

	/**
	 * Sets the {@code delay} setting.
	 * @param delay backoff ceiling after the first failure
	 */
	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	/**
	 * Returns the {@code max-delay} setting: largest backoff ceiling.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	/**
	 * Sets the {@code max-delay} setting.
	 * @param maxDelay largest backoff ceiling
	 */
	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

}
