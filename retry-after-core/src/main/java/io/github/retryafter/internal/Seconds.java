package io.github.retryafter.internal;

import java.time.Duration;

/**
 * Formats durations for reasons and log lines as seconds with three decimals ({@code "2.500 s"}), the millisecond
 * rounded half up, as {@code String.format(Locale.ROOT, "%.3f s", nanos / 1e9)} prints them, without its cost (a
 * {@code Formatter} and new {@code DecimalFormatSymbols} per call) and for every {@code Duration}, also those too long
 * for a {@code long} of nanoseconds. Internal: not part of the library's API.
 * <p>
 * Stateless and thread-safe.
 */
public final class Seconds {

	private Seconds() {
	}

	/**
	 * Formats a duration in nanoseconds.
	 * @param nanos the duration, either sign
	 * @return for example {@code "0.250 s"} or {@code "-1.000 s"}
	 */
	public static String format(long nanos) {
		if (nanos < 0) {
			// -(Long.MIN_VALUE) does not exist: its millisecond rounding is the same one nanosecond nearer zero.
			return "-" + format(Duration.ofNanos((nanos == Long.MIN_VALUE) ? Long.MAX_VALUE : -nanos));
		}
		return format(nanos / 1_000_000_000L, (int) (nanos % 1_000_000_000L));
	}

	/**
	 * Formats a duration.
	 * @param duration the duration, either sign
	 * @return for example {@code "0.250 s"}
	 */
	public static String format(Duration duration) {
		if (duration.isNegative()) {
			return "-" + format(Saturating.minus(Duration.ZERO, duration));
		}
		return format(duration.getSeconds(), duration.getNano());
	}

	private static String format(long seconds, int nanos) {
		int millis = (nanos + 500_000) / 1_000_000;
		if (millis == 1000) {
			if (seconds == Long.MAX_VALUE) {
				millis = 999;
			}
			else {
				seconds++;
				millis = 0;
			}
		}
		StringBuilder out = new StringBuilder(24).append(seconds).append('.');
		if (millis < 100) {
			out.append((millis < 10) ? "00" : "0");
		}
		return out.append(millis).append(" s").toString();
	}

}
