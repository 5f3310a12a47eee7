package io.github.retryafter.hint;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import io.github.retryafter.BodySource;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterException;

/**
 * One response's hint fields ({@code Retry-After} and the millisecond wait fields, {@code Date}, {@code Age}, the
 * should-retry fields and the rate-limit fields, and Google's {@code RetryInfo} in a refusal's body), each read
 * from the response's {@link HeaderSource} (or its {@link BodySource}, at most once and at most
 * {@link BodySource#MAX_BYTES}) once and parsed once, when first asked for. The planner, the engine, the
 * gate's feed and the endpoint read a response through this object, never through its headers.
 * <p>
 * Thread-safe: reads and parses happen under the object's lock, so a field is read once even when a listener hands
 * the response to another thread. A refusal is kept and thrown again as the same exception.
 */
public final class ResponseHints {

	static final String RETRY_AFTER = "Retry-After";

	static final String DATE = "Date";

	static final String AGE = "Age";

	/** The fields that give a wait, in the order they are read (and win a tie). */
	static final List<HintField> WAIT_FIELDS = List.of(HintField.RETRY_AFTER, HintField.RETRY_AFTER_MS,
			HintField.X_MS_RETRY_AFTER_MS, HintField.GOOGLE_RETRY_INFO);

	private static final Long ABSENT = -1L;

	private final HeaderSource headers;

	private final BodySource body;

	/** Made on the first read: a response nobody asks about costs this object only. */
	private Memo memo;

	private ResponseHints(HeaderSource headers, BodySource body) {
		this.headers = Objects.requireNonNull(headers, "headers");
		this.body = Objects.requireNonNull(body, "body");
	}

	/**
	 * Wraps a response's header fields; nothing is read until a hint is asked for. A body field is absent.
	 * @param headers the response's header fields
	 * @return the response's hints
	 */
	public static ResponseHints of(HeaderSource headers) {
		return new ResponseHints(headers, BodySource.none());
	}

	/**
	 * Wraps a response's header fields and the first bytes of its body; nothing is read until a hint is asked for,
	 * and the body only when a body field ({@link HintField#GOOGLE_RETRY_INFO}) is, once.
	 * @param headers the response's header fields
	 * @param body the response's body, {@link BodySource#none()} when the transport reads none
	 * @return the response's hints
	 */
	public static ResponseHints of(HeaderSource headers, BodySource body) {
		return new ResponseHints(headers, body);
	}

	/**
	 * Returns the raw header fields, for a classifier that reads a field the hints do not parse. The library's own
	 * decisions never read them: a hint field read through here is read again.
	 * @return the header source this object wraps
	 */
	public HeaderSource headers() {
		return this.headers;
	}

	/**
	 * Returns the {@code Retry-After} field lines as received, for reports; see {@link RetryAfterPlanner} for their
	 * meaning.
	 * @return the lines, empty when the response carries no {@code Retry-After}
	 */
	public List<String> retryAfterLines() {
		return lines(RETRY_AFTER);
	}

	/**
	 * Returns whether the response carries a {@code Retry-After} field, usable or not.
	 * @return {@code true} when at least one {@code Retry-After} line was received
	 */
	public boolean hasRetryAfter() {
		return !retryAfterLines().isEmpty();
	}

	/**
	 * Returns whether the response carries a wait field of those {@code fields} reads ({@code Retry-After},
	 * {@code retry-after-ms}, {@code x-ms-retry-after-ms}, Google's {@code RetryInfo} in the body), usable or not.
	 * @param fields the field groups read
	 * @return {@code true} when at least one line of such a field was received, or the body names a
	 * {@code RetryInfo}
	 */
	public boolean hasWaitField(HintFields fields) {
		for (HintField field : WAIT_FIELDS) {
			if (fields.reads(field) && present(field)) {
				return true;
			}
		}
		return false;
	}

	/** Whether a wait field is present, usable or not: a header's lines, or a body that names a RetryInfo. */
	boolean present(HintField field) {
		if (field.inBody()) {
			return retryInfoReading() != ABSENT;
		}
		return !lines(field.names().get(0)).isEmpty();
	}

	/** The body's RetryInfo, read and parsed on the first ask: a wait, {@link #ABSENT}, or the refusal. */
	private synchronized Object retryInfoReading() {
		Memo memo = memo();
		if (memo.retryInfo == null) {
			try {
				long millis = RetryInfoField.read(this.body);
				memo.retryInfo = (millis < 0) ? ABSENT : Long.valueOf(millis);
			}
			catch (RetryAfterException ex) {
				memo.retryInfo = ex;
			}
		}
		return memo.retryInfo;
	}

