package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.util.unit.DataSize;

/**
 * The retry settings that can be given globally under {@code retry.after.*} and overridden per provider under
 * {@code retry.after.providers.<name>.*}. Every field is {@code null} until set: a provider inherits each unset field
 * from the global settings, and the global settings from the built-in defaults (listed in the README).
 */
public class PolicyProperties {

	/**
	 * Maximum number of HTTP attempts per logical operation, the first included: 4 attempts means 3 retries.
	 */
	private Integer maxAttempts;

	/**
	 * Deadline of a whole logical operation, attempts and waits included, measured on the monotonic clock.
	 */
	private Duration deadline;

	/**
	 * Timeout of a single attempt; the engine gives each attempt the smaller of this and what is left of the deadline.
	 */
	private Duration attemptTimeout;

	/**
	 * Shortest remaining deadline worth starting another attempt with.
	 */
	private Duration minAttemptTime;

	/**
	 * Longest wait a server may ask for; a longer Retry-After stops the operation instead of being shortened.
	 */
	private Duration maxWait;

	/**
	 * Cap on the total time one operation spends waiting between attempts.
	 */
	private Duration totalWait;

	/**
	 * How a Retry-After turns into a wait: 'floor-plus-jitter', 'exact' or 'max-with-backoff'.
	 */
	private RetryHintMode hintMode;

	/**
	 * How clients are spread above the server's floor: 'none', 'random' or 'keyed'.
	 */
	private io.github.retryafter.JitterMode jitter;

	/**
	 * Jitter window above the server's floor.
	 */
	private final Spread spread = new Spread();

	/**
	 * What to do with an HTTP-date Retry-After on a response without a Date header: 'refuse' (fall back to backoff)
	 * or 'trust-client-clock'.
	 */
	private io.github.retryafter.OnMissingDate onMissingDate;

	/**
	 * Whether to subtract the measured round trip from the server's wait. RFC 9110 measures delay-seconds from receipt,
	 * so this can land a retry a few milliseconds early.
	 */
	private Boolean subtractRoundTrip;

	/**
	 * Fallback backoff used when a response carries no usable Retry-After.
	 */
	private final Backoff backoff = new Backoff();

	/**
	 * HTTP statuses that are retried.
	 */
	private Set<Integer> retryableStatuses;

	/**
	 * HTTP methods that are replayed without an idempotency key.
	 */
	private Set<String> retryableMethods;

	/**
	 * Idempotency keys added to POST and PATCH requests so they can be retried.
	 */
	private final IdempotencyKey idempotencyKey = new IdempotencyKey();

	/**
	 * Retry budget of the provider: a token bucket shared by every client of the application.
	 */
	private final Budget budget = new Budget();

	/**
	 * Largest request body buffered so it can be replayed; a larger or streaming body is not retried.
	 */
	private DataSize maxReplayBody;

	/**
	 * Most of a failed response's body read before its retry so its connection can be reused; a longer body, or one
	 * still arriving when the retry is due, has its connection closed instead.
	 */
	private DataSize maxDrain;

	/**
	 * Provider pacing: one gate per provider that holds every request while the provider cools down after a
	 * Retry-After, then releases them at an adaptive rate.
	 */
	private final Pacing pacing = new Pacing();

	public Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getDeadline() {
		return this.deadline;
	}

	public void setDeadline(Duration deadline) {
		this.deadline = deadline;
	}

	public Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	public void setAttemptTimeout(Duration attemptTimeout) {
		this.attemptTimeout = attemptTimeout;
	}

	public Duration getMinAttemptTime() {
		return this.minAttemptTime;
	}

