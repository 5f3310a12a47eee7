package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.github.retryafter.PlannerOptions;
import io.github.retryafter.budget.HintedRetries;
import io.github.retryafter.pacing.PacingSettings;

/**
 * Builds a {@link RetryPolicy}, from the defaults ({@link RetryPolicy#builder()}) or from a policy
 * ({@link RetryPolicy#toBuilder()}). Each setter validates its argument at once and throws
 * {@link IllegalArgumentException} naming the setting and the bad value; {@link #build()} checks the settings against
 * each other. Not thread-safe.
 */
public final class RetryPolicyBuilder {

	// the defaults, as each accessor of the policy states them
	int maxAttempts = 4;
	Duration deadline = Duration.ofSeconds(30);
	Duration attemptTimeout = Duration.ofSeconds(10);
	Duration minAttemptTime = Duration.ofMillis(100);
	Duration deadlineReserve = Duration.ZERO;
	Duration totalWait = Duration.ofSeconds(30);
	Set<Integer> retryableStatuses = new TreeSet<>(RetryPolicy.DEFAULT_RETRYABLE_STATUSES);
	Set<String> retryableMethods = new TreeSet<>(RetryPolicy.DEFAULT_RETRYABLE_METHODS);
	String idempotencyKeyHeader = "Idempotency-Key";
	HintMode hintMode = HintMode.FLOOR_PLUS_JITTER;
	Duration hintCap = Duration.ofSeconds(30);
	Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));
	PlannerOptions planner = PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).build();
	boolean subtractRoundTrip;
	PacingSettings pacing = PacingSettings.OFF;
	HintedRetries hintedRetries = HintedRetries.PACED;
	ProviderConventions conventions = ProviderConventions.NONE;
	ResponseClassifier classifier;

	RetryPolicyBuilder() {
	}

	/** A builder holding {@code policy}'s settings: a classifier set explicitly is kept, the default one is not. */
	RetryPolicyBuilder(RetryPolicy policy) {
		this.maxAttempts = policy.maxAttempts();
		this.deadline = policy.deadline();
		this.attemptTimeout = policy.attemptTimeout();
		this.minAttemptTime = policy.minAttemptTime();
		this.deadlineReserve = policy.deadlineReserve();
		this.totalWait = policy.totalWait();
		this.retryableStatuses = new TreeSet<>(policy.retryableStatuses());
		this.retryableMethods = new TreeSet<>(policy.retryableMethods());
		this.idempotencyKeyHeader = policy.idempotencyKeyHeader();
		this.hintMode = policy.hintMode();
		this.hintCap = policy.hintCap();
		this.backoff = policy.backoff();
		this.planner = policy.planner();
		this.subtractRoundTrip = policy.subtractRoundTrip();
		this.pacing = policy.pacing();
		this.hintedRetries = policy.hintedRetries();
		this.conventions = policy.conventions();
		this.classifier = policy.customClassifier();
	}

	/**
	 * Sets the most attempts, counting the first: 4 attempts means 3 retries, 1 means no retry.
	 * @param maxAttempts at least 1
	 * @return this builder
	 * @throws IllegalArgumentException if less than 1
	 */
	public RetryPolicyBuilder maxAttempts(int maxAttempts) {
		this.maxAttempts = PolicyChecks.maxAttempts(maxAttempts);
		return this;
	}

	/**
	 * Sets the operation's deadline from its start.
	 * @param deadline a positive duration
	 * @return this builder
	 * @throws IllegalArgumentException if not positive
	 */
	public RetryPolicyBuilder deadline(Duration deadline) {
		this.deadline = PolicyChecks.positive("deadline", deadline);
		return this;
	}

	/**
	 * Sets the longest one attempt may take.
	 * @param attemptTimeout a positive duration
	 * @return this builder
	 * @throws IllegalArgumentException if not positive
	 */
	public RetryPolicyBuilder attemptTimeout(Duration attemptTimeout) {
		this.attemptTimeout = PolicyChecks.positive("attemptTimeout", attemptTimeout);
		return this;
	}

	/**
	 * Sets the shortest attempt worth making.
	 * @param minAttemptTime a non-negative duration
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryPolicyBuilder minAttemptTime(Duration minAttemptTime) {
		this.minAttemptTime = PolicyChecks.nonNegative("minAttemptTime", minAttemptTime);
		return this;
	}

	/**
	 * Sets the part of the deadline kept back from attempts.
	 * @param deadlineReserve a non-negative duration
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryPolicyBuilder deadlineReserve(Duration deadlineReserve) {
		this.deadlineReserve = PolicyChecks.nonNegative("deadlineReserve", deadlineReserve);
		return this;
	}

	/**
	 * Sets the most waiting between attempts one operation may do.
	 * @param totalWait a non-negative duration
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryPolicyBuilder totalWait(Duration totalWait) {
		this.totalWait = PolicyChecks.nonNegative("totalWait", totalWait);
		return this;
	}

	/**
	 * Sets the statuses the default classifier retries (replacing the defaults).
	 * @param statuses 4xx and 5xx codes
	 * @return this builder
	 * @throws IllegalArgumentException if a status is outside 400–599
	 */
	public RetryPolicyBuilder retryableStatuses(Collection<Integer> statuses) {
		this.retryableStatuses = PolicyChecks.statuses(statuses);
		return this;
	}

	/**
	 * Sets the methods replayed without an idempotency key (replacing the defaults); names are upper-cased.
	 * @param methods method names
	 * @return this builder
	 * @throws IllegalArgumentException if a name is blank or not an HTTP token
	 */
	public RetryPolicyBuilder retryableMethods(Collection<String> methods) {
		this.retryableMethods = PolicyChecks.methods(methods);
		return this;
	}

	/**
	 * Sets the request header carrying the idempotency key.
	 * @param idempotencyKeyHeader an HTTP field name
	 * @return this builder
	 * @throws IllegalArgumentException if blank or not an HTTP token
	 */
	public RetryPolicyBuilder idempotencyKeyHeader(String idempotencyKeyHeader) {
		this.idempotencyKeyHeader = PolicyChecks.fieldName(idempotencyKeyHeader);
		return this;
	}

	/**
	 * Sets how a {@code Retry-After} floor becomes a wait.
	 * @param hintMode the mode
	 * @return this builder
	 */
	public RetryPolicyBuilder hintMode(HintMode hintMode) {
		this.hintMode = Objects.requireNonNull(hintMode, "hintMode");
		return this;
	}

	/**
	 * Sets the largest hinted wait in {@link HintMode#CAPPED} mode.
	 * @param hintCap a non-negative duration
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryPolicyBuilder hintCap(Duration hintCap) {
		this.hintCap = PolicyChecks.nonNegative("hintCap", hintCap);
		return this;
	}

	/**
	 * Sets the fallback backoff.
	 * @param backoff the backoff
	 * @return this builder
	 */
	public RetryPolicyBuilder backoff(Backoff backoff) {
		this.backoff = Objects.requireNonNull(backoff, "backoff");
		return this;
	}

	/**
	 * Sets the planner's options.
	 * @param planner the options
	 * @return this builder
	 */
	public RetryPolicyBuilder planner(PlannerOptions planner) {
		this.planner = Objects.requireNonNull(planner, "planner");
		return this;
	}

	/**
	 * Sets whether the measured round trip counts in the response's age.
	 * @param subtractRoundTrip whether to subtract it
	 * @return this builder
	 */
	public RetryPolicyBuilder subtractRoundTrip(boolean subtractRoundTrip) {
		this.subtractRoundTrip = subtractRoundTrip;
		return this;
	}

	/**
	 * Sets how requests are paced per provider.
	 * @param pacing the pacing settings; {@link PacingSettings#OFF} for none
	 * @return this builder
	 */
	public RetryPolicyBuilder pacing(PacingSettings pacing) {
		this.pacing = Objects.requireNonNull(pacing, "pacing");
		return this;
	}

	/**
	 * Sets whether a retry the provider asked for, held by its gate, draws on the retry budget.
	 * @param hintedRetries {@link HintedRetries#PACED} (the default) or {@link HintedRetries#TOKENS}
	 * @return this builder
	 */
	public RetryPolicyBuilder hintedRetries(HintedRetries hintedRetries) {
		this.hintedRetries = Objects.requireNonNull(hintedRetries, "hintedRetries");
		return this;
	}

	/**
	 * Sets the provider's conventions: refusals retried for any method, the attempt header.
	 * @param conventions the conventions; {@link ProviderConventions#NONE} for none
	 * @return this builder
	 */
	public RetryPolicyBuilder conventions(ProviderConventions conventions) {
		this.conventions = Objects.requireNonNull(conventions, "conventions");
		return this;
	}

	/**
	 * Sets the classifier, replacing the default one over the retryable statuses.
	 * @param classifier the classifier, or {@code null} to go back to the default
	 * @return this builder
	 */
	public RetryPolicyBuilder classifier(ResponseClassifier classifier) {
		this.classifier = classifier;
		return this;
	}

	/**
	 * Builds the policy, checking the settings against each other.
	 * @return the policy
	 * @throws IllegalArgumentException if {@code minAttemptTime + deadlineReserve} leaves nothing of the deadline
	 */
	public RetryPolicy build() {
		PolicyChecks.leavesAnAttempt(this.minAttemptTime, this.deadlineReserve, this.deadline);
		return new RetryPolicy(this);
	}

}
