package io.github.retryafter.fleet;

import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * A store's error text as shown in logs, the endpoint and health details: one short line, whatever the error echoed.
 * Stateless and thread-safe.
 */
final class ErrorText {

	/** The most characters of a store's error text kept for logs, the endpoint and health details. */
	static final int MAX_ERROR_TEXT = 200;

	private static final Pattern CONTROL = Pattern.compile("[\\p{Cntrl}\\u0080-\\u009f]");

	private ErrorText() {
	}

	/** What went wrong, in a few words: "timed out", or the exception's simple name and its message, cut. */
	static String describe(Throwable cause) {
		if (cause == null) {
			return "unknown";
		}
		if (cause instanceof TimeoutException) {
			return "timed out";
		}
		String message = cause.getMessage();
		return cause.getClass().getSimpleName() + ((message != null) ? ": " + cut(message) : "");
	}

	/**
	 * At most {@link #MAX_ERROR_TEXT} characters, control characters replaced, so an error that echoes a huge or
	 * hostile value stays one short line.
	 */
	static String cut(String message) {
		String kept = (message.length() > MAX_ERROR_TEXT) ? message.substring(0, MAX_ERROR_TEXT) : message;
		kept = CONTROL.matcher(kept).replaceAll("?");
		return (kept.length() < message.length()) ? kept + "…(+" + (message.length() - MAX_ERROR_TEXT) + " chars)" : kept;
	}

}
