package io.github.retryafter.hint;

import java.time.LocalDate;

/**
 * Reads a reset written as an RFC 3339 date-time, as Anthropic's {@code anthropic-ratelimit-*-reset} fields are
 * ({@code 2026-12-04T12:00:30Z}, {@code 2026-12-04T12:00:30.250+01:00}): exactly {@code YYYY-MM-DDTHH:MM:SS}, an
 * optional fraction, and {@code Z} or a numeric offset ({@code T} and {@code Z} in either case, as RFC 3339 §5.6
 * allows). The year has four digits, as the grammar says, so a huge year is refused; so is a date or time that does
 * not exist. A leap second ({@code :60}) is read as the next minute's first instant, later and never earlier. A
 * fraction finer than a millisecond is rounded up.
 * <p>
 * Stateless and thread-safe.
 */
final class Rfc3339 {

	private Rfc3339() {
	}

	/**
	 * Parses {@code value[start, end)}.
	 * @return the instant in epoch milliseconds
	 * @throws IllegalArgumentException saying what is wrong, for a problem's reason
	 */
	static long parseEpochMillis(String value, int start, int end) {
		int p = start;
		int year = number(value, p, end, 4, "a four-digit year");
		p = expect(value, p + 4, end, '-');
		int month = number(value, p, end, 2, "a two-digit month");
		p = expect(value, p + 2, end, '-');
		int day = number(value, p, end, 2, "a two-digit day");
		p += 2;
		if (p >= end || (value.charAt(p) != 'T' && value.charAt(p) != 't')) {
			throw new IllegalArgumentException("expected \"T\" between the date and the time at position " + (p - start));
		}
		int hour = number(value, p + 1, end, 2, "a two-digit hour");
		p = expect(value, p + 3, end, ':');
		int minute = number(value, p, end, 2, "two-digit minutes");
		p = expect(value, p + 2, end, ':');
		int second = number(value, p, end, 2, "two-digit seconds");
		p += 2;
		long fractionMillis = 0;
		if (p < end && value.charAt(p) == '.') {
			int digits = ++p;
			long numerator = 0;
			int scale = 1;
			boolean finer = false;
			while (p < end && value.charAt(p) >= '0' && value.charAt(p) <= '9') {
				if (scale < 1000) {
					numerator = numerator * 10 + (value.charAt(p) - '0');
					scale *= 10;
				}
				else {
					finer |= value.charAt(p) != '0';
				}
				p++;
			}
			if (p == digits) {
				throw new IllegalArgumentException("expected digits after the decimal point");
			}
			fractionMillis = numerator * (1000 / scale) + (finer ? 1 : 0);
		}
		int offsetSeconds = offset(value, p, end, start);
		if (month < 1 || month > 12) {
			throw new IllegalArgumentException("month " + month + " does not exist");
		}
		if (month < 1 || month > 12 || day < 1 || day > LocalDate.of(year, month, 1).lengthOfMonth()
				|| hour > 23 || minute > 59 || second > 60) {
			throw new IllegalArgumentException("the date or time does not exist");
		}
		long epochSecond = LocalDate.of(year, month, day).toEpochDay() * 86_400L + hour * 3600L + minute * 60L + second
				- offsetSeconds;
		return epochSecond * 1000 + fractionMillis;
	}

	/** {@code Z}, or {@code ±HH:MM}, ending the value; returns the offset east of UTC in seconds. */
	private static int offset(String value, int p, int end, int start) {
		if (p < end && (value.charAt(p) == 'Z' || value.charAt(p) == 'z') && p + 1 == end) {
			return 0;
		}
		if (p < end && (value.charAt(p) == '+' || value.charAt(p) == '-') && p + 6 == end) {
			int sign = (value.charAt(p) == '-') ? -1 : 1;
			int hours = number(value, p + 1, end, 2, "a two-digit offset hour");
			expect(value, p + 3, end, ':');
			int minutes = number(value, p + 4, end, 2, "two-digit offset minutes");
			if (hours > 23 || minutes > 59) {
				throw new IllegalArgumentException("the offset does not exist");
			}
			return sign * (hours * 3600 + minutes * 60);
		}
		throw new IllegalArgumentException("expected \"Z\" or an offset such as \"+01:00\", and nothing after it, at"
				+ " position " + (p - start));
	}

	private static int number(String value, int p, int end, int digits, String what) {
		if (p + digits > end) {
			throw new IllegalArgumentException("expected " + what + ", found the end");
		}
		int number = 0;
		for (int i = p; i < p + digits; i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				throw new IllegalArgumentException("expected " + what + " at position " + i + " of the field");
			}
			number = number * 10 + (c - '0');
		}
		return number;
	}

	private static int expect(String value, int p, int end, char expected) {
		if (p >= end || value.charAt(p) != expected) {
			throw new IllegalArgumentException("expected \"" + expected + "\" at position " + p + " of the field");
		}
		return p + 1;
	}

}