	/**
	 * Returns what the response's should-retry fields say, of those {@code fields} reads (see {@link ShouldRetry}).
	 * @param fields the field groups read
	 * @return the verdict, {@link ShouldRetry#NONE} when no such field is read or present
	 */
	public synchronized ShouldRetry shouldRetry(HintFields fields) {
		Memo memo = memo();
		if (memo.shouldRetry == null || !memo.shouldRetryFields.equals(fields)) {
			memo.shouldRetry = ShouldRetry.read(this, fields);
			memo.shouldRetryFields = fields;
		}
		return memo.shouldRetry;
	}

	/**
	 * Returns what the response's standard rate-limit fields announce, read strictly (see {@link RateLimitFields}).
	 * @return the fields; {@link RateLimitFields#NONE} when there are none
	 */
	public RateLimitFields rateLimits() {
		return rateLimits(HintFields.STANDARD);
	}

	/**
	 * Returns what the response's rate-limit fields announce, of the families {@code fields} names: a vendor family's
	 * windows first when named and present, else the standard families (see {@link RateLimitFields}).
	 * @param fields the field groups read
	 * @return the fields; {@link RateLimitFields#NONE} when there are none
	 */
	public synchronized RateLimitFields rateLimits(HintFields fields) {
		Memo memo = memo();
		if (memo.rateLimits == null || !memo.rateLimitFields.equals(fields)) {
			memo.rateLimits = RateLimitFieldParser.read(this, fields);
			memo.rateLimitFields = fields;
		}
		return memo.rateLimits;
	}

	/**
	 * Returns every line of the header field {@code name} as received, for reports: read from the headers the first
	 * time any reader asks for it (the hints' own parsers included), so a report of a field the hints read reads
	 * nothing again.
	 * @param name the field's name, matched case-insensitively
	 * @return the lines, empty when the response carries no such field
	 */
	public synchronized List<String> lines(String name) {
		Memo memo = memo();
		for (int i = 0; i < memo.count; i++) {
			if (memo.names[i].equalsIgnoreCase(name)) {
				return memo.values[i];
			}
		}
		List<String> values = this.headers.values(name);
		if (memo.count == memo.names.length) {
			memo.names = Arrays.copyOf(memo.names, memo.count * 2);
			memo.values = Arrays.copyOf(memo.values, memo.count * 2);
		}
		memo.names[memo.count] = name;
		memo.values[memo.count++] = values;
		return values;
	}

	/**
	 * The single {@code Retry-After} line, trimmed and classified (delay-seconds parsed), or its refusal.
	 * @throws RetryAfterException with the field's own error, from {@code EMPTY} to {@code INVALID_DELAY}
	 */
	synchronized RetryAfterValue retryAfter() {
		Memo memo = memo();
		if (memo.retryAfter == null) {
			try {
				memo.retryAfter = RetryAfterValue.parse(lines(RETRY_AFTER));
			}
			catch (RetryAfterException ex) {
				memo.retryAfter = ex;
			}
		}
		if (memo.retryAfter instanceof RetryAfterException ex) {
			throw ex;
		}
		return (RetryAfterValue) memo.retryAfter;
	}

	/**
	 * The instant of a {@code Retry-After} in HTTP-date form, in epoch seconds.
	 * @param referenceEpochSecond what an RFC 850 two-digit year is judged against
	 * @throws RetryAfterException when the date fails the strict parse
	 */
	synchronized long retryAt(long referenceEpochSecond) {
		Memo memo = memo();
		RetryAfterValue value = retryAfter();
		memo.retryAt = DateParse.reuseOrParse(memo.retryAt, RETRY_AFTER, value.raw(), value.start(), value.end(),
				referenceEpochSecond);
		return memo.retryAt.epochSecondOrThrow();
	}

	/**
	 * A millisecond wait field ({@code retry-after-ms} or {@code x-ms-retry-after-ms}), or the body's
	 * {@code RetryInfo} in milliseconds, parsed once.
	 * @param field {@link HintField#RETRY_AFTER_MS}, {@link HintField#X_MS_RETRY_AFTER_MS} or
	 * {@link HintField#GOOGLE_RETRY_INFO} (present)
	 * @throws RetryAfterException with the field's refusal
	 */
	synchronized long millis(HintField field) {
		if (field.inBody()) {
			Object reading = retryInfoReading();
			if (reading instanceof RetryAfterException ex) {
				throw ex;
			}
			return (Long) reading;
		}
		Memo memo = memo();
		int slot = (field == HintField.RETRY_AFTER_MS) ? 0 : 1;
		if (memo.millis[slot] == null) {
			String name = field.names().get(0);
			try {
				memo.millis[slot] = MillisField.parse(name, lines(name));
			}
			catch (RetryAfterException ex) {
				memo.millis[slot] = ex;
			}
		}
		if (memo.millis[slot] instanceof RetryAfterException ex) {
			throw ex;
		}
		return (Long) memo.millis[slot];
	}

