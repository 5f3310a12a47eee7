package io.github.retryafter.engine;

import java.time.Duration;

import io.github.retryafter.internal.Saturating;

/**
 * How long a transport may read the body of a failed response it is about to retry, so that its connection can go
 * back to the pool: until the retry is due, and never longer than {@link #MAX}. Every transport drains within this
 * one bound, from the time until the retry is due that {@link RetryLoop} tells its exchanges; a body longer, or still arriving, at the
 * window's end has its connection aborted, not pooled. Stateless.
 */
public final class DrainBound {

	/**
	 * The longest a failed response's body is read before its retry, however far off the retry is: 500 ms. Long
	 * enough for 64 KB (the default {@code max-drain}) over a 1 Mbit/s link; a slower body costs less dropped (one
	 * new connection) than held, and a blocking drain is the one part of a wait that neither a cancel nor shutdown
	 * cuts short.
	 */
	public static final Duration MAX = Duration.ofMillis(500);

	private DrainBound() {
	}

	/**
	 * Returns how long a failed body may be drained: until its retry is due, and at most {@link #MAX}.
	 * @param untilDue the time left until the retry is due
	 * @return the window; zero when the retry is due already
	 */
	public static Duration window(Duration untilDue) {
		if (untilDue.isNegative()) {
			return Duration.ZERO;
		}
		return (untilDue.compareTo(MAX) < 0) ? untilDue : MAX;
	}

	/**
	 * Returns how long a failed body may be drained when its retry is due at {@code notBeforeNanos}.
	 * @param notBeforeNanos when the retry is due, on {@code nowNanos}'s ticker
	 * @param nowNanos the ticker's reading now
	 * @return the window; zero when the retry is due already
	 */
	public static Duration window(long notBeforeNanos, long nowNanos) {
		long left = Saturating.subtract(notBeforeNanos, nowNanos);
		return (left <= 0) ? Duration.ZERO : (left >= MAX.toNanos()) ? MAX : Duration.ofNanos(left);
	}

}
