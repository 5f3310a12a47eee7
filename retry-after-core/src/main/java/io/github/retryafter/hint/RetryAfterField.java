package io.github.retryafter.hint;

import java.util.List;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.FieldText;

/**
 * Reads the {@code Retry-After} field itself: field count, emptiness, which of the two forms it is in, and the
 * delay-seconds form. HTTP-dates are handed to {@link HttpDate}; {@link ResponseHints} calls it once per response.
 * <p>
 * The checks run in the order of the planner's error precedence: {@link RetryAfterError#EMPTY} (any field line that is
 * empty after trimming SP/HTAB), {@link RetryAfterError#MULTIPLE_VALUES} (two field lines, or a comma other than the one
 * after an HTTP-date's day name), then {@link RetryAfterError#INVALID_DELAY}. Bare digits are recognised first, so
 * {@code 2000} is 2,000 seconds and never a year. A value is taken as an attempted HTTP-date only when it starts with
 * an ASCII letter and contains a space or a comma, as all three date forms do; everything else (a sign, a decimal
 * point, an exponent, non-ASCII digits, a single word such as {@code later}) is refused as
 * {@link RetryAfterError#INVALID_DELAY}. Two near misses of a date are refused as {@link RetryAfterError#MALFORMED_DATE}
 * instead, so the code tells an operator what the origin got wrong: a date in double or single quotes, and a date
 * that starts with the day of the month because its day name was dropped ({@code 04 Aug 2026 12:00:30 GMT}). Values
 * are quoted in messages cut to {@value FieldText#MAX_QUOTED} characters.
 * <p>
 * Stateless and thread-safe; the success path allocates nothing.
 */
final class RetryAfterField {

	/** Returned by {@link #delaySeconds} when the value is in HTTP-date form. */
	static final long DATE_FORM = -1;

	/** The most field lines quoted in a message; the rest are counted. */
	private static final int MAX_LINES_QUOTED = 4;

	private static final String ADVICE = "RFC 9110 §10.2.3 allows only delay-seconds written in ASCII digits (\"120\")"
			+ " or an HTTP-date (\"Tue, 04 Aug 2026 12:00:30 GMT\"); ask the origin to send one of those.";

	private RetryAfterField() {
	}

	/**
	 * Returns the index of the first character of {@code value} that is not SP or HTAB.
	 * @param value the field value
	 * @return the start of the trimmed value
	 */
	static int trimStart(String value) {
		int i = 0;
		int length = value.length();
		while (i < length && isOws(value.charAt(i))) {
			i++;
		}
		return i;
	}

	/**
	 * Returns one past the last character of {@code value} that is not SP or HTAB, but not less than {@code start}.
	 * @param value the field value
	 * @param start the start of the trimmed value
	 * @return the end of the trimmed value
	 */
	static int trimEnd(String value, int start) {
		int i = value.length();
		while (i > start && isOws(value.charAt(i - 1))) {
			i--;
		}
		return i;
	}

