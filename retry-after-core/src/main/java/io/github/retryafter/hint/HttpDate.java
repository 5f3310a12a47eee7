package io.github.retryafter.hint;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.FieldText;

/**
 * A strict, hand-written parser for the three HTTP-date forms of
 * <a href="https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7">RFC 9110 §5.6.7</a>: IMF-fixdate
 * ({@code Sun, 06 Nov 1994 08:49:37 GMT}), the obsolete RFC 850 form ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and
 * asctime ({@code Sun Nov  6 08:49:37 1994}), and the IMF-fixdate formatter for the other direction.
 * <p>
 * Nothing is lenient: names must have the grammar's exact capitalisation, every separator is exactly one SP, digit
 * counts are fixed, and the zone must be literally {@code GMT}. Errors are checked in this order, so the first problem
 * in it is the one reported: shape and names ({@link RetryAfterError#MALFORMED_DATE}), zone
 * ({@link RetryAfterError#NON_GMT_ZONE}), ranges and month lengths ({@link RetryAfterError#NONEXISTENT_DATE}), day name
 * ({@link RetryAfterError#DAY_NAME_MISMATCH}). A leap second {@code 23:59:60} is accepted and rolled into the next
 * minute; second 60 at any other time does not exist.
 * <p>
 * The success path allocates nothing; messages are built only when refusing. Stateless and thread-safe.
 */
public final class HttpDate {

