package io.github.retryafter.generated;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.github.retryafter.BodySource;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.hint.GeminiBodies;
import io.github.retryafter.hint.ResponseHints;

/**
 * Google's {@code RetryInfo} read from generated bodies: every {@code retryDelay} is the wait a reference reading of the
 * grammar gives (rounded up to the millisecond) or {@code INVALID_DELAY}; a Gemini refusal cut, spliced or corrupted
 * anywhere is a wait, absent, or one of the body's typed refusals, never anything else, and never slow.
 */
class RetryInfoPropertiesTests {

	private static final long SEED = 0x5eed_0037L;

	private static final Pattern DURATION = Pattern.compile("\\d{1,12}(\\.\\d{1,9})?s");

	private static final Set<RetryAfterError> BODY_REFUSALS = Set.of(RetryAfterError.MALFORMED_BODY,
			RetryAfterError.BODY_TRUNCATED, RetryAfterError.MULTIPLE_VALUES, RetryAfterError.INVALID_DELAY);

	private static final HintFields GEMINI = HintFields.of(HintField.GOOGLE_RETRY_INFO);

	record Delay(String value) {
	}

	record Body(String text) {

		@Override
		public String toString() {
			return "Body[" + this.text.replace("\n", "\\n") + "]";
		}

	}

	@Test
	void everyRetryDelayIsTheReferenceReadingOrInvalid() {
		Tries.check(SEED, 200_000, (draw) -> new Delay(draw.oneOf((d) -> d.digits(0, 14) + d.of("", "s", "S", "ms"),
				(d) -> d.digits(1, 13) + "." + d.digits(0, 11) + d.of("s", "", " s"),
				(d) -> d.string("0123456789.s-+e ", 16))), (input) -> {
					Long expected = DURATION.matcher(input.value()).matches() ? reference(input.value()) : null;
					Long actual = read(GeminiBodies.refusal(input.value()));
					require((expected == null) ? actual == null : expected.equals(actual),
							"read " + actual + ", the reference reads " + expected);
				});
	}

	@Test
	void aCorruptedRefusalIsAWaitAbsentOrATypedRefusal() {
		String valid = GeminiBodies.refusal("27s");
		Tries.check(SEED, 100_000, (draw) -> new Body(corrupt(draw, valid)), (input) -> {
			long start = System.nanoTime();
			ResponseHints hints = ResponseHints.of(HeaderSource.empty(),
					BodySource.of(input.text().getBytes(StandardCharsets.UTF_8)));
			try {
				hints.hasWaitField(GEMINI);
			}
			catch (RuntimeException ex) {
				throw new AssertionError("the presence check threw " + ex, ex);
			}
			read(input.text());
			require(System.nanoTime() - start < 1_000_000_000L, "took a second");
		});
	}

	/** The wait read, {@code null} when INVALID_DELAY; any other refusal must be a body refusal. */
	private static Long read(String body) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		try {
			long millis = parse(bytes);
			return (millis < 0) ? -1L : millis;
		}
		catch (RetryAfterException ex) {
			require(BODY_REFUSALS.contains(ex.code()) && ex.getMessage().length() < 1_000,
					"refused " + ex.code() + ": " + ex.getMessage());
			return (ex.code() == RetryAfterError.INVALID_DELAY) ? null : -2L;
		}
	}

	private static long parse(byte[] body) {
		return io.github.retryafter.hint.RetryInfoFieldAccess.parse(body);
	}

	private static long reference(String value) {
		BigDecimal seconds = new BigDecimal(value.substring(0, value.length() - 1));
		return seconds.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
	}

	private static String corrupt(Draw draw, String valid) {
		StringBuilder text = new StringBuilder(valid);
		int edits = draw.ints(1, 4);
		for (int i = 0; i < edits; i++) {
			int at = draw.ints(0, text.length());
			switch (draw.ints(0, 3)) {
				case 0 -> text.insert(at, draw.of("{", "}", "[", "]", "\"", ",", ":", "\\", "retryDelay",
						"\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\"", "\u0000", "9"));
				case 1 -> text.delete(at, Math.min(text.length(), at + draw.ints(1, 20)));
				case 2 -> text.setLength(at);
				default -> text.replace(at, Math.min(text.length(), at + 1), String.valueOf(draw.anyChar()));
			}
		}
		return text.toString();
	}

	private static void require(boolean condition, String message) {
		if (!condition) {
			throw new AssertionError(message);
		}
	}

}
