package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import io.github.retryafter.PlannerOptions;
import io.github.retryafter.budget.HintedRetries;
import io.github.retryafter.pacing.PacingSettings;

/**
 * How one client retries: how many attempts, within which deadline, waiting how long in total, for which statuses and
 * methods, and how a {@code Retry-After} hint becomes a wait.
 * <p>
 * Immutable and thread-safe. Build with {@link #builder()} or start from {@link #DEFAULTS} with {@link #toBuilder()};
 * every setter validates eagerly and throws {@link IllegalArgumentException} naming the setting and the bad value.
 * <p>
 * Counting: {@link #maxAttempts()} counts requests, so 4 attempts means 3 retries.
 *
 * @see RetryEngine
 */
public final class RetryPolicy {

	/** The retryable statuses by default: 408, 429, 502, 503, 504. 500 is off unless added. */
	public static final Set<Integer> DEFAULT_RETRYABLE_STATUSES = Set.of(408, 429, 502, 503, 504);

	/** The methods replayed without an idempotency key by default (RFC 9110 §9.2.2): GET, HEAD, OPTIONS, PUT, DELETE. */
	public static final Set<String> DEFAULT_RETRYABLE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE");

	/** The policy with every default; see each accessor for the value. */
	public static final RetryPolicy DEFAULTS = builder().build();

	private final int maxAttempts;

	private final Duration deadline;

	private final Duration attemptTimeout;

	private final Duration minAttemptTime;

	private final Duration deadlineReserve;

	private final Duration totalWait;

	private final Set<Integer> retryableStatuses;

	private final Set<String> retryableMethods;

	private final String idempotencyKeyHeader;

	private final HintMode hintMode;

	private final Duration hintCap;

	private final Backoff backoff;

	private final PlannerOptions planner;

	private final boolean subtractRoundTrip;

	private final PacingSettings pacing;

	private final HintedRetries hintedRetries;

	private final ProviderConventions conventions;

	private final ResponseClassifier customClassifier;

	private final ResponseClassifier classifier;

	private final DeadlineRule deadlineRule;

	RetryPolicy(RetryPolicyBuilder builder) {
		this.maxAttempts = builder.maxAttempts;
		this.deadline = builder.deadline;
		this.attemptTimeout = builder.attemptTimeout;
		this.minAttemptTime = builder.minAttemptTime;
		this.deadlineReserve = builder.deadlineReserve;
		this.totalWait = builder.totalWait;
		this.retryableStatuses = Set.copyOf(builder.retryableStatuses);
		this.retryableMethods = Set.copyOf(builder.retryableMethods);
		this.idempotencyKeyHeader = builder.idempotencyKeyHeader;
		this.hintMode = builder.hintMode;
		this.hintCap = builder.hintCap;
		this.backoff = builder.backoff;
		this.planner = builder.planner;
		this.subtractRoundTrip = builder.subtractRoundTrip;
		this.pacing = builder.pacing;
		this.hintedRetries = builder.hintedRetries;
		this.conventions = builder.conventions;
		this.customClassifier = builder.classifier;
		this.classifier = (builder.classifier != null) ? builder.classifier
				: defaultClassifier(this.conventions.retryable(this.retryableStatuses));
		this.deadlineRule = new DeadlineRule(this.deadlineReserve, this.minAttemptTime, this.attemptTimeout);
	}

	/**
	 * Returns a builder starting from the defaults.
	 * @return a new builder
	 */
	public static RetryPolicyBuilder builder() {
		return new RetryPolicyBuilder();
	}

	/**
	 * Returns a builder starting from this policy. A classifier set explicitly is kept; the default classifier is
	 * rebuilt from the builder's retryable statuses.
	 * @return a new builder
	 */
	public RetryPolicyBuilder toBuilder() {
		return new RetryPolicyBuilder(this);
	}

