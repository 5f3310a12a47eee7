package io.github.retryafter;

import java.util.List;

/**
 * A group of response fields the hint room can read, named so that which fields a provider's responses are read for is
 * data ({@link HintFields}): a field outside the set is never read, however the response spells it. Header field names
 * are matched case-insensitively, as HTTP does; a body field ({@link #inBody()}) is read from a bounded prefix of a
 * refusal's body.
 */
public enum HintField {

	/** {@code Retry-After}: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
	RETRY_AFTER("Retry-After"),

	/** {@code retry-after-ms}: a wait in milliseconds (OpenAI, Azure). */
	RETRY_AFTER_MS("retry-after-ms"),

	/** {@code x-ms-retry-after-ms}: a wait in milliseconds (Azure). */
	X_MS_RETRY_AFTER_MS("x-ms-retry-after-ms"),

	/** {@code x-should-retry}: {@code true} or {@code false}, the provider's say on retrying (OpenAI, Anthropic). */
	X_SHOULD_RETRY("x-should-retry"),

	/** {@code Stripe-Should-Retry}: {@code true} or {@code false}, overriding the status (Stripe). */
	STRIPE_SHOULD_RETRY("Stripe-Should-Retry"),

	/**
	 * Google's {@code google.rpc.RetryInfo} in a refusal's JSON body (Gemini, Google Cloud APIs): the detail of
	 * {@code error.details[]} whose {@code @type} is {@code type.googleapis.com/google.rpc.RetryInfo}, its
	 * {@code retryDelay} a protobuf duration ({@code "27s"}, {@code "3.700s"}). The one group read from the body
	 * ({@link #inBody()}), through a {@link BodySource}.
	 */
	GOOGLE_RETRY_INFO("google.rpc.RetryInfo"),

	/**
	 * The rate-limit families read today: {@code RateLimit}/{@code RateLimit-Policy}, the draft's trio and the
	 * {@code X-RateLimit-*} trio (whose reset may be epoch seconds, as GitHub sends it).
	 */
	RATE_LIMIT("RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
			"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"),

	/** OpenAI's request and token windows, resets as Go durations ({@code 6m0s}). */
	OPENAI_WINDOWS("x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
			"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),

	/** Anthropic's request and token windows, resets as RFC 3339 instants. */
	ANTHROPIC_WINDOWS("anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining",
			"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-limit",
			"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset",
			"anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining",
			"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-output-tokens-limit",
			"anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset");

	private final List<String> names;

	HintField(String... names) {
		this.names = List.of(names);
	}

	/**
	 * Returns the names of the response fields this group reads, as providers spell them (a body field's is the
	 * message type it reads).
	 * @return the names
	 */
	public List<String> names() {
		return this.names;
	}

	/**
	 * Returns whether the group is read from the response's body rather than its header fields.
	 * @return {@code true} for {@link #GOOGLE_RETRY_INFO}
	 */
	public boolean inBody() {
		return this == GOOGLE_RETRY_INFO;
	}

}