	/** The {@code Date} field lines as received. */
	List<String> dateLines() {
		return lines(DATE);
	}

	/**
	 * The response's single {@code Date}, trimmed and parsed strictly, in epoch seconds.
	 * @param referenceEpochSecond what an RFC 850 two-digit year is judged against
	 * @throws RetryAfterException when the date fails the strict parse
	 * @throws IllegalStateException when the response has not exactly one {@code Date} line
	 */
	synchronized long date(long referenceEpochSecond) {
		List<String> lines = dateLines();
		if (lines.size() != 1) {
			throw new IllegalStateException("the response has " + lines.size() + " Date lines, not one");
		}
		String text = lines.get(0);
		int start = RetryAfterField.trimStart(text);
		Memo memo = memo();
		memo.date = DateParse.reuseOrParse(memo.date, DATE, text, start, RetryAfterField.trimEnd(text, start),
				referenceEpochSecond);
		return memo.date.epochSecondOrThrow();
	}

	/** The {@code Age} field: one line of delta-seconds, or ignored (two lines, or not delta-seconds), or absent. */
	synchronized AgeValue age() {
		Memo memo = memo();
		if (memo.age == null) {
			memo.age = AgeValue.read(lines(AGE));
		}
		return memo.age;
	}

	/**
	 * Names the fields read so far and how many lines each had, never their values: a server's text reaches logs only
	 * cut and escaped, in a decision's reason.
	 * @return for example {@code ResponseHints[read Retry-After: 1 line, Date: 1 line]}
	 */
	@Override
	public synchronized String toString() {
		if (this.memo == null || this.memo.count == 0) {
			return "ResponseHints[nothing read]";
		}
		StringBuilder text = new StringBuilder("ResponseHints[read ");
		for (int i = 0; i < this.memo.count; i++) {
			int lines = this.memo.values[i].size();
			text.append((i > 0) ? ", " : "").append(this.memo.names[i]).append(": ").append(lines)
				.append((lines == 1) ? " line" : " lines");
		}
		return text.append(']').toString();
	}

	private Memo memo() {
		if (this.memo == null) {
			this.memo = new Memo();
		}
		return this.memo;
	}

	/** Everything read and parsed so far; guarded by the enclosing object's lock. */
	private static final class Memo {

		// per response: one entry per field name read, eleven today (Retry-After, Date, Age, eight rate-limit
		// names); eight fit a success, whose rate-limit reading needs those eight only
		private String[] names = new String[8];

		@SuppressWarnings("unchecked")
		private List<String>[] values = new List[8];

		private int count;

		/** A {@link RetryAfterValue} or the {@link RetryAfterException} refusing it. */
		private Object retryAfter;

		private DateParse retryAt;

		private DateParse date;

		private AgeValue age;

		private RateLimitFields rateLimits;

		private HintFields rateLimitFields;

		/** Per millisecond field: a {@code Long} or the {@link RetryAfterException} refusing it. */
		private final Object[] millis = new Object[2];

		/** The body's RetryInfo: a {@code Long} (the wait, or {@link #ABSENT}) or the refusal. */
		private Object retryInfo;

		private ShouldRetry shouldRetry;

		private HintFields shouldRetryFields;

	}

	/**
	 * One strict parse of an HTTP-date and the reference it was judged against. Only the obsolete RFC 850 form
	 * depends on the reference (its two-digit year), so only it is parsed again for another reference.
	 */
	private record DateParse(long reference, boolean usesReference, long epochSecond, RetryAfterException error) {

		static DateParse reuseOrParse(DateParse last, String field, String value, int start, int end,
				long referenceEpochSecond) {
			if (last != null && !(last.usesReference() && last.reference() != referenceEpochSecond)) {
				return last;
			}
			boolean usesReference = HttpDate.usesReference(value, start, end);
			try {
				return new DateParse(referenceEpochSecond, usesReference,
						HttpDate.parse(field, value, start, end, referenceEpochSecond), null);
			}
			catch (RetryAfterException ex) {
				return new DateParse(referenceEpochSecond, usesReference, 0, ex);
			}
		}

		long epochSecondOrThrow() {
			if (this.error != null) {
				throw this.error;
			}
			return this.epochSecond;
		}

	}

}
