package io.github.retryafter;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the planner needs to know about one response besides its headers: which attempt it answered, the jitter key,
 * and optionally when the request left and the response arrived on the monotonic {@link Ticker}.
 * <p>
 * The two instants go together: give both to have the round trip counted in the response's age, or neither (then the
 * response counts as received when {@link io.github.retryafter.hint.RetryAfterPlanner#plan} is called). Giving only
 * one is refused with {@link RetryAfterError#HALF_MEASURED_ROUND_TRIP}, because a half-measured round trip makes the
 * wait wrong by an unknown amount. Note that RFC 9110 measures delay-seconds from receipt: subtracting the request leg can land a retry a few
 * milliseconds early, which is why callers opt in to the round-trip term.
 *
 * @param attempt the attempt number (1 for the first request) whose response is being planned
 * @param jitterKey the identity used by {@link JitterMode#KEYED}; empty otherwise
 * @param requestSentNanos the ticker reading when the request was sent
 * @param responseReceivedNanos the ticker reading when the response arrived
 */
public record PlanRequest(int attempt, Optional<String> jitterKey, OptionalLong requestSentNanos,
		OptionalLong responseReceivedNanos) {

	/**
	 * Creates a request, checking that the attempt number is at least 1.
	 * @param attempt the attempt number (1 for the first request) whose response is being planned
	 * @param jitterKey the identity used by {@link JitterMode#KEYED}; empty otherwise
	 * @param requestSentNanos the ticker reading when the request was sent
	 * @param responseReceivedNanos the ticker reading when the response arrived
	 */
	public PlanRequest {
		if (attempt < 1) {
			throw new IllegalArgumentException("attempt must be at least 1 but was " + attempt);
		}
	}

	/**
	 * Returns a request for attempt {@code attempt} with no jitter key and no round-trip measurement.
	 * @param attempt the attempt number, from 1
	 * @return a new request
	 */
	public static PlanRequest forAttempt(int attempt) {
		return new PlanRequest(attempt, Optional.empty(), OptionalLong.empty(), OptionalLong.empty());
	}

	/**
	 * Returns a copy with the given jitter key.
	 * @param key the key, or {@code null} for none
	 * @return a new request
	 */
	public PlanRequest withJitterKey(String key) {
		return new PlanRequest(this.attempt, Optional.ofNullable(key), this.requestSentNanos, this.responseReceivedNanos);
	}

	/**
	 * Returns a copy with the request-sent instant.
	 * @param nanos the ticker reading when the request was sent
	 * @return a new request
	 */
	public PlanRequest withRequestSentAt(long nanos) {
		return new PlanRequest(this.attempt, this.jitterKey, OptionalLong.of(nanos), this.responseReceivedNanos);
	}

	/**
	 * Returns a copy with the response-received instant.
	 * @param nanos the ticker reading when the response arrived
	 * @return a new request
	 */
	public PlanRequest withResponseReceivedAt(long nanos) {
		return new PlanRequest(this.attempt, this.jitterKey, this.requestSentNanos, OptionalLong.of(nanos));
	}

	/**
	 * Returns a copy with both round-trip instants.
	 * @param sentNanos the ticker reading when the request was sent
	 * @param receivedNanos the ticker reading when the response arrived
	 * @return a new request
	 */
	public PlanRequest withRoundTrip(long sentNanos, long receivedNanos) {
		return withRequestSentAt(sentNanos).withResponseReceivedAt(receivedNanos);
	}

}
