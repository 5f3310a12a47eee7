package io.github.retryafter.hint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.hint.RateLimitFields.Family;
import io.github.retryafter.hint.RateLimitFields.Problem;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;
import io.github.retryafter.hint.RateLimitFields.Window;
import io.github.retryafter.internal.FieldText;

/**
 * Reads the vendor families' windows strictly, through a response's {@link ResponseHints}: OpenAI's
 * {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}} (resets as Go durations, from the response) and
 * Anthropic's {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}}
 * (resets as RFC 3339 instants, measured against the response's own {@code Date}, never the client's clock). Each
 * field is parsed on its own; one that fails is left out of its window and named as a {@link Problem}. Nothing
 * throws.
 * <p>
 * Stateless and thread-safe.
 */
final class WindowFieldParser {

	private static final List<String> OPENAI_WINDOWS = List.of("requests", "tokens");

	private static final List<String> ANTHROPIC_WINDOWS = List.of("requests", "tokens", "input-tokens",
			"output-tokens");

	private WindowFieldParser() {
	}

	/**
	 * Reads the first vendor family {@code fields} names that the response carries.
	 * @return what it announces; empty when no vendor family is read or present
	 */
	static Optional<RateLimitFields> read(ResponseHints hints, HintFields fields) {
		if (fields.reads(HintField.OPENAI_WINDOWS) && Family.OPENAI.presentIn(hints)) {
			return Optional.of(new Reader(hints, Family.OPENAI).read(OPENAI_WINDOWS));
		}
		if (fields.reads(HintField.ANTHROPIC_WINDOWS) && Family.ANTHROPIC.presentIn(hints)) {
			return Optional.of(new Reader(hints, Family.ANTHROPIC).read(ANTHROPIC_WINDOWS));
		}
		return Optional.empty();
	}

	/** One reading: the problems found so far. Confined to one call. */
	private static final class Reader extends FieldReading {

		Reader(ResponseHints hints, Family family) {
			super(hints, family);
		}

		RateLimitFields read(List<String> names) {
			List<Window> windows = new ArrayList<>();
			OptionalLong requests = OptionalLong.empty();
			OptionalLong remaining = OptionalLong.empty();
			Optional<Duration> reset = Optional.empty();
			for (String name : names) {
				OptionalLong limit = integer(field(name, "limit"), true);
				OptionalLong left = integer(field(name, "remaining"), false);
				Optional<Duration> resetIn = reset(field(name, "reset"));
				if (limit.isEmpty() && left.isEmpty() && resetIn.isEmpty()) {
					continue;
				}
				Window.Kind kind = "requests".equals(name) ? Window.Kind.REQUESTS : Window.Kind.TOKENS;
				windows.add(new Window(name, kind, limit, left, resetIn));
				if (kind == Window.Kind.REQUESTS) {
					requests = limit;
					remaining = left;
					reset = resetIn;
				}
			}
			return new RateLimitFields(OptionalDouble.empty(), requests, remaining, reset, Optional.of(this.family),
					this.problems, windows);
		}

		private String field(String window, String part) {
			return (this.family == Family.OPENAI) ? "x-ratelimit-" + part + "-" + window
					: "anthropic-ratelimit-" + window + "-" + part;
		}

		/** The single line of {@code field}, trimmed, or {@code null} (and a problem) when absent, empty or repeated. */
		private String single(String field) {
			List<String> lines = this.hints.lines(field);
			if (lines.isEmpty()) {
				return null;
			}
			if (lines.size() > 1) {
				problem(Code.MULTIPLE_VALUES, field, "it has " + lines.size() + " field lines; one is allowed");
				return null;
			}
			String value = lines.get(0);
			int start = RetryAfterField.trimStart(value);
			String trimmed = value.substring(start, RetryAfterField.trimEnd(value, start));
			if (trimmed.isEmpty()) {
				problem(Code.MALFORMED, field, "it is empty");
				return null;
			}
			return trimmed;
		}

		private OptionalLong integer(String field, boolean positive) {
			String value = single(field);
			if (value == null) {
				return OptionalLong.empty();
			}
			long number = StructuredList.digits(value, 0, value.length());
			if (number < 0 || (positive && number == 0)) {
				problem(Code.INVALID_NUMBER, field, FieldText.quote(value) + " is not " + (positive ? "a positive" : "an")
						+ " integer of at most 15 ASCII digits");
				return OptionalLong.empty();
			}
			return OptionalLong.of(number);
		}

		private Optional<Duration> reset(String field) {
			String value = single(field);
			if (value == null) {
				return Optional.empty();
			}
			return (this.family == Family.OPENAI) ? duration(field, value) : instant(field, value);
		}

		private Optional<Duration> duration(String field, String value) {
			try {
				return Optional.of(Duration.ofNanos(GoDuration.parseNanos(value, 0, value.length())));
			}
			catch (IllegalArgumentException ex) {
				problem(Code.INVALID_DURATION, field, FieldText.quote(value) + " is not a Go duration such as \"6m0s\" or"
						+ " \"1.5s\": " + ex.getMessage());
				return Optional.empty();
			}
		}

		/** An RFC 3339 instant minus the response's {@code Date}; up to a second before it (its precision) is zero. */
		private Optional<Duration> instant(String field, String value) {
			long resetMillis;
			try {
				resetMillis = Rfc3339.parseEpochMillis(value, 0, value.length());
			}
			catch (IllegalArgumentException ex) {
				problem(Code.INVALID_INSTANT, field, FieldText.quote(value) + " is not an RFC 3339 date-time such as"
						+ " \"2026-12-04T12:00:30Z\": " + ex.getMessage());
				return Optional.empty();
			}
			List<String> dates = this.hints.dateLines();
			long date;
			try {
				if (dates.size() != 1) {
					throw new IllegalStateException(dates.isEmpty() ? "the response has no Date"
							: "the response has " + dates.size() + " Date lines");
				}
				date = this.hints.date(Math.floorDiv(resetMillis, 1000));
			}
			catch (RetryAfterException | IllegalStateException ex) {
				problem(Code.MISSING_DATE, field, FieldText.quote(value) + " is an instant, and " + ex.getMessage()
						+ " to measure it against; the client's clock is never used");
				return Optional.empty();
			}
			long since = resetMillis - date * 1000;
			if (since < -1000) {
				problem(Code.RESET_BEFORE_DATE, field, FieldText.quote(value) + " is " + (-since)
						+ " ms before the response's Date");
				return Optional.empty();
			}
			return Optional.of(Duration.ofMillis(Math.max(0, since)));
		}

	}

}