	/**
	 * Refuses field lines that are empty or more than one.
	 * @param values every {@code Retry-After} field line, at least one
	 * @throws RetryAfterException with {@link RetryAfterError#EMPTY} or {@link RetryAfterError#MULTIPLE_VALUES}
	 */
	static void requireSingle(List<String> values) {
		for (String value : values) {
			int start = trimStart(value);
			if (start == value.length()) {
				throw new RetryAfterException(RetryAfterError.EMPTY, "Retry-After is present but empty"
						+ ((values.size() > 1) ? " in one of its " + values.size() + " field lines " + quoteAll(values)
								: "")
						+ ". An empty field is not zero: a server that means \"retry now\" writes \"0\". " + ADVICE);
			}
		}
		if (values.size() > 1) {
			throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, "Retry-After appeared in " + values.size()
					+ " field lines " + quoteAll(values) + ", but it is a singleton field: a proxy or library on the path"
					+ " probably added a second one. There is no way to tell which is the origin's, so none is used. Ask"
					+ " the origin or the hop that adds it to send exactly one Retry-After.");
		}
	}

	/**
	 * Classifies the trimmed value {@code value[start, end)} and parses it when it is delay-seconds.
	 * @param value the field value
	 * @param start the start of the trimmed value (see {@link #trimStart})
	 * @param end the end of the trimmed value (see {@link #trimEnd}); greater than {@code start}
	 * @return the delay in seconds, saturated at {@link Long#MAX_VALUE}, or {@link #DATE_FORM} when the value is in
	 * HTTP-date form (and should be parsed by {@link HttpDate})
	 * @throws RetryAfterException with {@link RetryAfterError#MULTIPLE_VALUES} for a comma list,
	 * {@link RetryAfterError#MALFORMED_DATE} for a date in double quotes or without its day name, or
	 * {@link RetryAfterError#INVALID_DELAY}
	 */
	static long delaySeconds(String value, int start, int end) {
		char first = value.charAt(start);
		if (first == '"' || first == '\'') {
			refuseQuotedDate(value, start, end, first);
		}
		if (isDateForm(value, start, end)) {
			return DATE_FORM;
		}
		return digits(value, start, end);
	}

	/**
	 * Whether the value is an attempted HTTP-date: it starts with an ASCII letter and holds a space, or a comma right
	 * after its first word. Any other comma makes it a list.
	 * @throws RetryAfterException with {@link RetryAfterError#MULTIPLE_VALUES} for a comma list
	 */
	private static boolean isDateForm(String value, int start, int end) {
		char first = value.charAt(start);
		boolean letter = (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z');
		boolean dateShaped = false;
		int commas = 0;
		boolean commaAfterName = false;
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			if (c == ',') {
				commas++;
				if (commas == 1 && letter && wordBefore(value, start, i)) {
					commaAfterName = true;
				}
			}
			else if (c == ' ' || c == '\t') {
				dateShaped = letter;
			}
		}
		if (commas > (commaAfterName ? 1 : 0)) {
			throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, "Retry-After " + FieldText.quote(value, start, end)
					+ " is a comma-separated list, but it is a singleton field: a proxy or library on the path"
					+ " probably joined two values into one. There is no way to tell which is the origin's, so none is"
					+ " used. Ask the origin or the hop that adds it to send exactly one value.");
		}
		return letter && (dateShaped || commaAfterName);
	}

	/** Delay-seconds: ASCII digits only, saturating at {@link Long#MAX_VALUE} but checked to the end. */
	private static long digits(String value, int start, int end) {
		long seconds = 0;
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				throw isDateWithoutDayName(value, start, end) ? withoutDayName(value, start, end)
						: invalidDelay(value, start, end, i);
			}
			int digit = c - '0';
			if (seconds > (Long.MAX_VALUE - digit) / 10) {
				for (int j = i + 1; j < end; j++) {
					char rest = value.charAt(j);
					if (rest < '0' || rest > '9') {
						throw invalidDelay(value, start, end, j);
					}
				}
				return Long.MAX_VALUE;
			}
			seconds = seconds * 10 + digit;
		}
		return seconds;
	}

	/**
	 * Parses an {@code Age} field value as delta-seconds (RFC 9111 §5.1): ASCII digits only, SP/HTAB trimmed,
	 * saturating at {@link Long#MAX_VALUE}.
	 * @param value the field value
	 * @return the age in seconds, or {@code -1} when the value is not valid delta-seconds
	 */
	static long deltaSeconds(String value) {
		int start = trimStart(value);
		int end = trimEnd(value, start);
		if (start == end) {
			return -1;
		}
		long seconds = 0;
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				return -1;
			}
			int digit = c - '0';
			seconds = (seconds > (Long.MAX_VALUE - digit) / 10) ? Long.MAX_VALUE : seconds * 10 + digit;
		}
		return seconds;
	}

	private static boolean wordBefore(String value, int start, int comma) {
		for (int i = start; i < comma; i++) {
			char c = value.charAt(i);
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
				return false;
			}
		}
		return comma > start;
	}

	private static RetryAfterException invalidDelay(String value, int start, int end, int at) {
		char c = value.charAt(at);
		String why;
		if (at == start && (c == '-' || c == '+')) {
			why = "delay-seconds cannot be signed" + ((c == '-') ? " or negative" : "");
		}
		else if (c == '.' || c == ',') {
			why = "delay-seconds are whole seconds, not fractions";
		}
		else if ((c == 'e' || c == 'E') && at > start) {
			why = "delay-seconds cannot use exponent notation";
		}
		else if (Character.isDigit(c)) {
			why = String.format("U+%04X is a digit, but not an ASCII one", (int) c);
		}
		else if (c == ' ' || c == '\t') {
			why = "delay-seconds contain no whitespace";
		}
		else {
			why = "it is neither digits nor an HTTP-date (found " + ((c < 0x20 || c > 0x7E)
					? String.format("U+%04X", (int) c) : "\"" + c + "\"") + " at position " + (at - start) + ")";
		}
		return new RetryAfterException(RetryAfterError.INVALID_DELAY, "Retry-After " + FieldText.quote(value, start, end)
				+ " is not valid delay-seconds: " + why + ". " + ADVICE);
	}

	private static String quoteAll(List<String> values) {
		StringBuilder out = new StringBuilder("(");
		int shown = Math.min(values.size(), MAX_LINES_QUOTED);
		for (int i = 0; i < shown; i++) {
			out.append((i > 0) ? ", " : "").append(FieldText.quote(values.get(i).strip()));
		}
		if (values.size() > shown) {
			out.append(", …(+").append(values.size() - shown).append(" more)");
		}
		return out.append(')').toString();
	}

	/**
	 * Refuses a value that is an HTTP-date (or a date missing its day name) inside double or single quotes, as
	 * {@link RetryAfterError#MALFORMED_DATE}: the origin quotes it as if it were a string (Apache HttpClient 5 accepts
	 * single quotes, so some origins send them). Checked before the comma count, so the comma after the day name of a
	 * quoted date is not taken for a list. Anything else in quotes is left to the other checks.
	 */
	private static void refuseQuotedDate(String value, int start, int end, char quote) {
		if (end - start < 3 || value.charAt(end - 1) != quote || value.indexOf(quote, start + 1) != end - 1) {
			return;
		}
		int innerStart = start + 1;
		int innerEnd = end - 1;
		char first = value.charAt(innerStart);
		boolean letter = (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z');
		boolean spaced = false;
		for (int i = innerStart; i < innerEnd && !spaced; i++) {
			char c = value.charAt(i);
			spaced = c == ' ' || c == ',';
		}
		if ((letter && spaced) || isDateWithoutDayName(value, innerStart, innerEnd)) {
			throw new RetryAfterException(RetryAfterError.MALFORMED_DATE, "Retry-After " + FieldText.quote(value, start, end)
					+ " is an HTTP-date inside " + ((quote == '"') ? "double" : "single") + " quotes, but the field is"
					+ " never quoted (RFC 9110 §10.2.3): the origin writes it as a quoted string. Ask the origin to send the date bare, such as"
					+ " Tue, 04 Aug 2026 12:00:30 GMT, or delay-seconds such as 120.");
		}
	}

	/**
	 * Whether {@code value[start, end)} starts like an IMF-fixdate or RFC 850 date whose day name was dropped: one or
	 * two digits, a space or hyphen, then a three-letter month name in any case ({@code 04 Aug 2026 12:00:30 GMT},
	 * {@code 04-Aug-26 12:00:30 GMT}).
	 */
	private static boolean isDateWithoutDayName(String value, int start, int end) {
		int i = start;
		while (i < end && i - start < 2 && value.charAt(i) >= '0' && value.charAt(i) <= '9') {
			i++;
		}
		if (i == start || i + 4 > end || (value.charAt(i) != ' ' && value.charAt(i) != '-')) {
			return false;
		}
		return HttpDate.isMonthName(value, i + 1);
	}

	private static RetryAfterException withoutDayName(String value, int start, int end) {
		return new RetryAfterException(RetryAfterError.MALFORMED_DATE, "Retry-After " + FieldText.quote(value, start, end)
				+ " looks like an HTTP-date without its day name: every HTTP-date form starts with one"
				+ " (\"Tue, 04 Aug 2026 12:00:30 GMT\"), so the origin's date formatter drops it. Ask the origin to send"
				+ " a whole IMF-fixdate (RFC 9110 §5.6.7) or delay-seconds such as \"120\".");
	}

	private static boolean isOws(char c) {
		return c == ' ' || c == '\t';
	}

}
