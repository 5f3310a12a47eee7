package io.github.retryafter.hint;

import java.util.ArrayList;
import java.util.List;

import io.github.retryafter.BodySource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.FieldText;

/**
 * Reads Google's {@code google.rpc.RetryInfo} from the first bytes of a refusal's JSON body, strictly: the body is one
 * JSON object, its {@code error.details[]} holds exactly one detail whose {@code @type} is
 * {@value #TYPE}, and that detail's one {@code retryDelay} is a protobuf duration in its JSON form,
 * {@code ^\d{1,12}(\.\d{1,9})?s$} ({@code "27s"}, {@code "3.700s"}, {@code "52758s"}); a fraction is rounded up to the
 * next millisecond, so the wait is never shorter than asked.
 * <p>
 * The body is <em>absent</em> for this field when no object of it has a {@code retryDelay} key or a {@code @type} of
 * {@value #TYPE} (a word inside another string, such as a message that mentions {@code retryDelay}, is not a field);
 * a body that is not JSON at all is absent too, unless its bytes name the type. Everything else is refused with a
 * {@link RetryAfterException}: {@link RetryAfterError#MALFORMED_BODY} (not JSON, a {@code RetryInfo} or
 * {@code retryDelay} outside {@code error.details[]}, no {@code retryDelay}, nested deeper than {@value #MAX_DEPTH}),
 * {@link RetryAfterError#BODY_TRUNCATED} (cut at the bound read), {@link RetryAfterError#MULTIPLE_VALUES} (two
 * {@code RetryInfo} details, two {@code retryDelay} or {@code @type} keys in one) and
 * {@link RetryAfterError#INVALID_DELAY} (a number, a sign, 13 digits of seconds, 10 of fraction, another unit).
 * <p>
 * Stateless and thread-safe; a parse walks the bytes once, recursing at most {@value #MAX_DEPTH} levels.
 */
final class RetryInfoField {

	/** The {@code @type} of Google's retry hint. */
	static final String TYPE = "type.googleapis.com/google.rpc.RetryInfo";

	/** How deep the body's objects and arrays may nest: Google's errors nest four levels. */
	static final int MAX_DEPTH = 32;

	private static final String NAME = "google.rpc.RetryInfo";

	private static final String RETRY_DELAY = "retryDelay";

	private static final byte[] TYPE_BYTES = TYPE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

	private RetryInfoField() {
	}

	/**
	 * Parses a body's first bytes.
	 * @param body the bytes read, at most {@code bound}
	 * @param bound the most bytes that were read: a body that fills it and does not close was cut
	 * @return the wait in milliseconds, or {@code -1} when the body holds no such field
	 * @throws RetryAfterException with the field's refusal
	 */
	static long parse(byte[] body, int bound) {
		Scan scan = new Scan(body);
		try {
			scan.document();
		}
		catch (Malformed ex) {
			if (!scan.named && !contains(body, TYPE_BYTES)) {
				return -1;
			}
			if (ex.atEnd && body.length >= bound) {
				throw new RetryAfterException(RetryAfterError.BODY_TRUNCATED, NAME + ": the body is longer than the "
						+ bound + " bytes read, and its JSON is cut before it closes, so its RetryInfo cannot be read"
						+ " whole. " + ADVICE);
			}
			throw malformed("the body is not well-formed JSON (" + ex.getMessage() + ")");
		}
		return scan.result();
	}

	private static final String ADVICE = "Google sends {\"error\": {\"details\": [{\"@type\": \"" + TYPE
			+ "\", \"retryDelay\": \"27s\"}]}}; a proxy that rewrote the body is the usual cause.";

	static RetryAfterException malformed(String why) {
		return new RetryAfterException(RetryAfterError.MALFORMED_BODY, NAME + ": " + why + ". " + ADVICE);
	}

