package io.github.retryafter.internal;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/**
 * The library's one place for arithmetic that must not overflow: sums, differences and products of {@code long}s
 * that stick at {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE} instead of wrapping, and conversions of
 * {@link Duration}s and {@link Instant}s that stick at the ends of their ranges instead of throwing. A server may ask
 * for any number of seconds and a caller may configure any {@code Duration}; what cannot be represented is "forever",
 * and every comparison against it still comes out the right way. Internal: not part of the library's API.
 * <p>
 * Stateless and thread-safe; nothing here allocates on the common path.
 */
public final class Saturating {

	/** The longest {@link Duration}: every comparison against it says "longer". */
	public static final Duration MAX_DURATION = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

	/** The most negative {@link Duration}. */
	public static final Duration MIN_DURATION = Duration.ofSeconds(Long.MIN_VALUE);

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
		if (seconds > -9_223_372_036L && seconds < 9_223_372_036L) {
			return seconds * 1_000_000_000L + duration.getNano();
		}
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return (seconds < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

	/**
	 * Returns {@code duration} in whole milliseconds (as {@link Duration#toMillis()} rounds), or the end of the {@code long} range.
	 * @param duration a duration
	 * @return the saturated milliseconds
	 */
	public static long toMillis(Duration duration) {
		long seconds = duration.getSeconds();
		try {
			return duration.toMillis();
		}
		catch (ArithmeticException ex) {
			return (seconds < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

	/**
	 * Returns {@code a + b}, or {@link #MAX_DURATION} / {@link #MIN_DURATION} past the ends of {@code Duration}.
	 * @param a a duration
	 * @param b a duration
	 * @return the saturated sum
	 */
	public static Duration plus(Duration a, Duration b) {
		try {
			return a.plus(b);
		}
		catch (ArithmeticException ex) {
			return a.isNegative() ? MIN_DURATION : MAX_DURATION;
		}
	}

	/**
	 * Returns {@code a - b}, or {@link #MAX_DURATION} / {@link #MIN_DURATION} past the ends of {@code Duration}.
	 * @param a a duration
	 * @param b a duration
	 * @return the saturated difference
	 */
	public static Duration minus(Duration a, Duration b) {
		try {
			return a.minus(b);
		}
		catch (ArithmeticException ex) {
			return a.isNegative() ? MIN_DURATION : MAX_DURATION;
		}
	}

	/**
	 * Returns {@code instant} in milliseconds since the epoch (rounded down), or the end of the {@code long} range for
	 * an instant more than about 292 million years away.
	 * @param instant an instant
	 * @return the saturated epoch milliseconds
	 */
	public static long toEpochMilli(Instant instant) {
		long seconds = instant.getEpochSecond();
		if (seconds > -9_223_372_036_854_775L && seconds < 9_223_372_036_854_775L) {
			return seconds * 1000 + instant.getNano() / 1_000_000;
		}
		try {
			return instant.toEpochMilli();
		}
		catch (ArithmeticException ex) {
			return (seconds < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

	/**
	 * Returns {@code instant} moved by {@code nanos}, or {@link Instant#MIN} / {@link Instant#MAX} past the ends of
	 * the {@code Instant} range.
	 * @param instant an instant
	 * @param nanos how far to move it, either way
	 * @return the saturated instant
	 */
	public static Instant plusNanos(Instant instant, long nanos) {
		try {
			return instant.plusNanos(nanos);
		}
		catch (ArithmeticException | DateTimeException ex) {
			return (nanos < 0) ? Instant.MIN : Instant.MAX;
		}
	}

	/**
	 * Returns {@code instant} moved forward by {@code duration}, or {@link Instant#MIN} / {@link Instant#MAX} past the
	 * ends of the {@code Instant} range.
	 * @param instant an instant
	 * @param duration how far to move it
	 * @return the saturated instant
	 */
	public static Instant plus(Instant instant, Duration duration) {
		try {
			return instant.plus(duration);
		}
		catch (ArithmeticException | DateTimeException ex) {
			return duration.isNegative() ? Instant.MIN : Instant.MAX;
		}
	}

}
