package io.github.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
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
 * @param passedOver the other wait fields the response carried and what each said, when the plan's {@code source}
 * won over them (the later instant wins) or they were refused; empty with one wait field
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public record RetryPlan(Duration waitTime, Duration floor, Duration jitter, Duration spread, PlanSource source,
		Duration instructed, Duration age, boolean ageIgnored, Optional<Duration> skew, boolean clampedToZero,
		long deadlineNanos, Instant estimatedWallAt, List<PassedOver> passedOver) {

	/**
	 * Checks the arguments and copies the list.
	 * @param waitTime what to actually wait, from the moment the response arrived
	 * @param floor the server's instructed minimum after age was taken off
	 * @param jitter what was added on top of the floor
	 * @param spread the width of the window the jitter was drawn from
	 * @param source which field and form the plan came from
	 * @param instructed the wait the server instructed, before the response's age was taken off
	 * @param age how old the response already was when it arrived
	 * @param ageIgnored whether an {@code Age} field was present but unusable
	 * @param skew the server's {@code Date} minus the client's wall clock at receipt
	 * @param clampedToZero whether the floor came out negative and was clamped to zero
	 * @param deadlineNanos the {@link Ticker} reading at which the wait is over
	 * @param estimatedWallAt roughly when the retry is due on the wall clock, for logs only
	 * @param passedOver the other wait fields the response carried and what each said
	 */
	public RetryPlan {
		passedOver = List.copyOf(passedOver);
	}

	/**
	 * A plan from a single wait field.
	 * @param waitTime what to actually wait, from the moment the response arrived
	 * @param floor the server's instructed minimum after age was taken off
	 * @param jitter what was added on top of the floor
	 * @param spread the width of the window the jitter was drawn from
	 * @param source which field and form the plan came from
	 * @param instructed the wait the server instructed, before the response's age was taken off
	 * @param age how old the response already was when it arrived
	 * @param ageIgnored whether an {@code Age} field was present but unusable
	 * @param skew the server's {@code Date} minus the client's wall clock at receipt
	 * @param clampedToZero whether the floor came out negative and was clamped to zero
	 * @param deadlineNanos the {@link Ticker} reading at which the wait is over
	 * @param estimatedWallAt roughly when the retry is due on the wall clock, for logs only
	 */
	public RetryPlan(Duration waitTime, Duration floor, Duration jitter, Duration spread, PlanSource source,
			Duration instructed, Duration age, boolean ageIgnored, Optional<Duration> skew, boolean clampedToZero,
			long deadlineNanos, Instant estimatedWallAt) {
		this(waitTime, floor, jitter, spread, source, instructed, age, ageIgnored, skew, clampedToZero, deadlineNanos,
				estimatedWallAt, List.of());
	}

	/** The precision of an HTTP-date, and so of a skew measured against one: one second. */
	public static final Duration DATE_PRECISION = Duration.ofSeconds(1);

	/**
	 * Returns whether the measured skew is within the {@code Date} field's one-second precision: the server's clock
	 * and ours agree as far as an HTTP-date can tell, and the figure is the field's truncation, not skew.
	 * @return {@code true} when a skew was measured and its magnitude is below one second
	 */
	public boolean skewWithinDatePrecision() {
		return this.skew.isPresent() && this.skew.get().abs().compareTo(DATE_PRECISION) < 0;
	}

	/**
	 * Returns how much of the wait is left at the ticker reading {@code nowNanos}, never negative.
	 * @param nowNanos a reading of the same ticker the plan was made with
	 * @return the remaining wait
	 */
	public Duration remainingAt(long nowNanos) {
		long remaining = this.deadlineNanos - nowNanos;
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	/**
	 * Another wait field on the same response, and what it said: the wait it instructed (shorter than the plan's, or
	 * equal and later in the reading order), or why it was refused. Immutable.
	 *
	 * @param field the field
	 * @param instructed the wait it instructed, before age; empty when it was refused
	 * @param refused why it was refused; empty when it was usable
	 */
	public record PassedOver(HintField field, Optional<Duration> instructed, Optional<RetryAfterError> refused) {

		/**
		 * Checks the arguments.
		 * @param field the field
		 * @param instructed the wait it instructed, before age; empty when it was refused
		 * @param refused why it was refused; empty when it was usable
		 */
		public PassedOver {
			Objects.requireNonNull(field, "field");
			Objects.requireNonNull(instructed, "instructed");
			Objects.requireNonNull(refused, "refused");
		}

	}

}
