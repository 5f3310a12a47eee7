package io.github.retryafter;

/**
 * Which form of {@code Retry-After} a plan was computed from.
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
	HTTP_DATE_CLIENT_CLOCK

}
