package io.github.retryafter.hint;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An RFC 9651 §4.2.1 list parser, restricted to items (inner lists are refused). Confined to one call. */
final class StructuredList {

	/** RFC 9651's bound on an integer's digits. */
	static final int MAX_DIGITS = 15;

	private final String input;

	private int at;

	StructuredList(String input) {
		this.input = input;
	}

	/**
	 * Parses the whole input.
	 * @return the members
	 * @throws IllegalArgumentException naming what was expected where
	 */
	List<Item> parse() {
		List<Item> members = new ArrayList<>();
		skip(' ');
		while (this.at < this.input.length()) {
			int start = this.at;
			if (peek() == '(') {
				throw fail("an inner list, which no rate-limit field uses");
			}
			Object value = bareItem();
			Map<String, Object> parameters = parameters();
			members.add(new Item(value, parameters, this.input.substring(start, this.at)));
			skipOws();
			if (this.at == this.input.length()) {
				return members;
			}
			expect(',');
			skipOws();
			if (this.at == this.input.length()) {
				throw fail("a member after the trailing comma");
			}
		}
		return members;
	}

	private Map<String, Object> parameters() {
		Map<String, Object> parameters = new HashMap<>();
		while (this.at < this.input.length() && peek() == ';') {
			this.at++;
			skip(' ');
			String key = key();
			Object value = Boolean.TRUE;
			if (this.at < this.input.length() && peek() == '=') {
				this.at++;
				value = bareItem();
			}
			parameters.put(key, value);
		}
		return parameters;
	}

	private String key() {
		int start = this.at;
		if (this.at >= this.input.length() || !(isLcAlpha(peek()) || peek() == '*')) {
			throw fail("a parameter key (lower-case letter or \"*\")");
		}
		while (this.at < this.input.length() && (isLcAlpha(peek()) || isDigit(peek()) || "_-.*".indexOf(peek()) >= 0)) {
			this.at++;
		}
		return this.input.substring(start, this.at);
	}

	private Object bareItem() {
		if (this.at >= this.input.length()) {
			throw fail("an item");
		}
		char c = peek();
		if (c == '-' || isDigit(c)) {
			return number();
		}
		if (c == '"') {
			return string();
		}
		if (c == '*' || isAlpha(c)) {
			return token();
		}
		if (c == '?') {
			this.at++;
			if (this.at < this.input.length() && (peek() == '0' || peek() == '1')) {
				return this.input.charAt(this.at++) == '1';
			}
			throw fail("?0 or ?1");
		}
		if (c == ':') {
			return byteSequence();
		}
		throw fail("an integer, decimal, string, token, boolean or byte sequence");
	}

	private Object number() {
		int start = this.at;
		boolean negative = peek() == '-';
		if (negative) {
			this.at++;
		}
		int digitsStart = this.at;
		while (this.at < this.input.length() && isDigit(peek())) {
			this.at++;
		}
		int integerDigits = this.at - digitsStart;
		if (integerDigits == 0) {
			throw fail("a digit");
		}
		if (this.at < this.input.length() && peek() == '.') {
			if (integerDigits > 12) {
				throw fail("at most 12 digits before a decimal point");
			}
			this.at++;
			int fractionStart = this.at;
			while (this.at < this.input.length() && isDigit(peek())) {
				this.at++;
			}
			int fractionDigits = this.at - fractionStart;
			if (fractionDigits < 1 || fractionDigits > 3) {
				throw fail("1 to 3 digits after a decimal point");
			}
			return Double.parseDouble(this.input.substring(start, this.at));
		}
		if (integerDigits > MAX_DIGITS) {
			throw fail("an integer of at most 15 digits");
		}
		long magnitude = digits(this.input, digitsStart, this.at);
		return negative ? -magnitude : magnitude;
	}

	private String string() {
		StringBuilder out = new StringBuilder();
		this.at++;
		while (this.at < this.input.length()) {
			char c = this.input.charAt(this.at++);
			if (c == '\\') {
				if (this.at >= this.input.length() || (peek() != '"' && peek() != '\\')) {
					throw fail("\\\" or \\\\ after a backslash");
				}
				out.append(this.input.charAt(this.at++));
			}
			else if (c == '"') {
				return out.toString();
			}
			else if (c < 0x20 || c > 0x7e) {
				throw fail("printable ASCII in a string");
			}
			else {
				out.append(c);
			}
		}
		throw fail("a closing quote");
	}

	private String token() {
		int start = this.at;
		this.at++;
		while (this.at < this.input.length() && (isTchar(peek()) || peek() == ':' || peek() == '/')) {
			this.at++;
		}
		return this.input.substring(start, this.at);
	}

	private byte[] byteSequence() {
		int start = ++this.at;
		while (this.at < this.input.length() && peek() != ':') {
			char c = peek();
			if (!(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=')) {
				throw fail("base64 in a byte sequence");
			}
			this.at++;
		}
		if (this.at >= this.input.length()) {
			throw fail("a closing colon");
		}
		String base64 = this.input.substring(start, this.at++);
		try {
			return java.util.Base64.getDecoder().decode(base64);
		}
		catch (IllegalArgumentException ex) {
			throw fail("base64 in a byte sequence");
		}
	}

	private void expect(char c) {
		if (this.at >= this.input.length() || peek() != c) {
			throw fail("\"" + c + "\"");
		}
		this.at++;
	}

	private void skip(char c) {
		while (this.at < this.input.length() && peek() == c) {
			this.at++;
		}
	}

	private void skipOws() {
		while (this.at < this.input.length() && (peek() == ' ' || peek() == '\t')) {
			this.at++;
		}
	}

	private char peek() {
		return this.input.charAt(this.at);
	}

	private IllegalArgumentException fail(String expected) {
		return new IllegalArgumentException("expected " + expected + " at character " + (this.at + 1));
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	private static boolean isLcAlpha(char c) {
		return c >= 'a' && c <= 'z';
	}

	private static boolean isAlpha(char c) {
		return isLcAlpha(c) || (c >= 'A' && c <= 'Z');
	}

	private static boolean isTchar(char c) {
		return isAlpha(c) || isDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

	/** ASCII digits in {@code [start, end)}, at most 15; {@code -1} for anything else. */
	static long digits(String value, int start, int end) {
		if (end - start < 1 || end - start > MAX_DIGITS) {
			return -1;
		}
		long number = 0;
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				return -1;
			}
			number = number * 10 + (c - '0');
		}
		return number;
	}

	/**
	 * One member of a structured-field list: its bare item (a {@code Long}, {@code Double}, {@code String} for strings
	 * and tokens, {@code Boolean}, or {@code byte[]}), its parameters, and its text for messages.
	 */
	record Item(Object value, Map<String, Object> parameters, String text) {
	}

}
