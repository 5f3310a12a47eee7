package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.util.unit.DataSize;

import io.github.retryafter.budget.HintedRetries;

/**
 * The retry settings that can be given globally under {@code retry.after.*} and overridden per provider under
 * {@code retry.after.providers.<name>.*}. Every field is {@code null} until set: a provider inherits each unset field
 * from the global settings, and the global settings from the built-in defaults (listed in docs/properties.md).
 */
public class PolicyProperties {

	/**
	 * Maximum number of HTTP attempts per logical operation, the first included: 4 attempts means 3 retries.
	 */
	private Integer maxAttempts;

	/**
	 * Deadline of a whole logical operation, attempts and waits included, measured on the monotonic clock. A model
	 * profile (openai, anthropic, azure) sets 10 minutes unless the provider sets its own.
	 */
	private Duration deadline;

	/**
	 * Timeout of a single attempt until its response's headers arrive, then of each wait for its body; the engine
	 * gives each attempt the smaller of this and what is left of the deadline. Under a model profile, only a value set
	 * for the provider applies: otherwise the client's own timeouts bound each attempt.
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
	 * Whether a retry the provider asked for draws on the retry budget: 'paced' (a retry whose wait a Retry-After set,
	 * held by the provider's gate with pacing on, takes no token; the gate bounds it) or 'tokens' (every retry takes
	 * one).
	 */
	private HintedRetries hintedRetries;

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
	 * Whether a response with one of the refusal statuses is retried for any method, POST and PATCH without an
	 * idempotency key included, because the provider documents that it refused the request before processing it. A
	 * timeout, a lost response or another status on such a method is still not retried.
	 */
	private Boolean retryRefusedRequests;

	/**
	 * HTTP statuses that mean the provider refused a request before processing it (429 unless set); retried for any
	 * method when retry-refused-requests is on.
	 */
	private Set<Integer> refusalStatuses;

	/**
	 * Request header each attempt carries the number of retries before it in (0 on the first attempt), for a provider
	 * that reads one, such as 'x-stainless-retry-count'; none unless set.
	 */
	private String attemptHeader;

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

