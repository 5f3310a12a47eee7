package io.github.retryafter.internal;

import java.util.Locale;

/**
 * Quotes header values in refusal reasons and exception messages, cut to {@value #MAX_QUOTED} characters: a server
 * controls its headers, and a 100 KB {@code Retry-After} must not become a 100 KB log line, event or endpoint entry.
 * A cut value ends with a marker saying how much was left out, {@code "Tue, 04 Aug…(+99950 chars)"}; control
 * characters but a tab (an ESC, a line break) are escaped as {@code \\u001B}, so a value cannot forge a log line.
 * Internal: not part of the library's API.
 * <p>
 * Stateless and thread-safe.
 */
public final class FieldText {

	/** The most characters of a header value quoted in a message. */
	public static final int MAX_QUOTED = 64;

	/** The most characters of a reason shown anywhere: a few sentences with their numbers. */
	public static final int MAX_REASON = 1_000;

	private FieldText() {
	}

	/**
	 * Returns {@code value} in double quotes, cut to {@value #MAX_QUOTED} characters with a marker.
	 * @param value a header value
	 * @return the quoted value
	 */
	public static String quote(String value) {
		return quote(value, 0, value.length());
	}

	/**
	 * Returns {@code value[start, end)} in double quotes, cut to {@value #MAX_QUOTED} characters with a marker.
	 * @param value the string holding the header value
	 * @param start the first index of the value
	 * @param end one past the last index of the value
	 * @return the quoted value
	 */
	public static String quote(String value, int start, int end) {
		return appendCut(new StringBuilder(Math.min(end - start, MAX_QUOTED) + 24).append('"'), value, start, end)
			.append('"')
			.toString();
	}

	/**
	 * Returns {@code value} cut to {@value #MAX_QUOTED} characters with a marker, without quotes.
	 * @param value a header value
	 * @return the value, or its first characters and the marker
	 */
	public static String cut(String value) {
		if (value.length() <= MAX_QUOTED && !hasControl(value)) {
			return value;
		}
		return appendCut(new StringBuilder(MAX_QUOTED + 24), value, 0, value.length()).toString();
	}

	/**
	 * Returns a reason, a sentence built by the engine from its numbers and quoted values, cut to
	 * {@value #MAX_REASON} characters with a marker and with control characters escaped: the bound every place that
	 * shows a reason (logs, the endpoint, exception messages) can rely on.
	 * @param reason the reason
	 * @return the reason, or its first characters and the marker
	 */
	public static String reason(String reason) {
		if (reason.length() <= MAX_REASON && !hasControl(reason)) {
			return reason;
		}
		return appendCut(new StringBuilder(Math.min(reason.length(), MAX_REASON) + 24), reason, 0, reason.length(),
				MAX_REASON)
			.toString();
	}

	/**
	 * Names a failure by its class only: an exception's message may carry what a server sent (a status line, a
	 * header), which must not reach logs, the endpoint or exception messages. The exception itself still reaches
	 * the caller.
	 * @param failure the failure
	 * @return its class's name
	 */
	public static String describe(Throwable failure) {
		return failure.getClass().getName();
	}

	private static boolean hasControl(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (isControl(value.charAt(i))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * C0 and C1 control characters and DEL, but not a tab: an ESC must not drive the terminal a log is read on, nor a
	 * line break forge a log line.
	 */
	private static boolean isControl(char c) {
		return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
	}

	private static StringBuilder appendCut(StringBuilder out, String value, int start, int end) {
		return appendCut(out, value, start, end, MAX_QUOTED);
	}

	private static StringBuilder appendCut(StringBuilder out, String value, int start, int end, int max) {
		int length = end - start;
		int kept = Math.min(length, max);
		if (kept < length && Character.isHighSurrogate(value.charAt(start + kept - 1))) {
			kept--;
		}
		for (int i = start; i < start + kept; i++) {
			char c = value.charAt(i);
			if (isControl(c)) {
				out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
			}
			else {
				out.append(c);
			}
		}
		return (kept < length) ? out.append("…(+").append(length - kept).append(" chars)") : out;
	}

}