	/**
	 * A protobuf duration in its JSON form: 1 to 12 digits of seconds, optionally a point and 1 to 9 digits, then
	 * {@code s}; rounded up to the millisecond.
	 */
	static long duration(String value) {
		int i = 0;
		long seconds = 0;
		while (i < value.length() && isDigit(value.charAt(i)) && i < 13) {
			seconds = seconds * 10 + (value.charAt(i) - '0');
			i++;
		}
		int digits = i;
		long nanos = 0;
		int fraction = 0;
		if (i < value.length() && value.charAt(i) == '.') {
			i++;
			while (i < value.length() && isDigit(value.charAt(i)) && fraction < 10) {
				nanos = nanos * 10 + (value.charAt(i) - '0');
				fraction++;
				i++;
			}
		}
		boolean valid = digits >= 1 && digits <= 12 && (fraction == 0) == (i == digits) && fraction <= 9
				&& i == value.length() - 1 && value.charAt(i) == 's';
		if (!valid) {
			throw new RetryAfterException(RetryAfterError.INVALID_DELAY, NAME + " retryDelay "
					+ FieldText.quote(value) + " is not a protobuf duration: 1 to 12 digits of seconds, optionally a"
					+ " point and 1 to 9 digits, then \"s\" (\"27s\", \"3.700s\"); a sign, a number, another unit or more"
					+ " digits is refused, never guessed. " + ADVICE);
		}
		for (int k = fraction; k < 9; k++) {
			nanos *= 10;
		}
		return seconds * 1000 + nanos / 1_000_000 + ((nanos % 1_000_000 > 0) ? 1 : 0);
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	private static boolean contains(byte[] body, byte[] wanted) {
		outer: for (int i = 0; i + wanted.length <= body.length; i++) {
			for (int j = 0; j < wanted.length; j++) {
				if (body[i + j] != wanted[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	/** Where a value sits: the path that leads to the one place a RetryInfo is read. */
	private enum Place {

		ROOT, ERROR, DETAILS, DETAIL, OTHER;

		Place member(String key) {
			if (this == ROOT && key.equals("error")) {
				return ERROR;
			}
			return (this == ERROR && key.equals("details")) ? DETAILS : OTHER;
		}

		Place element() {
			return (this == DETAILS) ? DETAIL : OTHER;
		}

	}

	/** The body is not JSON; {@code atEnd} when it ran out of bytes before the JSON closed. */
	private static final class Malformed extends Exception {

		private static final long serialVersionUID = 1L;

		private final boolean atEnd;

		Malformed(String message, boolean atEnd) {
			super(message, null, false, false);
			this.atEnd = atEnd;
		}

	}

	/** One walk over the bytes: a recursive descent that notes each RetryInfo and each misplaced name. */
	private static final class Scan {

		private final byte[] body;

		private int at;

		/** Whether an object of the body has a {@code retryDelay} key or the RetryInfo {@code @type}. */
		boolean named;

		/** Where a RetryInfo or a {@code retryDelay} was found outside {@code error.details[]}, if anywhere. */
		private String misplaced;

		/** The {@code retryDelay} values of each RetryInfo detail ({@code null} for a non-string value). */
		private final List<List<String>> retryInfos = new ArrayList<>(1);

		private String duplicateType;

		Scan(byte[] body) {
			this.body = body;
		}

		void document() throws Malformed {
			whitespace();
			if (peek() != '{') {
				throw new Malformed("it does not start with an object", this.at >= this.body.length);
			}
			value(Place.ROOT, 1);
			whitespace();
			if (this.at < this.body.length) {
				throw new Malformed("bytes follow the object at byte " + this.at, false);
			}
		}

		long result() {
			if (this.duplicateType != null) {
				throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, NAME + ": a detail of error.details[]"
						+ " has two @type keys, one of them " + FieldText.quote(this.duplicateType) + ", so which message"
						+ " it is cannot be told. " + ADVICE);
			}
			if (this.misplaced != null) {
				throw malformed(this.misplaced + ", not in a RetryInfo detail of error.details[], where Google puts it");
			}
			if (this.retryInfos.isEmpty()) {
				return -1;
			}
			if (this.retryInfos.size() > 1) {
				throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, NAME + ": error.details[] holds "
						+ this.retryInfos.size() + " RetryInfo details, but a refusal names one wait; none is used. "
						+ ADVICE);
			}
			List<String> delays = this.retryInfos.get(0);
			if (delays.isEmpty()) {
				throw malformed("the RetryInfo detail has no retryDelay");
			}
			if (delays.size() > 1) {
				throw new RetryAfterException(RetryAfterError.MULTIPLE_VALUES, NAME + ": the RetryInfo detail has "
						+ delays.size() + " retryDelay keys; none is used. " + ADVICE);
			}
			if (delays.get(0) == null) {
				throw new RetryAfterException(RetryAfterError.INVALID_DELAY, NAME + ": the RetryInfo's retryDelay is"
						+ " not a string; a protobuf duration is written as one (\"27s\"). " + ADVICE);
			}
			return duration(delays.get(0));
		}

		/** One value at {@code place}; returns the string's text when it is a string, else {@code null}. */
		private String value(Place place, int depth) throws Malformed {
			if (depth > MAX_DEPTH) {
				throw new Malformed("nested deeper than " + MAX_DEPTH + " levels", false);
			}
			whitespace();
			int c = peek();
			if (c == '{') {
				object(place, depth);
				return null;
			}
			if (c == '[') {
				array(place, depth);
				return null;
			}
			if (c == '"') {
				return string();
			}
			scalar();
			return null;
		}

		private void object(Place place, int depth) throws Malformed {
			this.at++;
			String type = null;
			List<String> delays = new ArrayList<>(1);
			whitespace();
			if (peek() == '}') {
				this.at++;
				return;
			}
			while (true) {
				whitespace();
				if (peek() != '"') {
					throw unexpected("a member's name");
				}
				String key = string();
				this.named |= key.equals(RETRY_DELAY);
				whitespace();
				expect(':');
				boolean stringValue = peekValue() == '"';
				String value = value(place.member(key), depth + 1);
				if (key.equals(RETRY_DELAY)) {
					delays.add(stringValue ? value : null);
				}
				else if (key.equals("@type") && stringValue) {
					if (type != null && (TYPE.equals(type) || TYPE.equals(value))) {
						this.duplicateType = TYPE;
					}
					type = value;
					this.named |= TYPE.equals(value);
				}
				whitespace();
				if (peek() == ',') {
					this.at++;
					continue;
				}
				expect('}');
				break;
			}
			noteObject(place, TYPE.equals(type), delays);
		}

		private void noteObject(Place place, boolean retryInfo, List<String> delays) {
			if (place == Place.DETAIL && retryInfo) {
				this.retryInfos.add(delays);
			}
			else if (retryInfo && this.misplaced == null) {
				this.misplaced = "a RetryInfo @type was found outside error.details[]";
			}
			else if (!delays.isEmpty() && this.misplaced == null) {
				this.misplaced = "a retryDelay was found in an object that is not a RetryInfo detail";
			}
		}

		private void array(Place place, int depth) throws Malformed {
			this.at++;
			whitespace();
			if (peek() == ']') {
				this.at++;
				return;
			}
			while (true) {
				value(place.element(), depth + 1);
				whitespace();
				if (peek() == ',') {
					this.at++;
					continue;
				}
				expect(']');
				return;
			}
		}

		/** A JSON string, its escapes decoded; a byte above ASCII stands for itself (it never matches a name). */
		private String string() throws Malformed {
			this.at++;
			StringBuilder text = new StringBuilder();
			while (true) {
				int c = next();
				if (c == '"') {
					return text.toString();
				}
				if (c < 0x20) {
					throw new Malformed("a control character in a string at byte " + (this.at - 1), false);
				}
				if (c != '\\') {
					text.append((char) c);
					continue;
				}
				int e = next();
				switch (e) {
					case '"', '\\', '/' -> text.append((char) e);
					case 'b' -> text.append('\b');
					case 'f' -> text.append('\f');
					case 'n' -> text.append('\n');
					case 'r' -> text.append('\r');
					case 't' -> text.append('\t');
					case 'u' -> text.append(unicode());
					default -> throw new Malformed("an unknown escape at byte " + (this.at - 1), false);
				}
			}
		}

		private char unicode() throws Malformed {
			int code = 0;
			for (int i = 0; i < 4; i++) {
				int digit = Character.digit(next(), 16);
				if (digit < 0) {
					throw new Malformed("a \\u escape without four hex digits at byte " + (this.at - 1), false);
				}
				code = code * 16 + digit;
			}
			return (char) code;
		}

		/** A number, {@code true}, {@code false} or {@code null}: skipped after a check of its bytes. */
		private void scalar() throws Malformed {
			int start = this.at;
			while (this.at < this.body.length && isScalarByte(this.body[this.at])) {
				this.at++;
			}
			if (this.at == start) {
				throw unexpected("a value");
			}
			if (this.at == this.body.length) {
				throw new Malformed("the body ends inside a value", true);
			}
			String word = new String(this.body, start, this.at - start, java.nio.charset.StandardCharsets.US_ASCII);
			if (!word.equals("true") && !word.equals("false") && !word.equals("null")
					&& !word.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
				throw new Malformed("\"" + FieldText.cut(word) + "\" is not a JSON value", false);
			}
		}

		private static boolean isScalarByte(byte b) {
			return (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'E';
		}

		private void whitespace() {
			while (this.at < this.body.length && (this.body[this.at] == ' ' || this.body[this.at] == '\t'
					|| this.body[this.at] == '\n' || this.body[this.at] == '\r')) {
				this.at++;
			}
		}

		/** The next non-whitespace byte without taking it, or -1 at the end. */
		private int peekValue() {
			whitespace();
			return peek();
		}

		private int peek() {
			return (this.at < this.body.length) ? (this.body[this.at] & 0xFF) : -1;
		}

		private int next() throws Malformed {
			if (this.at >= this.body.length) {
				throw new Malformed("the body ends inside a string", true);
			}
			return this.body[this.at++] & 0xFF;
		}

		private void expect(char wanted) throws Malformed {
			if (peek() != wanted) {
				throw unexpected("'" + wanted + "'");
			}
			this.at++;
		}

		private Malformed unexpected(String wanted) {
			if (this.at >= this.body.length) {
				return new Malformed("the body ends where " + wanted + " was due", true);
			}
			return new Malformed(wanted + " was due at byte " + this.at, false);
		}

	}

	/**
	 * Reads a body source's first {@link BodySource#MAX_BYTES} bytes and parses them.
	 * @param source the response's body
	 * @return the wait in milliseconds, or {@code -1} when the body holds no such field
	 * @throws RetryAfterException with the field's refusal, {@link RetryAfterError#MALFORMED_BODY} when it cannot
	 * be read
	 */
	static long read(BodySource source) {
		byte[] body;
		try {
			body = source.prefix(BodySource.MAX_BYTES);
		}
		catch (java.io.IOException | RuntimeException ex) {
			throw malformed("the body could not be read (" + FieldText.describe(ex) + ")");
		}
		if (body == null) {
			return -1;
		}
		if (body.length > BodySource.MAX_BYTES) {
			body = java.util.Arrays.copyOf(body, BodySource.MAX_BYTES);
		}
		return parse(body, BodySource.MAX_BYTES);
	}

}
