package io.github.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A wait computed from a response's {@code Retry-After}, with every number the decision was made from.
 * <p>
 * Invariants: {@code 0 <= floor <= waitTime}, {@code waitTime = floor + jitter}, {@code 0 <= jitter < spread} (or zero when
 * jitter is off), all at millisecond precision. The real deadline is {@link #deadlineNanos()} on the monotonic
 * {@link Ticker}; {@link #estimatedWallAt()} exists for log lines only and must never be compared against.
 *
 * @param waitTime what to actually wait, from the moment the response arrived (named {@code waitTime} because a
 * record component cannot be called {@code wait})
 * @param floor the server's instructed minimum after age was taken off; never retry before this
 * @param jitter what was added on top of the floor, never subtracted
 * @param spread the width of the window the jitter was drawn from
 * @param source which form of {@code Retry-After} the plan came from
 * @param instructed the wait the server instructed, before the response's age was taken off
 * @param age how old the response already was when it arrived ({@code Age} plus the measured round trip, if given)
 * @param ageIgnored whether an {@code Age} field was present but not valid delta-seconds, and so counted as zero
 * @param skew the server's {@code Date} minus the client's wall clock at receipt; reported for observability, used by
 * nothing; empty when the response has no usable {@code Date}
 * @param clampedToZero whether the floor came out negative and was clamped to zero: the age consumed the whole
 * instruction, or the date was up to one second before the response's {@code Date} (or, trusting the client clock,
 * already past on it)
 * @param deadlineNanos the {@link Ticker} reading at which the wait is over: response received plus {@code wait}
 * @param estimatedWallAt roughly when the retry is due on the wall clock, for logs only
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public record RetryPlan(Duration waitTime, Duration floor, Duration jitter, Duration spread, PlanSource source,
		Duration instructed, Duration age, boolean ageIgnored, Optional<Duration> skew, boolean clampedToZero,
		long deadlineNanos, Instant estimatedWallAt) {

	/**
	 * Returns how much of the wait is left at the ticker reading {@code nowNanos}, never negative.
	 * @param nowNanos a reading of the same ticker the plan was made with
	 * @return the remaining wait
	 */
	public Duration remainingAt(long nowNanos) {
		long remaining = this.deadlineNanos - nowNanos;
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

}
