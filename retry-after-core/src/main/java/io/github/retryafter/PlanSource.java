package io.github.retryafter;

/**
 * Which field, and which form of it, a plan was computed from: {@code Retry-After} in one of its forms, one of the
 * millisecond fields some providers send beside it, or Google's {@code RetryInfo} in the body (the later instant of
 * those read wins).
 */
public enum PlanSource {

	/** Delay-seconds, measured from receipt of the response. */
	DELAY_SECONDS,

	/** An HTTP-date, measured against the response's own {@code Date}: skew-free. */
	HTTP_DATE,

	/**
	 * An HTTP-date on a response without {@code Date}, measured against the client's wall clock because the caller
	 * asked for it with {@link OnMissingDate#TRUST_CLIENT_CLOCK}: wrong by the full client skew.
	 */
	HTTP_DATE_CLIENT_CLOCK,

	/** {@code retry-after-ms}: milliseconds, measured from receipt of the response. */
	RETRY_AFTER_MS,

	/** {@code x-ms-retry-after-ms}: milliseconds, measured from receipt of the response. */
	X_MS_RETRY_AFTER_MS,

	/** Google's {@code RetryInfo.retryDelay} in a refusal's body: a protobuf duration, measured from receipt. */
	RETRY_INFO,
	/**
	 * An instant an inner retry layer handed on (it read the provider's field, gave up and named the instant),
	 * measured on the wall clock both layers read. It names no field of its own: {@link #field()} reports it as
	 * {@code Retry-After}, the field every layer reads.
	 */
	HANDED_ON;

	/**
	 * Returns the field this source is a form of.
	 * @return {@link HintField#RETRY_AFTER} for its three forms and for an instant handed on, else the field
	 */
	public HintField field() {
		return switch (this) {
			case RETRY_AFTER_MS -> HintField.RETRY_AFTER_MS;
			case X_MS_RETRY_AFTER_MS -> HintField.X_MS_RETRY_AFTER_MS;
			case RETRY_INFO -> HintField.GOOGLE_RETRY_INFO;
			case DELAY_SECONDS, HTTP_DATE, HTTP_DATE_CLIENT_CLOCK, HANDED_ON -> HintField.RETRY_AFTER;
		};
	}

}
