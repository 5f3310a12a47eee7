package io.github.retryafter.hint;

import java.util.List;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.FieldText;

/**
 * Reads a millisecond wait field, {@code retry-after-ms} or {@code x-ms-retry-after-ms}: one field line of ASCII
 * digits, optionally with a decimal fraction ({@code 2500}, {@code 2500.5}) since the SDKs that read it parse a number;
 * a fraction is rounded up to the next whole millisecond, so the wait is never shorter than asked. The refusals are
 * {@code Retry-After}'s, with the field named: {@link RetryAfterError#EMPTY}, {@link RetryAfterError#MULTIPLE_VALUES}
 * (two lines or a comma) and {@link RetryAfterError#INVALID_DELAY} (a sign, an exponent, non-ASCII digits, words).
 * A value beyond {@code Long.MAX_VALUE} saturates; the planner's max wait then refuses it.
 * <p>
 * Stateless and thread-safe.
 */
final class MillisField {

	private MillisField() {
	}

	/**
	 * Parses the field's lines.
	 * @param field the field's name, for messages
	 * @param lines every line of the field, at least one
	 * @return the wait in milliseconds, saturated
	 * @throws RetryAfterException with the field's refusal
	 */
	static long parse(String field, List<String> lines) {
		for (String line : lines) {
			if (RetryAfterField.trimStart(line) == line.length()) {
				throw new RetryAfterException(RetryAfterError.EMPTY, field + " is present but empty. An empty field is"
						+ " not zero: a server that means \"retry now\" writes \"0\". " + advice(field));
			}
		}
		if (lines.size() > 1) {
			throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, field + " appeared in " + lines.size()
					+ " field lines, but it holds one wait: a hop on the path probably added one, and there is no way to"
					+ " tell which is the provider's, so none is used. " + advice(field));
		}
		String value = lines.get(0);
		int start = RetryAfterField.trimStart(value);
		int end = RetryAfterField.trimEnd(value, start);
		long millis = 0;
		boolean fraction = false;
		boolean roundUp = false;
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			if (c == '.' && !fraction && i > start && i < end - 1) {
				fraction = true;
			}
			else if (c < '0' || c > '9') {
				throw invalid(field, value, start, end, i);
			}
			else if (fraction) {
				roundUp |= c != '0';
			}
			else {
				int digit = c - '0';
				millis = (millis > (Long.MAX_VALUE - digit) / 10) ? Long.MAX_VALUE : millis * 10 + digit;
			}
		}
		if (roundUp && millis < Long.MAX_VALUE) {
			millis++;
		}
		return millis;
	}

	private static RetryAfterException invalid(String field, String value, int start, int end, int at) {
		char c = value.charAt(at);
		String why;
		if (c == ',') {
			return new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, field + " "
					+ FieldText.quote(value, start, end) + " is a comma-separated list, but it holds one wait: a hop"
					+ " probably joined two values. None is used. " + advice(field));
		}
		if (at == start && (c == '-' || c == '+')) {
			why = "a wait cannot be signed" + ((c == '-') ? " or negative" : "");
		}
		else if (c == '.') {
			why = "a decimal point needs digits on both sides, once";
		}
		else if (c == 'e' || c == 'E') {
			why = "exponent notation is not a number of milliseconds";
		}
		else if (Character.isDigit(c)) {
			why = String.format("U+%04X is a digit, but not an ASCII one", (int) c);
		}
		else {
			why = "it is not a number (found " + ((c < 0x20 || c > 0x7E) ? String.format("U+%04X", (int) c)
					: "\"" + c + "\"") + " at position " + (at - start) + ")";
		}
		return new RetryAfterException(RetryAfterError.INVALID_DELAY, field + " " + FieldText.quote(value, start, end)
				+ " is not a number of milliseconds: " + why + ". " + advice(field));
	}

	private static String advice(String field) {
		return "Ask the provider to send " + field + " as one number of milliseconds (\"2500\").";
	}

}
