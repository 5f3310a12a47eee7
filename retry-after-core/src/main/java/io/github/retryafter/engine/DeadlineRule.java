package io.github.retryafter.engine;

import java.time.Duration;

import io.github.retryafter.internal.Saturating;

/**
 * The deadline rule of a {@link RetryPolicy}, written once: what is left of an operation's deadline for attempts at
 * a ticker reading ({@code deadline − now −} {@link RetryPolicy#deadlineReserve()}), whether that leaves a useful
 * attempt (more than {@link RetryPolicy#minAttemptTime()}), the last instant an attempt or a retry's wait may start,
 * and the time an attempt is given. Every sum and difference saturates at the ends of {@code long}, so a deadline of
 * centuries (a {@code Long.MAX_VALUE} ticker reading) or a ticker reading below zero compares the right way. Before
 * an attempt ({@link AttemptJudge#beforeAttempt}), after one ({@link AttemptJudge#judge}) and in an attempt's record
 * it is this rule that is asked.
 * <p>
 * Immutable and thread-safe; nothing here allocates except a {@code Duration} for an attempt given less than the
 * whole attempt timeout.
 */
final class DeadlineRule {

	private final long reserveNanos;

	private final long minAttemptNanos;

	/** {@code deadlineReserve + minAttemptTime}, saturated. */
	private final long reservedNanos;

	private final Duration attemptTimeout;

	private final long attemptTimeoutNanos;

	DeadlineRule(Duration deadlineReserve, Duration minAttemptTime, Duration attemptTimeout) {
		this.reserveNanos = Saturating.toNanos(deadlineReserve);
		this.minAttemptNanos = Saturating.toNanos(minAttemptTime);
		this.reservedNanos = Saturating.add(this.reserveNanos, this.minAttemptNanos);
		this.attemptTimeout = attemptTimeout;
		this.attemptTimeoutNanos = Saturating.toNanos(attemptTimeout);
	}

	/**
	 * What is left of the deadline for attempts at {@code nowNanos}: {@code deadline − now − reserve}, saturated.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @param nowNanos now, on the same ticker
	 * @return nanoseconds usable by attempts from now, possibly negative
	 */
	long availableNanos(long deadlineNanos, long nowNanos) {
		return Saturating.subtract(Saturating.subtract(deadlineNanos, nowNanos), this.reserveNanos);
	}

	/**
	 * Whether {@code availableNanos} leave an attempt worth making: more than the minimum useful attempt.
	 * @param availableNanos what {@link #availableNanos} answered
	 * @return {@code false} when the operation ends {@link Outcome#DEADLINE_EXCEEDED}
	 */
	boolean leavesAnAttempt(long availableNanos) {
		return availableNanos > this.minAttemptNanos;
	}

	/**
	 * The usable end of the deadline: {@code deadline − reserve − minAttemptTime}, saturated. An attempt, or the end of
	 * a retry's wait, must come before it to leave a useful attempt inside the deadline.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @return the ticker reading before which an attempt must start
	 */
	long usableEndNanos(long deadlineNanos) {
		return Saturating.subtract(deadlineNanos, this.reservedNanos);
	}

	/**
	 * The last ticker reading an attempt may start at, and a retry's wait end at: one before {@link #usableEndNanos}.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @return the latest start, saturated
	 */
	long latestStartNanos(long deadlineNanos) {
		return Saturating.subtract(usableEndNanos(deadlineNanos), 1);
	}

	/**
	 * The policy's bound on an attempt given {@code availableNanos}: {@code min(attemptTimeout, available)}, in
	 * nanoseconds (how long a provider's gate waits for a probe's answer).
	 * @param availableNanos what {@link #availableNanos} answered
	 * @return the bound in nanoseconds
	 */
	long attemptTimeoutNanos(long availableNanos) {
		return Math.min(this.attemptTimeoutNanos, availableNanos);
	}

	/**
	 * The time an attempt starting with {@code availableNanos} left is given: with the client's own timeouts all of it
	 * (none below zero), otherwise {@code min(attemptTimeout, available)}, the policy's own {@code Duration} when it
	 * fits, so none is made for a request with time to spare.
	 * @param availableNanos what {@link #availableNanos} answered at the attempt's start
	 * @param clientTimeouts whether the client's own timeouts bound attempts ({@link RetryEngine#clientTimeouts()})
	 * @return the attempt's time
	 */
	Duration attemptTime(long availableNanos, boolean clientTimeouts) {
		if (clientTimeouts) {
			return Duration.ofNanos(Math.max(0, availableNanos));
		}
		return (this.attemptTimeoutNanos <= availableNanos) ? this.attemptTimeout : Duration.ofNanos(availableNanos);
	}

	/**
	 * What is left of the whole deadline at {@code nowNanos}, reserve included, for events and records:
	 * {@code deadline − now}, saturated, never below zero.
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @param nowNanos now, on the same ticker
	 * @return the remaining deadline
	 */
	static Duration remaining(long deadlineNanos, long nowNanos) {
		return Duration.ofNanos(Math.max(0, Saturating.subtract(deadlineNanos, nowNanos)));
	}

}