	/**
	 * Returns the {@code max-attempts} setting: maximum number of HTTP attempts per logical operation, the first
	 * included: 4 attempts means 3 retries.
	 * @return the setting, or {@code null} when not set
	 */
	public Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Sets the {@code max-attempts} setting.
	 * @param maxAttempts maximum number of HTTP attempts per logical operation, the first included: 4 attempts means 3
	 * retries
	 */
	public void setMaxAttempts(Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Returns the {@code deadline} setting: deadline of a whole logical operation, attempts and waits included,
	 * measured on the monotonic clock.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getDeadline() {
		return this.deadline;
	}

	/**
	 * Sets the {@code deadline} setting.
	 * @param deadline deadline of a whole logical operation, attempts and waits included, measured on the monotonic
	 * clock
	 */
	public void setDeadline(Duration deadline) {
		this.deadline = deadline;
	}

	/**
	 * Returns the {@code attempt-timeout} setting: timeout of a single attempt.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	/**
	 * Sets the {@code attempt-timeout} setting.
	 * @param attemptTimeout timeout of a single attempt
	 */
	public void setAttemptTimeout(Duration attemptTimeout) {
		this.attemptTimeout = attemptTimeout;
	}

	/**
	 * Returns the {@code min-attempt-time} setting: shortest remaining deadline worth starting another attempt with.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getMinAttemptTime() {
		return this.minAttemptTime;
	}

	/**
	 * Sets the {@code min-attempt-time} setting.
	 * @param minAttemptTime shortest remaining deadline worth starting another attempt with
	 */
	public void setMinAttemptTime(Duration minAttemptTime) {
		this.minAttemptTime = minAttemptTime;
	}

	/**
	 * Returns the {@code max-wait} setting: longest wait a server may ask for.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getMaxWait() {
		return this.maxWait;
	}

	/**
	 * Sets the {@code max-wait} setting.
	 * @param maxWait longest wait a server may ask for
	 */
	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	/**
	 * Returns the {@code total-wait} setting: cap on the total time one operation spends waiting between attempts.
	 * @return the setting, or {@code null} when not set
	 */
	public Duration getTotalWait() {
		return this.totalWait;
	}

	/**
	 * Sets the {@code total-wait} setting.
	 * @param totalWait cap on the total time one operation spends waiting between attempts
	 */
	public void setTotalWait(Duration totalWait) {
		this.totalWait = totalWait;
	}

	/**
	 * Returns the {@code hint-mode} setting: how a Retry-After turns into a wait: 'floor-plus-jitter', 'exact' or
	 * 'max-with-backoff'.
	 * @return the setting, or {@code null} when not set
	 */
	public RetryHintMode getHintMode() {
		return this.hintMode;
	}

	/**
	 * Sets the {@code hint-mode} setting.
	 * @param hintMode how a Retry-After turns into a wait: 'floor-plus-jitter', 'exact' or 'max-with-backoff'
	 */
	public void setHintMode(RetryHintMode hintMode) {
		this.hintMode = hintMode;
	}

	/**
	 * Returns the {@code hinted-retries} setting: whether a retry the provider asked for draws on the retry budget.
	 * @return the setting, or {@code null} when not set
	 */
	public HintedRetries getHintedRetries() {
		return this.hintedRetries;
	}

	/**
	 * Sets the {@code hinted-retries} setting.
	 * @param hintedRetries 'paced' (a retry the provider asked for, held by its gate, takes no token) or 'tokens'
	 */
	public void setHintedRetries(HintedRetries hintedRetries) {
		this.hintedRetries = hintedRetries;
	}

	/**
	 * Returns the {@code jitter} setting: how clients are spread above the server's floor: 'none', 'random' or 'keyed'.
	 * @return the setting
	 */
	public io.github.retryafter.JitterMode getJitter() {
		return this.jitter;
	}

	/**
	 * Sets the {@code jitter} setting.
	 * @param jitter how clients are spread above the server's floor: 'none', 'random' or 'keyed'
	 */
	public void setJitter(io.github.retryafter.JitterMode jitter) {
		this.jitter = jitter;
	}

	/**
	 * Returns the {@code spread} settings: jitter window above the server's floor.
	 * @return the settings, never {@code null}
	 */
	public Spread getSpread() {
		return this.spread;
	}

	/**
	 * Returns the {@code on-missing-date} setting: what to do with an HTTP-date Retry-After on a response without a
	 * Date header: 'refuse' (fall back to backoff) or 'trust-client-clock'.
	 * @return the setting
	 */
	public io.github.retryafter.OnMissingDate getOnMissingDate() {
		return this.onMissingDate;
	}

	/**
	 * Sets the {@code on-missing-date} setting.
	 * @param onMissingDate what to do with an HTTP-date Retry-After on a response without a Date header: 'refuse' (fall
	 * back to backoff) or 'trust-client-clock'
	 */
	public void setOnMissingDate(io.github.retryafter.OnMissingDate onMissingDate) {
		this.onMissingDate = onMissingDate;
	}

	/**
	 * Returns the {@code subtract-round-trip} setting: whether to subtract the measured round trip from the server's
	 * wait.
	 * @return the setting, or {@code null} when not set
	 */
	public Boolean getSubtractRoundTrip() {
		return this.subtractRoundTrip;
	}

	/**
	 * Sets the {@code subtract-round-trip} setting.
	 * @param subtractRoundTrip whether to subtract the measured round trip from the server's wait
	 */
	public void setSubtractRoundTrip(Boolean subtractRoundTrip) {
		this.subtractRoundTrip = subtractRoundTrip;
	}

	/**
	 * Returns the {@code backoff} settings: fallback backoff used when a response carries no usable Retry-After.
	 * @return the settings, never {@code null}
	 */
	public Backoff getBackoff() {
		return this.backoff;
	}

	/**
	 * Returns the {@code retryable-statuses} setting: HTTP statuses that are retried.
	 * @return the setting, or {@code null} when not set
	 */
	public Set<Integer> getRetryableStatuses() {
		return this.retryableStatuses;
	}

	/**
	 * Sets the {@code retryable-statuses} setting.
	 * @param retryableStatuses HTTP statuses that are retried
	 */
	public void setRetryableStatuses(Set<Integer> retryableStatuses) {
		this.retryableStatuses = (retryableStatuses != null) ? new LinkedHashSet<>(retryableStatuses) : null;
	}

	/**
	 * Returns the {@code retryable-methods} setting: HTTP methods that are replayed without an idempotency key.
	 * @return the setting, or {@code null} when not set
	 */
	public Set<String> getRetryableMethods() {
		return this.retryableMethods;
	}

	/**
	 * Sets the {@code retryable-methods} setting.
	 * @param retryableMethods HTTP methods that are replayed without an idempotency key
	 */
	public void setRetryableMethods(Set<String> retryableMethods) {
		this.retryableMethods = (retryableMethods != null) ? new LinkedHashSet<>(retryableMethods) : null;
	}

	/**
	 * Returns the {@code retry-refused-requests} setting: whether a refusal is retried for any method.
	 * @return the setting, or {@code null} when not set
	 */
	public Boolean getRetryRefusedRequests() {
		return this.retryRefusedRequests;
	}

	/**
	 * Sets the {@code retry-refused-requests} setting.
	 * @param retryRefusedRequests whether a refusal is retried for any method
	 */
	public void setRetryRefusedRequests(Boolean retryRefusedRequests) {
		this.retryRefusedRequests = retryRefusedRequests;
	}

	/**
	 * Returns the {@code refusal-statuses} setting: statuses that mean the provider refused a request before
	 * processing it.
	 * @return the setting, or {@code null} when not set
	 */
	public Set<Integer> getRefusalStatuses() {
		return this.refusalStatuses;
	}

	/**
	 * Sets the {@code refusal-statuses} setting.
	 * @param refusalStatuses statuses that mean the provider refused a request before processing it
	 */
	public void setRefusalStatuses(Set<Integer> refusalStatuses) {
		this.refusalStatuses = (refusalStatuses != null) ? new LinkedHashSet<>(refusalStatuses) : null;
	}

	/**
	 * Returns the {@code attempt-header} setting: request header carrying each attempt's retry count.
	 * @return the setting, or {@code null} when not set
	 */
	public String getAttemptHeader() {
		return this.attemptHeader;
	}

	/**
	 * Sets the {@code attempt-header} setting.
	 * @param attemptHeader request header carrying each attempt's retry count
	 */
	public void setAttemptHeader(String attemptHeader) {
		this.attemptHeader = attemptHeader;
	}

	/**
	 * Returns the {@code idempotency-key} settings: idempotency keys added to POST and PATCH requests so they can be
	 * retried.
	 * @return the settings, never {@code null}
	 */
	public IdempotencyKey getIdempotencyKey() {
		return this.idempotencyKey;
	}

	/**
	 * Returns the {@code budget} settings: retry budget of the provider: a token bucket shared by every client of the
	 * application.
	 * @return the settings, never {@code null}
	 */
	public Budget getBudget() {
		return this.budget;
	}

	/**
	 * Returns the {@code max-replay-body} setting: largest request body buffered so it can be replayed.
	 * @return the setting, or {@code null} when not set
	 */
	public DataSize getMaxReplayBody() {
		return this.maxReplayBody;
	}

	/**
	 * Sets the {@code max-replay-body} setting.
	 * @param maxReplayBody largest request body buffered so it can be replayed
	 */
	public void setMaxReplayBody(DataSize maxReplayBody) {
		this.maxReplayBody = maxReplayBody;
	}

	/**
	 * Returns the {@code max-drain} setting: most of a failed response's body read before its retry so its connection
	 * can be reused.
	 * @return the setting, or {@code null} when not set
	 */
	public DataSize getMaxDrain() {
		return this.maxDrain;
	}

	/**
	 * Sets the {@code max-drain} setting.
	 * @param maxDrain most of a failed response's body read before its retry so its connection can be reused
	 */
	public void setMaxDrain(DataSize maxDrain) {
		this.maxDrain = maxDrain;
	}

	/**
	 * Returns the {@code pacing} settings: provider pacing: one gate per provider that holds every request while the
	 * provider cools down after a Retry-After, then releases them at an adaptive rate.
	 * @return the settings, never {@code null}
	 */
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

		/**
		 * Returns the {@code enabled} setting: whether to add an idempotency key to POST and PATCH requests, making
		 * them retryable.
		 * @return the setting, or {@code null} when not set
		 */
		public Boolean getEnabled() {
			return this.enabled;
		}

		/**
		 * Sets the {@code enabled} setting.
		 * @param enabled whether to add an idempotency key to POST and PATCH requests, making them retryable
		 */
		public void setEnabled(Boolean enabled) {
			this.enabled = enabled;
		}

		/**
		 * Returns the {@code header} setting: name of the idempotency-key header.
		 * @return the setting, or {@code null} when not set
		 */
		public String getHeader() {
			return this.header;
		}

		/**
		 * Sets the {@code header} setting.
		 * @param header name of the idempotency-key header
		 */
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

		/**
		 * Returns the {@code capacity} setting: number of tokens the bucket holds when full.
		 * @return the setting, or {@code null} when not set
		 */
		public Double getCapacity() {
			return this.capacity;
		}

		/**
		 * Sets the {@code capacity} setting.
		 * @param capacity number of tokens the bucket holds when full
		 */
		public void setCapacity(Double capacity) {
			this.capacity = capacity;
		}

		/**
		 * Returns the {@code deposit-ratio} setting: tokens deposited per successful first attempt.
		 * @return the setting, or {@code null} when not set
		 */
		public Double getDepositRatio() {
			return this.depositRatio;
		}

		/**
		 * Sets the {@code deposit-ratio} setting.
		 * @param depositRatio tokens deposited per successful first attempt
		 */
		public void setDepositRatio(Double depositRatio) {
			this.depositRatio = depositRatio;
		}

		/**
		 * Returns the {@code refill-per-second} setting: tokens added per second whatever the traffic, so a quiet
		 * client can still retry.
		 * @return the setting, or {@code null} when not set
		 */
		public Double getRefillPerSecond() {
			return this.refillPerSecond;
		}

		/**
		 * Sets the {@code refill-per-second} setting.
		 * @param refillPerSecond tokens added per second whatever the traffic, so a quiet client can still retry
		 */
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

}
