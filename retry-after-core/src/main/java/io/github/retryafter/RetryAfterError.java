package io.github.retryafter;

/**
 * Why a {@code Retry-After} field (or the response around it) could not be turned into a wait. When several apply, the
 * first in declaration order is reported, with one exception: {@link #HALF_MEASURED_ROUND_TRIP} is checked before
 * {@link #TOO_LONG}, because the age it would measure is taken off the floor that {@code TOO_LONG} judges.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public enum RetryAfterError {

	/** The field is present but empty; an empty field is not zero ({@code 0} is). */
	EMPTY,

	/** Two {@code Retry-After} fields, or a comma list in one: a singleton field some hop appended to. */
	MULTIPLE_VALUES,

	/** Delay-seconds that are negative, signed, fractional, in exponent form, non-ASCII digits or words. */
	INVALID_DELAY,

	/**
	 * A date matching none of IMF-fixdate, RFC 850 and asctime, including lowercased or translated names, a date
	 * without its day name ({@code 04 Aug 2026 12:00:30 GMT}) and a date in double or single quotes.
	 */
	MALFORMED_DATE,

	/** A date whose zone is not literally {@code GMT} ({@code UTC}, {@code +0000}, {@code EST}, {@code Z}). */
	NON_GMT_ZONE,

	/** A date that does not exist: 31 February, 29 February in a common year, hour 24, minute 60, second 61. */
	NONEXISTENT_DATE,

	/** The day name disagrees with the calendar date, so one half of the date is corrupt. */
	DAY_NAME_MISMATCH,

	/** An HTTP-date {@code Retry-After} on a response with no {@code Date} field. */
	MISSING_DATE_HEADER,

	/** The response's {@code Date} field is empty, repeated or fails the same strict parse. */
	MALFORMED_DATE_HEADER,

	/** A {@code Retry-After} instant more than one second before the response's own {@code Date}. */
	STALE_DATE,

	/** A valid instruction to wait longer than the configured maximum; it is refused, never clamped. */
	TOO_LONG,

	/** Only one of the request-sent and response-received instants was given. */
	HALF_MEASURED_ROUND_TRIP,

	/** The random source returned {@code NaN}, a negative number or a number {@code >= 1}. */
	INVALID_RANDOM,

	/**
	 * {@code x-should-retry} or {@code Stripe-Should-Retry} is empty, repeated, or neither {@code true} nor
	 * {@code false}; it is treated as absent, so the status decides.
	 */
	INVALID_SHOULD_RETRY,

	/**
	 * A refusal's body names Google's {@code RetryInfo} (or a {@code retryDelay}) but is not the error Google sends:
	 * not JSON, the {@code RetryInfo} outside {@code error.details[]}, without a {@code retryDelay}, nested too deep,
	 * or unreadable. Treated as absent.
	 */
	MALFORMED_BODY,

	/**
	 * A refusal's body names Google's {@code RetryInfo} but is longer than the bound read
	 * ({@link BodySource#MAX_BYTES}), so its JSON is cut before it closes. Treated as absent.
	 */
	BODY_TRUNCATED

}
