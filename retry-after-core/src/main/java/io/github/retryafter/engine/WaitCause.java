package io.github.retryafter.engine;

import io.github.retryafter.PlanSource;

/**
 * Why an operation waited between two of its attempts: a field the provider sent, the provider's gate, the retry
 * budget, or the client's own backoff. A closed set, fit for a metric tag ({@link #tagValue()}); which part of a wait
 * gives it its cause is {@link WaitedEvent}'s rule.
 */
public enum WaitCause {

	/** {@code Retry-After}, as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3). */
	RETRY_AFTER("retry-after"),

	/** {@code retry-after-ms} (OpenAI, Azure). */
	RETRY_AFTER_MS("retry-after-ms"),

	/** {@code x-ms-retry-after-ms} (Azure). */
	X_MS_RETRY_AFTER_MS("x-ms-retry-after-ms"),

	/** Google's {@code RetryInfo} in a refusal's body (Gemini). */
	RETRY_INFO("retry-info"),

	/**
	 * A rate-limit window's reset: the response said a window has nothing left ({@code X-RateLimit-*},
	 * {@code RateLimit}, OpenAI's or Anthropic's windows) and the provider's gate held the request until it resets.
	 */
	WINDOW_RESET("window-reset"),

	/** The provider's gate, closed by a response this operation did not get (another operation's, or the fleet's). */
	COOLDOWN("cooldown"),

	/** The gate's cooldown was over and the request waited for the answer of the one request probing the provider. */
	PROBE("probe"),

	/** A slot in the provider's adaptive rate. */
	RATE("rate"),

	/** The retry budget was empty and the retry waited for a token held by retries in flight. */
	BUDGET("budget"),

	/** The client's own backoff: no field of the response named a wait. */
	BACKOFF("backoff");

	private final String tagValue;

	WaitCause(String tagValue) {
		this.tagValue = tagValue;
	}

	/**
	 * Returns the cause as a metric tag value: lower case, words joined by {@code -} ({@code window-reset}), the
	 * provider fields spelled as the {@code hint-fields} setting spells them.
	 * @return the tag value
	 */
	public String tagValue() {
		return this.tagValue;
	}

	/**
	 * Returns the cause of a wait planned from a provider's wait field.
	 * @param source the field and form the plan came from
	 * @return {@link #RETRY_AFTER} for its three forms and for an instant an inner layer handed on (which names no
	 * field of its own), else the field's own cause
	 */
	public static WaitCause of(PlanSource source) {
		return switch (source) {
			case DELAY_SECONDS, HTTP_DATE, HTTP_DATE_CLIENT_CLOCK, HANDED_ON -> RETRY_AFTER;
			case RETRY_AFTER_MS -> RETRY_AFTER_MS;
			case X_MS_RETRY_AFTER_MS -> X_MS_RETRY_AFTER_MS;
			case RETRY_INFO -> RETRY_INFO;
		};
	}

}
