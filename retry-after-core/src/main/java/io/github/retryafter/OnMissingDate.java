package io.github.retryafter;

/**
 * What the planner does with an HTTP-date {@code Retry-After} on a response that carries no {@code Date} field.
 */
public enum OnMissingDate {

	/** Refuse with {@link RetryAfterError#MISSING_DATE_HEADER}: there is no server frame to measure the date in. */
	REFUSE,

	/**
	 * Measure the date against the client's wall clock, accepting an error as large as the client's skew. The plan's
	 * source is then {@link PlanSource#HTTP_DATE_CLIENT_CLOCK}.
	 */
	TRUST_CLIENT_CLOCK

}