	/**
	 * Returns the classifier every policy uses unless given its own: a status below 400 is a {@link Classification#SUCCESS}
	 * (a 3xx is the client's business: it is neither followed nor retried), a status in {@code retryableStatuses} is
	 * {@link Classification#RETRYABLE}, any other status is {@link Classification#NOT_RETRYABLE}, and an I/O failure
	 * of any kind is {@link Classification#RETRYABLE}. Whether a retryable outcome may be replayed is decided by the
	 * engine from the method and idempotency key, not here. Wrap it to add a provider's own rules.
	 * @param retryableStatuses the statuses to retry; copied
	 * @return a thread-safe classifier
	 */
	public static ResponseClassifier defaultClassifier(Set<Integer> retryableStatuses) {
		return new StatusClassifier(retryableStatuses);
	}

	/**
	 * Returns the most attempts (requests) one operation makes, counting the first: 4 attempts means 3 retries.
	 * Default 4.
	 * @return at least 1
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Returns the operation's deadline, measured from its start, covering every attempt and every wait. Default 30 s.
	 * @return a positive duration
	 */
	public Duration deadline() {
		return this.deadline;
	}

	/**
	 * Returns the longest one attempt may take. Each attempt is handed {@code min(attemptTimeout, remaining deadline
	 * - deadlineReserve)}. Default 10 s.
	 * @return a positive duration
	 */
	public Duration attemptTimeout() {
		return this.attemptTimeout;
	}

	/**
	 * Returns the shortest attempt worth making: when no more than this is left of the deadline, the operation stops
	 * with {@link Outcome#DEADLINE_EXCEEDED} instead of sending a request doomed to time out, and a retry whose wait
	 * leaves no more than this is refused with {@link Outcome#WAIT_EXCEEDS_DEADLINE}. Default 100 ms.
	 * @return a non-negative duration less than the deadline
	 */
	public Duration minAttemptTime() {
		return this.minAttemptTime;
	}

	/**
	 * Returns the part of the deadline kept back from attempts, so the caller has time to handle a failure before its
	 * own deadline. Default zero.
	 * @return a non-negative duration
	 */
	public Duration deadlineReserve() {
		return this.deadlineReserve;
	}

	/**
	 * Returns what is left of an operation's deadline for attempts at {@code nowNanos}: {@code deadline − now −}
	 * {@link #deadlineReserve()}, saturating at the ends of {@code long}. When it is no more than
	 * {@link #minAttemptTime()}, no attempt is worth making; otherwise an attempt's timeout is at most this.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @param nowNanos now, on the same ticker
	 * @return nanoseconds usable by attempts from now, possibly negative
	 */
	public long availableNanos(long deadlineNanos, long nowNanos) {
		return this.deadlineRule.availableNanos(deadlineNanos, nowNanos);
	}

	/**
	 * Returns the usable end of an operation's deadline: {@code deadline −} {@link #deadlineReserve()} {@code −}
	 * {@link #minAttemptTime()}, saturating at the ends of {@code long}. An attempt (or a retry's wait) must start
	 * before it to leave a useful attempt inside the deadline.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @return the instant on the same ticker before which an attempt must start
	 */
	public long usableEndNanos(long deadlineNanos) {
		return this.deadlineRule.usableEndNanos(deadlineNanos);
	}

	/** The deadline rule of these settings, which both sides of an attempt ask. */
	DeadlineRule deadlineRule() {
		return this.deadlineRule;
	}

	/**
	 * Returns the most waiting between attempts one operation may do; a retry whose wait would take the total past
	 * it is refused with {@link Outcome#TOTAL_WAIT_EXCEEDED}. Default 30 s.
	 * @return a non-negative duration
	 */
	public Duration totalWait() {
		return this.totalWait;
	}

	/**
	 * Returns the statuses the default classifier retries. Default 408, 429, 502, 503, 504; 500 is off unless added.
	 * @return an immutable set of 4xx and 5xx codes
	 */
	public Set<Integer> retryableStatuses() {
		return this.retryableStatuses;
	}

	/**
	 * Returns the methods replayed without an idempotency key. Any other method (POST, PATCH by default) is replayed
	 * only when the request carries an idempotency key. Default GET, HEAD, OPTIONS, PUT, DELETE.
	 * @return an immutable set of upper-case method names
	 */
	public Set<String> retryableMethods() {
		return this.retryableMethods;
	}

	/**
	 * Returns the request header that carries the idempotency key. Default {@code Idempotency-Key}.
	 * @return a header name
	 */
	public String idempotencyKeyHeader() {
		return this.idempotencyKeyHeader;
	}

