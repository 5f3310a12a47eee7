package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

import io.github.retryafter.budget.HintedRetries;

/**
 * The retry settings that can be given globally under {@code retry.after.*} and overridden per provider under
 * {@code retry.after.providers.<name>.*}. Every field is {@code null} until set: a provider inherits each unset field
 * from the global settings, and the global settings from the built-in defaults (listed in docs/properties.md).
 * Each group of settings is a class of its own: {@link SpreadProperties}, {@link BackoffProperties},
 * {@link IdempotencyKeyProperties}, {@link BudgetProperties} and {@link PacingProperties}.
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
	@NestedConfigurationProperty
	private final SpreadProperties spread = new SpreadProperties();

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
	@NestedConfigurationProperty
	private final BackoffProperties backoff = new BackoffProperties();

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
	@NestedConfigurationProperty
	private final IdempotencyKeyProperties idempotencyKey = new IdempotencyKeyProperties();

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
	@NestedConfigurationProperty
	private final BudgetProperties budget = new BudgetProperties();

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
	@NestedConfigurationProperty
	private final PacingProperties pacing = new PacingProperties();

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
	public SpreadProperties getSpread() {
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
	public BackoffProperties getBackoff() {
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
	public IdempotencyKeyProperties getIdempotencyKey() {
		return this.idempotencyKey;
	}

	/**
	 * Returns the {@code budget} settings: retry budget of the provider: a token bucket shared by every client of the
	 * application.
	 * @return the settings, never {@code null}
	 */
	public BudgetProperties getBudget() {
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
	public PacingProperties getPacing() {
		return this.pacing;
	}

}
