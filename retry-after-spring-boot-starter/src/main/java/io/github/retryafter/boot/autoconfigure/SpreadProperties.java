package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;

/**
 * Jitter window: {@code clamp(floor × ratio, min, max)} above the server's floor.
 * <p>
 * Bound under {@code retry.after.spread.*} and {@code retry.after.providers.<name>.spread.*}.
 */
public class SpreadProperties {

	/**
	 * Width of the jitter window as a fraction of the server's floor.
	 */
	private Double ratio;

	/**
	 * Narrowest jitter window.
	 */
	private Duration min;

	/**
	 * Widest jitter window.
	 */
	private Duration max;

	/**
	 * Returns the {@code ratio} setting: width of the jitter window as a fraction of the server's floor.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getRatio() {
		return this.ratio;
	}

	/**
	 * Sets the {@code ratio} setting.
	 * @param ratio width of the jitter window as a fraction of the server's floor
	 */
	public void setRatio(Double ratio) {
		this.ratio = ratio;
	}

	/**
	 * Returns the {@code min} setting: narrowest jitter window.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getMin() {
		return this.min;
	}

	/**
	 * Sets the {@code min} setting.
	 * @param min narrowest jitter window
	 */
	public void setMin(Duration min) {
		this.min = min;
	}

	/**
	 * Returns the {@code max} setting: widest jitter window.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getMax() {
		return this.max;
	}

	/**
	 * Sets the {@code max} setting.
	 * @param max widest jitter window
	 */
	public void setMax(Duration max) {
		this.max = max;
	}

}
