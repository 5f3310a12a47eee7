package io.github.retryafter.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * The library's one place for arithmetic that must not overflow: sums, differences and products of {@code long}s
 * that stick at {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE} instead of wrapping, and conversions of
 * {@link Duration}s and {@link Instant}s that stick at the ends of their ranges instead of throwing. A server may ask
 * for any number of seconds and a caller may configure any {@code Duration}; what cannot be represented is "forever",
 * and every comparison against it still comes out the right way. Internal: not part of the library's API.
 * <p>
 * Stateless and thread-safe; nothing here throws, and only the methods returning a {@code Duration} or an
 * {@code Instant} allocate.
 */
public final class Saturating {

	/** The longest {@link Duration}: every comparison against it says "longer". */
	public static final Duration MAX_DURATION = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

	/** The most negative {@link Duration}. */
	public static final Duration MIN_DURATION = Duration.ofSeconds(Long.MIN_VALUE);

	private static final int NANOS_PER_SECOND = 1_000_000_000;

	private static final int NANOS_PER_MILLI = 1_000_000;

	private Saturating() {
	}

	/**
	 * Returns {@code a + b}, or the end of the {@code long} range it went past.
	 * @param a a value
	 * @param b a value
	 * @return the saturated sum
	 */
	public static long add(long a, long b) {
		long sum = a + b;
		if (((a ^ sum) & (b ^ sum)) < 0) {
			return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		return sum;
	}

	/**
	 * Returns {@code a - b}, or the end of the {@code long} range it went past.
	 * @param a a value
	 * @param b a value
	 * @return the saturated difference
	 */
	public static long subtract(long a, long b) {
		long difference = a - b;
		if (((a ^ b) & (a ^ difference)) < 0) {
			return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		return difference;
	}

	/**
	 * Returns {@code value × factor}, or the end of the {@code long} range it went past.
	 * @param value a value
	 * @param factor a value
	 * @return the saturated product
	 */
	public static long multiply(long value, long factor) {
		long high = Math.multiplyHigh(value, factor);
		long low = value * factor;
		if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
			return low;
		}
		return ((value < 0) != (factor < 0)) ? Long.MIN_VALUE : Long.MAX_VALUE;
	}

	/**
	 * Returns {@code duration} in nanoseconds, or the end of the {@code long} range (about 292 years either way).
	 * @param duration a duration
	 * @return the saturated nanoseconds
	 */
	public static long toNanos(Duration duration) {
		long seconds = duration.getSeconds();
		int nanos = duration.getNano();
		if (seconds < 0) {
			// As Duration.toNanos does: one second less, so the sum of two negatives cannot overshoot Long.MIN_VALUE.
			return add(multiply(seconds + 1, NANOS_PER_SECOND), nanos - NANOS_PER_SECOND);
		}
		return add(multiply(seconds, NANOS_PER_SECOND), nanos);
	}

	/**
	 * Returns {@code duration} in whole milliseconds, rounded as {@link Duration#toMillis()} rounds (towards zero), or
	 * the end of the {@code long} range.
	 * @param duration a duration
	 * @return the saturated milliseconds
	 */
	public static long toMillis(Duration duration) {
		long seconds = duration.getSeconds();
		int nanos = duration.getNano();
		if (seconds < 0) {
			return add(multiply(seconds + 1, 1000), (nanos - NANOS_PER_SECOND) / NANOS_PER_MILLI);
		}
		return add(multiply(seconds, 1000), nanos / NANOS_PER_MILLI);
	}

	/**
	 * Returns {@code a + b}, or {@link #MAX_DURATION} / {@link #MIN_DURATION} past the ends of {@code Duration}.
	 * @param a a duration
	 * @param b a duration
	 * @return the saturated sum
	 */
	public static Duration plus(Duration a, Duration b) {
		long seconds = a.getSeconds() + b.getSeconds();
		if (((a.getSeconds() ^ seconds) & (b.getSeconds() ^ seconds)) < 0) {
			return a.isNegative() ? MIN_DURATION : MAX_DURATION;
		}
		long nanos = (long) a.getNano() + b.getNano();
		if (nanos >= NANOS_PER_SECOND) {
			if (seconds == Long.MAX_VALUE) {
				return MAX_DURATION;
			}
			seconds++;
			nanos -= NANOS_PER_SECOND;
		}
		return Duration.ofSeconds(seconds, nanos);
	}

	/**
	 * Returns {@code a - b}, or {@link #MAX_DURATION} / {@link #MIN_DURATION} past the ends of {@code Duration}.
	 * @param a a duration
	 * @param b a duration
	 * @return the saturated difference
	 */
	public static Duration minus(Duration a, Duration b) {
		long seconds = a.getSeconds() - b.getSeconds();
		if (((a.getSeconds() ^ b.getSeconds()) & (a.getSeconds() ^ seconds)) < 0) {
			return a.isNegative() ? MIN_DURATION : MAX_DURATION;
		}
		long nanos = (long) a.getNano() - b.getNano();
		if (nanos < 0) {
			if (seconds == Long.MIN_VALUE) {
				return MIN_DURATION;
			}
			seconds--;
			nanos += NANOS_PER_SECOND;
		}
		return Duration.ofSeconds(seconds, nanos);
	}

	/**
	 * Returns {@code instant} in milliseconds since the epoch, rounded down as {@link Instant#toEpochMilli()} rounds,
	 * or the end of the {@code long} range for an instant more than about 292 million years away.
	 * @param instant an instant
	 * @return the saturated epoch milliseconds
	 */
	public static long toEpochMilli(Instant instant) {
		long seconds = instant.getEpochSecond();
		int nanos = instant.getNano();
		if (seconds < 0 && nanos > 0) {
			return add(multiply(seconds + 1, 1000), nanos / NANOS_PER_MILLI - 1000);
		}
		return add(multiply(seconds, 1000), nanos / NANOS_PER_MILLI);
	}

	/**
	 * Returns {@code instant} moved by {@code nanos}, or {@link Instant#MIN} / {@link Instant#MAX} past the ends of
	 * the {@code Instant} range.
	 * @param instant an instant
	 * @param nanos how far to move it, either way
	 * @return the saturated instant
	 */
	public static Instant plusNanos(Instant instant, long nanos) {
		return instant(instant.getEpochSecond() + Math.floorDiv(nanos, NANOS_PER_SECOND),
				(long) instant.getNano() + Math.floorMod(nanos, NANOS_PER_SECOND));
	}

	/**
	 * Returns {@code instant} moved by {@code duration}, or {@link Instant#MIN} / {@link Instant#MAX} past the ends of
	 * the {@code Instant} range.
	 * @param instant an instant
	 * @param duration how far to move it
	 * @return the saturated instant
	 */
	public static Instant plus(Instant instant, Duration duration) {
		return instant(add(instant.getEpochSecond(), duration.getSeconds()),
				(long) instant.getNano() + duration.getNano());
	}

	/** An instant from seconds and a non-negative nanosecond adjustment below two seconds, clamped to the range. */
	private static Instant instant(long seconds, long nanos) {
		if (nanos >= NANOS_PER_SECOND) {
			seconds = add(seconds, 1);
			nanos -= NANOS_PER_SECOND;
		}
		if (seconds > Instant.MAX.getEpochSecond()) {
			return Instant.MAX;
		}
		if (seconds < Instant.MIN.getEpochSecond()) {
			return Instant.MIN;
		}
		return Instant.ofEpochSecond(seconds, nanos);
	}

}