	private static final String[] MONTHS = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
			"Dec" };

	private static final String[] MONTH_NAMES = { "January", "February", "March", "April", "May", "June", "July",
			"August", "September", "October", "November", "December" };

	/** Monday first, matching {@link #dayOfWeek(long)}. */
	private static final String[] DAYS = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };

	private static final String[] LONG_DAYS = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
			"Sunday" };

	/** 0001-01-01T00:00:00Z: the earliest reference an RFC 850 year is judged against. */
	private static final long FIRST_SECOND_OF_YEAR_1 = -62_135_596_800L;

	/** 9999-12-31T23:59:59Z: the latest reference an RFC 850 year is judged against. */
	private static final long LAST_SECOND_OF_YEAR_9999 = 253_402_300_799L;

	private static final String ADVICE = "Ask the origin to send an IMF-fixdate such as \"Tue, 04 Aug 2026 12:00:30 GMT\""
			+ " (RFC 9110 §5.6.7) or delay-seconds such as \"120\".";

	private HttpDate() {
	}

	/**
	 * Parses the whole of {@code value} as an HTTP-date.
	 * @param field the field the value came from, named in error messages ({@code "Retry-After"}, {@code "Date"})
	 * @param value the value, without surrounding whitespace
	 * @param referenceEpochSecond the instant an RFC 850 two-digit year is judged against (the response's
	 * {@code Date}); unused by the other forms
	 * @return the instant in seconds since the epoch, a leap second rolled into the next minute
	 * @throws RetryAfterException with the first code that applies, and a message naming the value and the fix
	 */
	public static long parse(String field, String value, long referenceEpochSecond) {
		return parse(field, value, 0, value.length(), referenceEpochSecond);
	}

	/**
	 * Parses {@code value[start, end)} as an HTTP-date.
	 * @param field the field the value came from, named in error messages
	 * @param value the string holding the date
	 * @param start the first index of the date
	 * @param end one past the last index of the date
	 * @param referenceEpochSecond the instant an RFC 850 two-digit year is judged against
	 * @return the instant in seconds since the epoch, a leap second rolled into the next minute
	 * @throws RetryAfterException with the first code that applies, and a message naming the value and the fix
	 */
	public static long parse(String field, String value, int start, int end, long referenceEpochSecond) {
		int i = start;
		while (i < end && isAsciiLetter(value.charAt(i))) {
			i++;
		}
		int nameLength = i - start;
		if (i == end || nameLength < 3) {
			throw malformed(field, value, start, end, "it does not start with a day name such as \"Tue\" followed by "
					+ "\",\" or a space");
		}
		char separator = value.charAt(i);
		if (separator == ',' && nameLength == 3) {
			return imfFixdate(field, value, start, end);
		}
		if (separator == ',') {
			return rfc850(field, value, start, i, end, referenceEpochSecond);
		}
		if (separator == ' ' && nameLength == 3) {
			return asctime(field, value, start, end);
		}
		throw malformed(field, value, start, end, FieldText.quote(value, start, i + 1)
				+ " is not how any of the three forms starts");
	}

	/**
	 * Whether {@code value[start, end)} would be read as the obsolete RFC 850 form, the only one whose instant depends
	 * on the reference (its two-digit year is judged against it): a day name of more than three letters and a comma.
	 */
	static boolean usesReference(String value, int start, int end) {
		int i = start;
		while (i < end && isAsciiLetter(value.charAt(i))) {
			i++;
		}
		return i < end && i - start > 3 && value.charAt(i) == ',';
	}

	/** {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
	private static long imfFixdate(String field, String s, int p, int end) {
		if (end - p < 27) {
			throw malformed(field, s, p, end, "it is too short for an IMF-fixdate (\"Tue, 04 Aug 2026 12:00:30 GMT\")");
		}
		int dayName = shortDayName(s, p);
		if (dayName < 0) {
			throw malformed(field, s, p, end, badDayName(s, p));
		}
		expect(field, s, p, end, p + 4, ' ');
		int day = twoDigits(field, s, p, end, p + 5, "day of month");
		expect(field, s, p, end, p + 7, ' ');
		int month = month(field, s, p, end, p + 8);
		expect(field, s, p, end, p + 11, ' ');
		int year = fourDigits(field, s, p, end, p + 12);
		int time = timeOfDay(field, s, p, end, p + 16);
		zone(field, s, p, p + 26, end);
		return instant(field, s, p, end, dayName, year, month, day, time);
	}

	/** {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
	private static long rfc850(String field, String s, int p, int comma, int end, long referenceEpochSecond) {
		int dayName = longDayName(s, p, comma);
		if (dayName < 0) {
			throw malformed(field, s, p, end, badName("day name", s, p, comma - p,
					"Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday"));
		}
		int q = comma + 1;
		if (end - q < 21) {
			throw malformed(field, s, p, end, "it is too short for an RFC 850 date (\"Tuesday, 04-Aug-26 12:00:30 GMT\")");
		}
		expect(field, s, p, end, q, ' ');
		int day = twoDigits(field, s, p, end, q + 1, "day of month");
		expect(field, s, p, end, q + 3, '-');
		int month = month(field, s, p, end, q + 4);
		expect(field, s, p, end, q + 7, '-');
		int twoDigitYear = twoDigits(field, s, p, end, q + 8, "year");
		int time = timeOfDay(field, s, p, end, q + 10);
		zone(field, s, p, q + 20, end);
		int year = fullYear(twoDigitYear, month, day, hour(time), minute(time), second(time), referenceEpochSecond);
		return instant(field, s, p, end, dayName, year, month, day, time);
	}

	/** {@code Sun Nov  6 08:49:37 1994}: no zone, space-padded day. */
	private static long asctime(String field, String s, int p, int end) {
		int dayName = shortDayName(s, p);
		if (dayName < 0 && isMonthName(s, p)) {
			throw malformed(field, s, p, end, badDayName(s, p));
		}
		if (end - p != 24) {
			throw malformed(field, s, p, end, "an asctime date (\"Tue Aug  4 12:00:30 2026\") is exactly 24 characters"
					+ " with no zone, but this one has " + (end - p));
		}
		if (dayName < 0) {
			throw malformed(field, s, p, end, badDayName(s, p));
		}
		int month = month(field, s, p, end, p + 4);
		expect(field, s, p, end, p + 7, ' ');
		int day;
		if (s.charAt(p + 8) == ' ') {
			day = digit(field, s, p, end, p + 9, "day of month");
		}
		else {
			day = twoDigits(field, s, p, end, p + 8, "day of month");
		}
		int time = timeOfDay(field, s, p, end, p + 10);
		int year = fourDigits(field, s, p, end, p + 20);
		return instant(field, s, p, end, dayName, year, month, day, time);
	}

	/**
	 * Resolves an RFC 850 two-digit year against a reference instant (the response's {@code Date}), following
	 * RFC 9110 §5.6.7: a timestamp that would be more than 50 years after the reference is the most recent past year
	 * with those digits. The year is chosen so the timestamp lands in the hundred-year window that ends exactly 50
	 * years after the reference (so {@code 00} read against 31 December 2099 is 2100, not 2000), and the comparison is
	 * on the whole timestamp, like seed 001's fixture. A reference outside the years 1 to 9999 (a client clock far
	 * off, when the response has no usable {@code Date}) is taken as the nearest end of that range.
	 */
	private static int fullYear(int twoDigitYear, int month, int day, int hour, int minute, int second,
			long referenceEpochSecond) {
		long reference = Math.max(FIRST_SECOND_OF_YEAR_1, Math.min(LAST_SECOND_OF_YEAR_9999, referenceEpochSecond));
		long referenceDay = Math.floorDiv(reference, 86_400L);
		int referenceSecondOfDay = (int) Math.floorMod(reference, 86_400L);
		long civil = civilFromDays(referenceDay);
		int referenceYear = (int) (civil >> 16);
		int referenceMonth = (int) ((civil >> 8) & 0xFF);
		int referenceDayOfMonth = (int) (civil & 0xFF);
		int year = Math.floorDiv(referenceYear, 100) * 100 + twoDigitYear;
		// Lexicographic (year, month, day, time) against (reference year + 50, month, day, time). The slots are wider
		// than any two-digit month, day, hour, minute and second, so an out-of-range field cannot carry.
		long century = 100L * 16 * 128 * 400_000;
		long candidate = ((((long) (year - referenceYear - 50) * 16 + month) * 128 + day) * 400_000L) + hour * 3600L
				+ minute * 60L + second;
		long limit = (((long) referenceMonth * 128 + referenceDayOfMonth) * 400_000L) + referenceSecondOfDay;
		if (candidate > limit) {
			return year - 100;
		}
		return (candidate + century <= limit) ? year + 100 : year;
	}

	/**
	 * Reads {@code " HH:MM:SS "} starting with the space at {@code at}, as all three forms write it, packed as
	 * {@code hour << 16 | minute << 8 | second} (each at most 99), so the success path allocates nothing.
	 */
	private static int timeOfDay(String field, String s, int p, int end, int at) {
		expect(field, s, p, end, at, ' ');
		int hour = twoDigits(field, s, p, end, at + 1, "hour");
		expect(field, s, p, end, at + 3, ':');
		int minute = twoDigits(field, s, p, end, at + 4, "minute");
		expect(field, s, p, end, at + 6, ':');
		int second = twoDigits(field, s, p, end, at + 7, "second");
		expect(field, s, p, end, at + 9, ' ');
		return (hour << 16) | (minute << 8) | second;
	}

	private static int hour(int time) {
		return time >>> 16;
	}

	private static int minute(int time) {
		return (time >>> 8) & 0xFF;
	}

	private static int second(int time) {
		return time & 0xFF;
	}

	private static long instant(String field, String s, int p, int end, int dayName, int year, int month, int day,
			int time) {
		int hour = hour(time);
		int minute = minute(time);
		int second = second(time);
		if (day < 1 || day > monthLength(year, month)) {
			throw new RetryAfterException(RetryAfterError.NONEXISTENT_DATE, field + " " + FieldText.quote(s, p, end)
					+ " names day " + day + " of " + MONTH_NAMES[month - 1] + " " + year + ", which does not exist ("
					+ MONTH_NAMES[month - 1] + " " + year + " has " + monthLength(year, month)
					+ " days); a calendar that produces it is broken. Ask the origin to fix its date generation.");
		}
		boolean leapSecond = second == 60 && hour == 23 && minute == 59;
		if (hour > 23 || minute > 59 || (second > 59 && !leapSecond)) {
			throw new RetryAfterException(RetryAfterError.NONEXISTENT_DATE, field + " " + FieldText.quote(s, p, end)
					+ " names the time " + pad(pad(pad(new StringBuilder(), hour, 2).append(':'), minute, 2).append(':'),
							second, 2)
					+ ", which does not exist: hours run 00-23, minutes 00-59, seconds 00-59 (60 only in a leap second,"
					+ " 23:59:60). Ask the origin to fix its date generation.");
		}
		long epochDay = daysFromCivil(year, month, day);
		int actual = dayOfWeek(epochDay);
		if (actual != dayName) {
			throw new RetryAfterException(RetryAfterError.DAY_NAME_MISMATCH, field + " " + FieldText.quote(s, p, end)
					+ " says " + LONG_DAYS[dayName] + " but " + day + " " + MONTH_NAMES[month - 1] + " " + year
					+ " is a " + LONG_DAYS[actual] + "; the two halves of the date disagree, so one of them is corrupt"
					+ " and neither can be trusted. Ask the origin to fix its date generation.");
		}
		// 23:59:60 is one second after 23:59:59, which is 00:00:00 of the next day: the arithmetic rolls it over.
		return epochDay * 86_400L + hour * 3600L + minute * 60L + second;
	}

	private static void zone(String field, String s, int p, int zoneStart, int end) {
		for (int i = zoneStart; i < end; i++) {
			char c = s.charAt(i);
			if (c == ' ' || c == '\t') {
				throw malformed(field, s, p, end, "there is text after the zone: " + FieldText.quote(s, zoneStart, end));
			}
		}
		if (end - zoneStart == 3 && s.charAt(zoneStart) == 'G' && s.charAt(zoneStart + 1) == 'M'
				&& s.charAt(zoneStart + 2) == 'T') {
			return;
		}
		throw new RetryAfterException(RetryAfterError.NON_GMT_ZONE, field + " " + FieldText.quote(s, p, end)
				+ " is in zone " + FieldText.quote(s, zoneStart, end) + ", but an HTTP-date is always written in \"GMT\""
				+ " (RFC 9110 §5.6.7), and a parser that accepts one near miss ends up accepting EST. Ask the origin to"
				+ " write GMT; if you would rather accept this value, catch RetryAfterException with code NON_GMT_ZONE.");
	}

	private static void expect(String field, String s, int p, int end, int at, char expected) {
		if (at >= end || s.charAt(at) != expected) {
			throw malformed(field, s, p, end, "expected " + describe(expected) + " at position " + (at - p) + " but found "
					+ ((at < end) ? describe(s.charAt(at)) : "the end of the value"));
		}
	}

	private static int digit(String field, String s, int p, int end, int at, String what) {
		char c = (at < end) ? s.charAt(at) : 0;
		if (c < '0' || c > '9') {
			throw malformed(field, s, p, end, "expected an ASCII digit of the " + what + " at position " + (at - p)
					+ " but found " + ((at < end) ? describe(c) : "the end of the value"));
		}
		return c - '0';
	}

	private static int twoDigits(String field, String s, int p, int end, int at, String what) {
		return digit(field, s, p, end, at, what) * 10 + digit(field, s, p, end, at + 1, what);
	}

	private static int fourDigits(String field, String s, int p, int end, int at) {
		return twoDigits(field, s, p, end, at, "year") * 100 + twoDigits(field, s, p, end, at + 2, "year");
	}

	private static int month(String field, String s, int p, int end, int at) {
		if (at + 3 <= end) {
			for (int m = 0; m < 12; m++) {
				if (s.regionMatches(at, MONTHS[m], 0, 3)) {
					return m + 1;
				}
			}
		}
		throw malformed(field, s, p, end, badName("month", s, at, Math.min(3, end - at),
				"Jan, Feb, Mar, Apr, May, Jun, Jul, Aug, Sep, Oct, Nov, Dec"));
	}

	/**
	 * Returns whether {@code s} holds a three-letter month name at {@code at}, in any case ({@code Aug}, {@code aug}).
	 * @param s the string
	 * @param at where the name would start
	 * @return whether a month name starts there
	 */
	static boolean isMonthName(String s, int at) {
		if (at + 3 > s.length()) {
			return false;
		}
		for (String month : MONTHS) {
			if (s.regionMatches(true, at, month, 0, 3)) {
				return true;
			}
		}
		return false;
	}

	private static int shortDayName(String s, int at) {
		for (int d = 0; d < 7; d++) {
			if (s.regionMatches(at, DAYS[d], 0, 3)) {
				return d;
			}
		}
		return -1;
	}

	private static int longDayName(String s, int start, int end) {
		for (int d = 0; d < 7; d++) {
			String name = LONG_DAYS[d];
			if (name.length() == end - start && s.regionMatches(start, name, 0, name.length())) {
				return d;
			}
		}
		return -1;
	}

	private static boolean isAsciiLetter(char c) {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
	}

	/**
	 * Returns whether {@code year} is a leap year of the proleptic Gregorian calendar.
	 * @param year the year
	 * @return {@code true} for a leap year
	 */
	static boolean isLeapYear(long year) {
		return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
	}

	private static int monthLength(int year, int month) {
		return switch (month) {
			case 2 -> isLeapYear(year) ? 29 : 28;
			case 4, 6, 9, 11 -> 30;
			default -> 31;
		};
	}

	/**
	 * Returns the day since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's {@code days_from_civil}).
	 * @param year the year
	 * @param month the month, 1 to 12
	 * @param day the day of the month, 1 to 31
	 * @return the epoch day
	 */
	static long daysFromCivil(long year, int month, int day) {
		long y = (month <= 2) ? year - 1 : year;
		long era = Math.floorDiv(y, 400);
		long yearOfEra = y - era * 400;
		long dayOfYear = (153L * (month + ((month > 2) ? -3 : 9)) + 2) / 5 + day - 1;
		long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
		return era * 146_097 + dayOfEra - 719_468;
	}

	/** Returns {@code year << 16 | month << 8 | day} for an epoch day (Hinnant's {@code civil_from_days}). */
	private static long civilFromDays(long epochDay) {
		long z = epochDay + 719_468;
		long era = Math.floorDiv(z, 146_097);
		long dayOfEra = z - era * 146_097;
		long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
		long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
		long mp = (5 * dayOfYear + 2) / 153;
		long day = dayOfYear - (153 * mp + 2) / 5 + 1;
		long month = (mp < 10) ? mp + 3 : mp - 9;
		long year = yearOfEra + era * 400 + ((month <= 2) ? 1 : 0);
		return (year << 16) | (month << 8) | day;
	}

	/** Monday is 0: 1970-01-01 was a Thursday (3). */
	private static int dayOfWeek(long epochDay) {
		return (int) Math.floorMod(epochDay + 3, 7L);
	}

	/**
	 * Formats an instant as an IMF-fixdate, as a {@code Date} or {@code Retry-After} field is sent.
	 * @param epochSecond seconds since the epoch
	 * @return the IMF-fixdate, e.g. {@code Tue, 04 Aug 2026 12:00:30 GMT}
	 */
	public static String format(long epochSecond) {
		long epochDay = Math.floorDiv(epochSecond, 86_400L);
		int secondOfDay = (int) Math.floorMod(epochSecond, 86_400L);
		long civil = civilFromDays(epochDay);
		StringBuilder out = new StringBuilder(29);
		out.append(DAYS[dayOfWeek(epochDay)]).append(", ");
		pad(out, (int) (civil & 0xFF), 2).append(' ').append(MONTHS[(int) ((civil >> 8) & 0xFF) - 1]).append(' ');
		pad(out, (int) (civil >> 16), 4).append(' ');
		pad(out, secondOfDay / 3600, 2).append(':');
		pad(out, secondOfDay / 60 % 60, 2).append(':');
		return pad(out, secondOfDay % 60, 2).append(" GMT").toString();
	}

	private static StringBuilder pad(StringBuilder out, int value, int width) {
		String digits = Integer.toString(value);
		for (int i = digits.length(); i < width; i++) {
			out.append('0');
		}
		return out.append(digits);
	}

	private static String badDayName(String s, int at) {
		if (isMonthName(s, at)) {
			return "it starts with the month " + FieldText.quote(s, at, at + 3) + ", so its day name is missing: every"
					+ " HTTP-date form starts with one (\"Tue Aug  4 12:00:30 2026\"), and the origin's date formatter"
					+ " drops it";
		}
		return badName("day name", s, at, 3, "Mon, Tue, Wed, Thu, Fri, Sat, Sun");
	}

	private static String badName(String what, String s, int at, int length, String allowed) {
		return FieldText.quote(s, at, at + Math.max(0, length)) + " is not a " + what + " of the grammar, which allows"
				+ " only " + allowed + " in exactly that capitalisation (no lowercase, no translations)";
	}

	private static String describe(char c) {
		if (c == ' ') {
			return "a space";
		}
		if (c == '\t') {
			return "a tab";
		}
		if (c < 0x20 || c > 0x7E) {
			return String.format("U+%04X", (int) c);
		}
		return "\"" + c + "\"";
	}

	private static RetryAfterException malformed(String field, String s, int p, int end, String why) {
		return new RetryAfterException(RetryAfterError.MALFORMED_DATE, field + " " + FieldText.quote(s, p, end)
				+ " matches none of the HTTP-date forms (IMF-fixdate, RFC 850, asctime): " + why + ". " + ADVICE);
	}

}
