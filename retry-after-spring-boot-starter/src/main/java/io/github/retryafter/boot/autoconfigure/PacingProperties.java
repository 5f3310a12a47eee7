package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;

/**
 * Provider pacing. The gate closes until the latest instant any Retry-After from the provider named, for fresh
 * requests and retries alike; after a 429 or 503 the provider's requests are released at a rate that drops by the
 * decrease factor on every throttle and grows back on successes.
 * <p>
 * Bound under {@code retry.after.pacing.*} and {@code retry.after.providers.<name>.pacing.*}.
 */
public class PacingProperties {

	/**
	 * What a request does while its provider cools down: 'hold' (wait, if the deadline allows), 'fail-fast' (stop
	 * with PROVIDER_COOLING_DOWN) or 'off' (no gate and no rate).
	 */
	private io.github.retryafter.pacing.PacingMode mode;

	/**
	 * Lowest rate, in requests per second, the adaptive rate drops to.
	 */
	private Double minRate;

	/**
	 * Rate, in requests per second, at or above which pacing lets go until the next throttle.
	 */
	private Double maxRate;

	/**
	 * Requests each lane may send back to back after being idle.
	 */
	private Integer burst;

	/**
	 * Share of the rate kept for fresh requests, so a backlog of retries cannot starve them; retries get the rest.
	 */
	private Double freshShare;

	/**
	 * Factor a throttle multiplies the rate by.
	 */
	private Double decreaseFactor;

	/**
	 * Longest a cooldown may close the gate, whatever a server asks; a longer Retry-After still ends its own
	 * operation WAIT_TOO_LONG. Defaults to the provider's max-wait.
	 */
	private Duration maxCooldown;

	/**
	 * Most requests one gate holds at once (waiting for a cooldown, a probe or a slot of the rate); a request
	 * beyond it ends PROVIDER_COOLING_DOWN at once, unsent. Each held WebClient request costs a few KB of heap.
	 */
	private Integer maxQueued;

	/**
	 * How the provider's rate-limit fields (RateLimit, RateLimit-Policy, RateLimit-*, X-RateLimit-*) pace it.
	 */
	private final RateLimitFields rateLimitFields = new RateLimitFields();

	/**
	 * Returns the {@code mode} setting: what a request does while its provider cools down: 'hold' (wait, if the
	 * deadline allows), 'fail-fast' (stop with PROVIDER_COOLING_DOWN) or 'off' (no gate and no rate).
	 * @return the setting
	 */
	public io.github.retryafter.pacing.PacingMode getMode() {
		return this.mode;
	}

	/**
	 * Sets the {@code mode} setting.
	 * @param mode what a request does while its provider cools down: 'hold' (wait, if the deadline allows),
	 * 'fail-fast' (stop with PROVIDER_COOLING_DOWN) or 'off' (no gate and no rate)
	 */
	public void setMode(io.github.retryafter.pacing.PacingMode mode) {
		this.mode = mode;
	}

	/**
	 * Returns the {@code min-rate} setting: lowest rate, in requests per second, the adaptive rate drops to.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getMinRate() {
		return this.minRate;
	}

	/**
	 * Sets the {@code min-rate} setting.
	 * @param minRate lowest rate, in requests per second, the adaptive rate drops to
	 */
	public void setMinRate(Double minRate) {
		this.minRate = minRate;
	}

	/**
	 * Returns the {@code max-rate} setting: rate, in requests per second, at or above which pacing lets go until
	 * the next throttle.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getMaxRate() {
		return this.maxRate;
	}

	/**
	 * Sets the {@code max-rate} setting.
	 * @param maxRate rate, in requests per second, at or above which pacing lets go until the next throttle
	 */
	public void setMaxRate(Double maxRate) {
		this.maxRate = maxRate;
	}

	/**
	 * Returns the {@code burst} setting: requests each lane may send back to back after being idle.
	 * @return the setting, or {@code null} when not set
	 */
	public Integer getBurst() {
		return this.burst;
	}

	/**
	 * Sets the {@code burst} setting.
	 * @param burst requests each lane may send back to back after being idle
	 */
	public void setBurst(Integer burst) {
		this.burst = burst;
	}

	/**
	 * Returns the {@code fresh-share} setting: share of the rate kept for fresh requests, so a backlog of retries
	 * cannot starve them.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getFreshShare() {
		return this.freshShare;
	}

	/**
	 * Sets the {@code fresh-share} setting.
	 * @param freshShare share of the rate kept for fresh requests, so a backlog of retries cannot starve them
	 */
	public void setFreshShare(Double freshShare) {
		this.freshShare = freshShare;
	}

	/**
	 * Returns the {@code decrease-factor} setting: factor a throttle multiplies the rate by.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getDecreaseFactor() {
		return this.decreaseFactor;
	}

	/**
	 * Sets the {@code decrease-factor} setting.
	 * @param decreaseFactor factor a throttle multiplies the rate by
	 */
	public void setDecreaseFactor(Double decreaseFactor) {
		this.decreaseFactor = decreaseFactor;
	}

	/**
	 * Returns the {@code max-cooldown} setting: the longest a cooldown may close the gate, whatever a server asks.
	 * @return the setting, or {@code null} for the provider's max-wait
	 */
	public Duration getMaxCooldown() {
		return this.maxCooldown;
	}

	/**
	 * Sets the {@code max-cooldown} setting.
	 * @param maxCooldown the longest a cooldown may close the gate, whatever a server asks
	 */
	public void setMaxCooldown(Duration maxCooldown) {
		this.maxCooldown = maxCooldown;
	}

	/**
	 * Returns the {@code max-queued} setting: the most requests one gate holds at once.
	 * @return the setting, or {@code null} when not set here
	 */
	public Integer getMaxQueued() {
		return this.maxQueued;
	}

	/**
	 * Sets the {@code max-queued} setting.
	 * @param maxQueued the most requests one gate holds at once, at least 1
	 */
	public void setMaxQueued(Integer maxQueued) {
		this.maxQueued = maxQueued;
	}

	/**
	 * Returns the {@code rate-limit-fields} settings: how the provider's rate-limit fields pace it.
	 * @return the settings, never {@code null}
	 */
	public RateLimitFields getRateLimitFields() {
		return this.rateLimitFields;
	}

	/**
	 * Whether a provider's announced quota paces it before its first refusal.
	 */
	public static class RateLimitFields {

		/**
		 * Whether to read the provider's rate-limit fields: its quota sets the rate once a burst is left, and a
		 * remaining of zero holds every request until the reset (capped at max-cooldown).
		 */
		private Boolean enabled;

		/**
		 * Returns the {@code enabled} setting: whether to read the provider's rate-limit fields.
		 * @return the setting, or {@code null} when not set here
		 */
		public Boolean getEnabled() {
			return this.enabled;
		}

		/**
		 * Sets the {@code enabled} setting.
		 * @param enabled whether to read the provider's rate-limit fields
		 */
		public void setEnabled(Boolean enabled) {
			this.enabled = enabled;
		}

	}

}
