package io.github.retryafter.test;

import java.time.Duration;

/**
 * Formats a duration as the core's reasons do: seconds with three decimals ({@code "2.500 s"}), the millisecond
 * rounded half up, for every {@code Duration}. A copy of the core's private helper, so this module imports only the
 * core's API. Stateless and thread-safe.
 */
final class SecondsText {

	/** The longest {@link Duration}. */
	static final Duration MAX = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

	private SecondsText() {
	}

	static String format(Duration duration) {
		if (duration.isNegative()) {
			// the most negative durations have no positive twin: they saturate, as the core's subtraction does
			return "-" + format((duration.getSeconds() == Long.MIN_VALUE) ? MAX : duration.negated());
		}
		long seconds = duration.getSeconds();
		int millis = (duration.getNano() + 500_000) / 1_000_000;
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
