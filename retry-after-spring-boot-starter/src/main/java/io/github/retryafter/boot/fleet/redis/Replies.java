package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Reads a script's reply defensively: whatever Redis (or something impersonating it) sent, a reader answers a value
 * or empty, never an exception. A reply element that is missing, of an unexpected type, not a finite number or
 * {@value FleetScript#BAD} reads as empty, and the caller answers for that key locally.
 */
final class Replies {

	private Replies() {
	}

	/**
	 * Returns element {@code index} as text.
	 * @param reply the reply
	 * @param index the element's position
	 * @return its text, empty if absent or not a bulk string, integer or status
	 */
	static Optional<String> text(List<Object> reply, int index) {
		if (reply == null || index < 0 || index >= reply.size()) {
			return Optional.empty();
		}
		Object value = reply.get(index);
		if (value instanceof byte[] bytes) {
			return Optional.of(new String(bytes, StandardCharsets.US_ASCII));
		}
		if (value instanceof Long || value instanceof String) {
			return Optional.of(value.toString());
		}
		return Optional.empty();
	}

	/**
	 * Returns element {@code index} as a finite, non-negative decimal.
	 * @param reply the reply
	 * @param index the element's position
	 * @return the number, empty when the element is not one
	 */
	static OptionalDouble decimal(List<Object> reply, int index) {
		Optional<String> text = text(reply, index);
		if (text.isEmpty() || !numeric(text.get())) {
			return OptionalDouble.empty();
		}
		try {
			double value = Double.parseDouble(text.get());
			return (Double.isFinite(value) && value >= 0) ? OptionalDouble.of(value) : OptionalDouble.empty();
		}
		catch (NumberFormatException ex) {
			return OptionalDouble.empty();
		}
	}

	/**
	 * Returns element {@code index} as a non-negative whole number.
	 * @param reply the reply
	 * @param index the element's position
	 * @return the number, empty when the element is not one
	 */
	static OptionalLong whole(List<Object> reply, int index) {
		Optional<String> text = text(reply, index);
		if (text.isEmpty() || text.get().isEmpty() || text.get().length() > 19) {
			return OptionalLong.empty();
		}
		for (int i = 0; i < text.get().length(); i++) {
			char c = text.get().charAt(i);
			if (c < '0' || c > '9') {
				return OptionalLong.empty();
			}
		}
		try {
			return OptionalLong.of(Long.parseLong(text.get()));
		}
		catch (NumberFormatException ex) {
			return OptionalLong.empty();
		}
	}

	/** Digits, one optional point and an optional exponent, as Lua's {@code tostring} writes them; no NaN, no inf. */
	private static boolean numeric(String text) {
		if (text.isEmpty() || text.length() > 64) {
			return false;
		}
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (!(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
				return false;
			}
		}
		return true;
	}

}