	public void setMinAttemptTime(Duration minAttemptTime) {
		this.minAttemptTime = minAttemptTime;
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public Duration getTotalWait() {
		return this.totalWait;
	}

	public void setTotalWait(Duration totalWait) {
		this.totalWait = totalWait;
	}

	public RetryHintMode getHintMode() {
		return this.hintMode;
	}

	public void setHintMode(RetryHintMode hintMode) {
		this.hintMode = hintMode;
	}

	public io.github.retryafter.JitterMode getJitter() {
		return this.jitter;
	}

	public void setJitter(io.github.retryafter.JitterMode jitter) {
		this.jitter = jitter;
	}

	public Spread getSpread() {
		return this.spread;
	}

	public io.github.retryafter.OnMissingDate getOnMissingDate() {
		return this.onMissingDate;
	}

	public void setOnMissingDate(io.github.retryafter.OnMissingDate onMissingDate) {
		this.onMissingDate = onMissingDate;
	}

	public Boolean getSubtractRoundTrip() {
		return this.subtractRoundTrip;
	}

	public void setSubtractRoundTrip(Boolean subtractRoundTrip) {
		this.subtractRoundTrip = subtractRoundTrip;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	public Set<Integer> getRetryableStatuses() {
		return this.retryableStatuses;
	}

	public void setRetryableStatuses(Set<Integer> retryableStatuses) {
		this.retryableStatuses = (retryableStatuses != null) ? new LinkedHashSet<>(retryableStatuses) : null;
	}

	public Set<String> getRetryableMethods() {
		return this.retryableMethods;
	}

	public void setRetryableMethods(Set<String> retryableMethods) {
		this.retryableMethods = (retryableMethods != null) ? new LinkedHashSet<>(retryableMethods) : null;
	}

	public IdempotencyKey getIdempotencyKey() {
		return this.idempotencyKey;
	}

	public Budget getBudget() {
		return this.budget;
	}

	public DataSize getMaxReplayBody() {
		return this.maxReplayBody;
	}

	public void setMaxReplayBody(DataSize maxReplayBody) {
		this.maxReplayBody = maxReplayBody;
	}

	public DataSize getMaxDrain() {
		return this.maxDrain;
	}

	public void setMaxDrain(DataSize maxDrain) {
		this.maxDrain = maxDrain;
	}

	public Pacing getPacing() {
		return this.pacing;
	}

	/**
	 * Jitter window: {@code clamp(floor × ratio, min, max)} above the server's floor.
	 */
	public static class Spread {

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

		public Double getRatio() {
			return this.ratio;
		}

		public void setRatio(Double ratio) {
			this.ratio = ratio;
		}

		public Duration getMin() {
			return this.min;
		}

		public void setMin(Duration min) {
			this.min = min;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

	}

	/**
	 * Full-jitter exponential backoff: after the n-th failure the wait is drawn uniformly below
	 * {@code min(max-delay, delay × 2^(n-1))}.
	 */
	public static class Backoff {

		/**
		 * Backoff ceiling after the first failure.
		 */
		private Duration delay;

		/**
		 * Largest backoff ceiling.
		 */
		private Duration maxDelay;

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			this.delay = delay;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

	}

	/**
	 * Idempotency keys, opt-in per provider: only a provider known to honour the header may have POST and PATCH
	 * retried on the strength of a key added by the client.
	 */
	public static class IdempotencyKey {

		/**
		 * Whether to add an idempotency key to POST and PATCH requests, making them retryable.
		 */
		private Boolean enabled;

		/**
		 * Name of the idempotency-key header.
		 */
		private String header;

		public Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(Boolean enabled) {
			this.enabled = enabled;
		}

		public String getHeader() {
			return this.header;
		}

		public void setHeader(String header) {
			this.header = header;
		}

	}

	/**
	 * Token bucket: first attempts are free, each retry takes a token when it is sent.
	 */
	public static class Budget {

		/**
		 * Number of tokens the bucket holds when full; it starts full.
		 */
		private Double capacity;

		/**
		 * Tokens deposited per successful first attempt.
		 */
		private Double depositRatio;

		/**
		 * Tokens added per second whatever the traffic, so a quiet client can still retry.
		 */
		private Double refillPerSecond;

		public Double getCapacity() {
			return this.capacity;
		}

		public void setCapacity(Double capacity) {
			this.capacity = capacity;
		}

		public Double getDepositRatio() {
			return this.depositRatio;
		}

		public void setDepositRatio(Double depositRatio) {
			this.depositRatio = depositRatio;
		}

		public Double getRefillPerSecond() {
			return this.refillPerSecond;
		}

		public void setRefillPerSecond(Double refillPerSecond) {
			this.refillPerSecond = refillPerSecond;
		}

	}

	/**
	 * Provider pacing. The gate closes until the latest instant any Retry-After from the provider named, for fresh
	 * requests and retries alike; after a 429 or 503 the provider's requests are released at a rate that drops by the
	 * decrease factor on every throttle and grows back on successes.
	 */
	public static class Pacing {

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
		 * How the provider's rate-limit fields (RateLimit, RateLimit-Policy, RateLimit-*, X-RateLimit-*) pace it.
		 */
		private final RateLimitFields rateLimitFields = new RateLimitFields();

		public io.github.retryafter.pacing.PacingMode getMode() {
			return this.mode;
		}

		public void setMode(io.github.retryafter.pacing.PacingMode mode) {
			this.mode = mode;
		}

		public Double getMinRate() {
			return this.minRate;
		}

		public void setMinRate(Double minRate) {
			this.minRate = minRate;
		}

		public Double getMaxRate() {
			return this.maxRate;
		}

		public void setMaxRate(Double maxRate) {
			this.maxRate = maxRate;
		}

		public Integer getBurst() {
			return this.burst;
		}

		public void setBurst(Integer burst) {
			this.burst = burst;
		}

		public Double getFreshShare() {
			return this.freshShare;
		}

		public void setFreshShare(Double freshShare) {
			this.freshShare = freshShare;
		}

		public Double getDecreaseFactor() {
			return this.decreaseFactor;
		}

		public void setDecreaseFactor(Double decreaseFactor) {
			this.decreaseFactor = decreaseFactor;
		}

		public Duration getMaxCooldown() {
			return this.maxCooldown;
		}

		public void setMaxCooldown(Duration maxCooldown) {
			this.maxCooldown = maxCooldown;
		}

		public RateLimitFields getRateLimitFields() {
			return this.rateLimitFields;
		}

		/**
		 * Whether a provider's announced quota paces it before its first refusal.
		 */
		public static class RateLimitFields {

			/**
			 * Whether to read the provider's rate-limit fields: its quota sets the rate once a burst is left, and a
			 * remaining of zero holds every request until the reset (capped at max-wait).
			 */
			private Boolean enabled;

			public Boolean getEnabled() {
				return this.enabled;
			}

			public void setEnabled(Boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

}
