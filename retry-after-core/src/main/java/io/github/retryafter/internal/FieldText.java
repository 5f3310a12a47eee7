package io.github.retryafter.internal;

/**
 * Quotes header values in refusal reasons and exception messages, cut to {@value #MAX_QUOTED} characters: a server
 * controls its headers, and a 100 KB {@code Retry-After} must not become a 100 KB log line, event or endpoint entry.
 * A cut value ends with a marker saying how much was left out, {@code "Tue, 04 Aug…(+99950 chars)"}. Internal: not
 * part of the library's API.
 * <p>
 * Stateless and thread-safe.
 */
public final class FieldText {

	/** The most characters of a header value quoted in a message. */
	public static final int MAX_QUOTED = 64;

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
		if (value.length() <= MAX_QUOTED) {
			return value;
		}
		return appendCut(new StringBuilder(MAX_QUOTED + 24), value, 0, value.length()).toString();
	}

	private static StringBuilder appendCut(StringBuilder out, String value, int start, int end) {
		int length = end - start;
		if (length <= MAX_QUOTED) {
			return out.append(value, start, end);
		}
		int kept = MAX_QUOTED;
		if (Character.isHighSurrogate(value.charAt(start + kept - 1))) {
			kept--;
		}
		return out.append(value, start, start + kept).append("…(+").append(length - kept).append(" chars)");
	}

}
