package io.github.retryafter.generated;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.JitterMode;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.hint.ResponseHints;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.hint.ShouldRetry;

/**
 * A million generated values for each vendor field: hostile ones (huge, negative, fractional, empty, repeated,
 * garbage) never throw anything but a typed refusal, never yield a negative wait or one past the max wait, and valid
 * ones read back exactly.
 */
class VendorFieldsPropertiesTests {

	private static final long SEED = 0x5eed_0030L;

	private static final int TRIES = 1_000_000;

	private static final Duration MAX_WAIT = Duration.ofSeconds(30);

	private static final RetryAfterPlanner PLANNER = RetryAfterPlanner.builder()
		.options(PlannerOptions.builder()
			.jitter(JitterMode.NONE)
			.maxWait(MAX_WAIT)
			.fields(HintFields.ALL)
			.build())
		.ticker(() -> 0)
		.wallClock(() -> Instant.parse("2026-09-08T12:00:00Z"))
		.build();

	private static final Set<RetryAfterError> WAIT_FIELD_REFUSALS = Set.of(RetryAfterError.EMPTY,
			RetryAfterError.MULTIPLE_VALUES, RetryAfterError.INVALID_DELAY, RetryAfterError.TOO_LONG);

	@Test
	void everyMillisecondValueIsAWaitWithinTheMaxWaitOrATypedRefusal() {
		for (String field : List.of("retry-after-ms", "x-ms-retry-after-ms")) {
			Tries.check(SEED, TRIES, (draw) -> new Lines(field, lines(draw)), (input) -> {
				Optional<Long> expected = expected(input.lines());
				try {
					RetryPlan plan = PLANNER.plan(HeaderSource.of(Map.of(field, input.lines())),
							PlanRequest.forAttempt(1)).orElseThrow();
					long floor = plan.floor().toMillis();
					require(floor >= 0 && floor <= MAX_WAIT.toMillis() && expected.orElse(-1L) == floor,
							"a plan of " + floor + " ms, expected " + expected);
				}
				catch (RetryAfterException ex) {
					require(WAIT_FIELD_REFUSALS.contains(ex.code()) && ex.getMessage().startsWith(field)
							&& ex.getMessage().length() < 600, "refused " + ex.code() + ": " + ex.getMessage());
					require(expected.isEmpty() || (ex.code() == RetryAfterError.TOO_LONG
							&& expected.get() > MAX_WAIT.toMillis()), "a valid value refused: " + ex.getMessage());
				}
			});
		}
	}

	@Test
	void everyShouldRetryValueIsAVerdictOrATypedRefusal() {
		HintFields both = HintFields.of(HintField.X_SHOULD_RETRY, HintField.STRIPE_SHOULD_RETRY);
		for (String field : List.of("x-should-retry", "Stripe-Should-Retry")) {
			Tries.check(SEED, TRIES, (draw) -> new Lines(field, booleans(draw)), (input) -> {
				ShouldRetry read = ResponseHints.of(HeaderSource.of(Map.of(field, input.lines()))).shouldRetry(both);
				String only = (input.lines().size() == 1) ? trimOws(input.lines().get(0)) : null;
				if ("true".equals(only) || "false".equals(only)) {
					require(read.verdict().equals(Optional.of(Boolean.parseBoolean(only))) && read.refused().isEmpty(),
							"read " + read);
				}
				else {
					require(read.verdict().isEmpty() && read.refused()
						.filter((ex) -> ex.code() == RetryAfterError.INVALID_SHOULD_RETRY)
						.isPresent(), "read " + read);
				}
			});
		}
	}

	private static void require(boolean condition, String what) {
		if (!condition) {
			throw new AssertionError(what);
		}
	}

	private static String trimOws(String value) {
		int start = 0;
		int end = value.length();
		while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
			start++;
		}
		while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
			end--;
		}
		return value.substring(start, end);
	}

	/** The exact wait a valid value means (a fraction rounded up), or empty when it is not valid. */
	private static Optional<Long> expected(List<String> lines) {
		if (lines.size() != 1) {
			return Optional.empty();
		}
		String value = trimOws(lines.get(0));
		int point = value.indexOf('.');
		String whole = (point < 0) ? value : value.substring(0, point);
		String fraction = (point < 0) ? "0" : value.substring(point + 1);
		if (!isDigits(whole) || !isDigits(fraction)) {
			return Optional.empty();
		}
		BigDecimal millis = new BigDecimal(value).setScale(0, RoundingMode.CEILING);
		return Optional.of(millis.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValueExact());
	}

	private static boolean isDigits(String text) {
		if (text.isEmpty()) {
			return false;
		}
		for (int i = 0; i < text.length(); i++) {
			if (text.charAt(i) < '0' || text.charAt(i) > '9') {
				return false;
			}
		}
		return true;
	}

	private static List<String> lines(Draw draw) {
		List<String> lines = new ArrayList<>();
		int count = draw.weighted(Draw.Weighted.weight(8, (one) -> 1), Draw.Weighted.weight(1, (two) -> 2));
		for (int i = 0; i < count; i++) {
			lines.add(draw.oneOf((anything) -> anything.string(40),
					(alphabet) -> alphabet.string("0123456789.-+eE ,\t٣", 30),
					(valid) -> valid.digits(1, 6) + (valid.chance(0.3) ? "." + valid.digits(1, 4) : ""),
					(huge) -> huge.digits(18, 40), (negative) -> "-" + negative.digits(1, 25),
					(padded) -> " " + padded.digits(1, 5) + "\t", (empty) -> ""));
		}
		return lines;
	}

	private static List<String> booleans(Draw draw) {
		List<String> lines = new ArrayList<>();
		int count = draw.weighted(Draw.Weighted.weight(8, (one) -> 1), Draw.Weighted.weight(1, (two) -> 2));
		for (int i = 0; i < count; i++) {
			lines.add(draw.oneOf((anything) -> anything.string(12), (word) -> word.of("true", "false", "True",
					"FALSE", "1", "0", "yes", "", " true ", "\ttrue", "false,true"),
					(mutated) -> {
						StringBuilder text = new StringBuilder(mutated.of("true", "false"));
						text.setCharAt(mutated.ints(0, text.length() - 1), mutated.anyChar());
						return text.toString();
					}));
		}
		return lines;
	}

	/** One field's generated lines. */
	private record Lines(String field, List<String> lines) {

	}

}