	/**
	 * Returns how a {@code Retry-After} floor becomes a wait. Default {@link HintMode#FLOOR_PLUS_JITTER}.
	 * @return the mode
	 */
	public HintMode hintMode() {
		return this.hintMode;
	}

	/**
	 * Returns the largest hinted wait in {@link HintMode#CAPPED} mode; ignored by every other mode. Default 30 s.
	 * @return a non-negative duration
	 */
	public Duration hintCap() {
		return this.hintCap;
	}

	/**
	 * Returns the fallback backoff used when there is no usable {@code Retry-After}. Default 100 ms doubling to 10 s.
	 * @return the backoff
	 */
	public Backoff backoff() {
		return this.backoff;
	}

	/**
	 * Returns the planner's options. Default {@link PlannerOptions#DEFAULTS} with a max wait of 30 s, so a server asking
	 * for more stops the operation with {@link Outcome#WAIT_TOO_LONG}.
	 * @return the options
	 */
	public PlannerOptions planner() {
		return this.planner;
	}

	/**
	 * Returns whether the measured round trip is counted in the response's age (see
	 * {@link io.github.retryafter.PlanRequest}). Default {@code false}: RFC 9110 measures delay-seconds from receipt.
	 * @return whether to subtract the round trip
	 */
	public boolean subtractRoundTrip() {
		return this.subtractRoundTrip;
	}

	/**
	 * Returns how requests to the provider are paced: the gate that holds them while the provider cools down after a
	 * {@code Retry-After}, and the adaptive rate that releases them afterwards. Default {@link PacingSettings#OFF} in the
	 * core, so an engine behaves as each operation's own decisions say unless pacing is asked for; the Spring Boot
	 * starter turns it on ({@link PacingSettings#DEFAULTS}).
	 * @return the pacing settings
	 */
	public PacingSettings pacing() {
		return this.pacing;
	}

	/**
	 * Returns whether a retry the provider asked for draws on the retry budget: with {@link HintedRetries#PACED} (the
	 * default) and pacing on, a retry whose wait a usable {@code Retry-After} set takes no token.
	 * @return the rule
	 */
	public HintedRetries hintedRetries() {
		return this.hintedRetries;
	}

	/**
	 * Returns the provider's conventions: refusals retried for any method, the attempt header. Default none.
	 * @return the conventions
	 */
	public ProviderConventions conventions() {
		return this.conventions;
	}

	/**
	 * Returns the classifier: the one set explicitly, or {@link #defaultClassifier(Set)} over
	 * {@link #retryableStatuses()} and, when refusals are retried, the conventions' refusal statuses.
	 * @return the classifier
	 */
	public ResponseClassifier classifier() {
		return this.classifier;
	}

	/** The classifier set explicitly on the builder, {@code null} when the default one is used. */
	ResponseClassifier customClassifier() {
		return this.customClassifier;
	}

	/**
	 * Returns whether {@code method} may be replayed without an idempotency key.
	 * @param method an HTTP method, any case
	 * @return whether it is in {@link #retryableMethods()}
	 */
	public boolean isRetryableMethod(String method) {
		return this.retryableMethods.contains(method.toUpperCase(Locale.ROOT));
	}

	@Override
	public String toString() {
		return "RetryPolicy[maxAttempts=" + this.maxAttempts + ", deadline=" + this.deadline + ", attemptTimeout="
				+ this.attemptTimeout + ", minAttemptTime=" + this.minAttemptTime + ", deadlineReserve="
				+ this.deadlineReserve + ", totalWait=" + this.totalWait + ", retryableStatuses="
				+ new TreeSet<>(this.retryableStatuses) + ", retryableMethods=" + new TreeSet<>(this.retryableMethods)
				+ ", idempotencyKeyHeader=" + this.idempotencyKeyHeader + ", hintMode=" + this.hintMode + ", hintCap="
				+ this.hintCap + ", backoff=" + this.backoff + ", planner=" + this.planner + ", subtractRoundTrip="
				+ this.subtractRoundTrip + ", pacing=" + this.pacing + ", hintedRetries=" + this.hintedRetries
				+ ", conventions=" + this.conventions + ", classifier=" + ((this.customClassifier != null) ? "custom" : "default") + "]";
	}

}
