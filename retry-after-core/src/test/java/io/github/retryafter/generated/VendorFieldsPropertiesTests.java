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
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.hint.RateLimitFields;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;
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

	@Test
	void everyGoDurationResetIsExactOrATypedProblem() {
		HintFields openai = HintFields.of(HintField.OPENAI_WINDOWS);
		Tries.check(SEED, TRIES, VendorFieldsPropertiesTests::duration, (input) -> {
			RateLimitFields read = ResponseHints
				.of(HeaderSource.of(Map.of("x-ratelimit-reset-tokens", input.lines()))).rateLimits(openai);
			Optional<BigDecimal> expected = input.expectedNanos();
			Optional<Duration> reset = read.windows().isEmpty() ? Optional.empty() : read.windows().get(0).reset();
			if (expected.isPresent() && expected.get().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
				require(reset.equals(Optional.of(Duration.ofNanos(expected.get().longValueExact())))
						&& read.problems().isEmpty(), "read " + reset + " " + read.problems());
			}
			else {
				require(reset.filter((value) -> value.isNegative()).isEmpty(), "a negative reset " + reset);
				if (reset.isEmpty()) {
					require(read.problems().size() == 1 && Set.of(Code.INVALID_DURATION, Code.MULTIPLE_VALUES,
							Code.MALFORMED).contains(read.problems().get(0).code()), "problems " + read.problems());
				}
				require(expected.isEmpty() || reset.isEmpty(), "a duration past 292 years read as " + reset);
			}
		});
	}

	@Test
	void everyRfc3339ResetIsMeasuredFromTheDateOrATypedProblem() {
		HintFields anthropic = HintFields.of(HintField.ANTHROPIC_WINDOWS);
		long date = Instant.parse("2026-09-08T12:00:00Z").getEpochSecond();
		String dateText = HttpDate.format(date);
		Tries.check(SEED, TRIES, VendorFieldsPropertiesTests::instant, (input) -> {
			RateLimitFields read = ResponseHints
				.of(HeaderSource.of(Map.of("anthropic-ratelimit-tokens-reset", input.lines(), "Date", List.of(dateText))))
				.rateLimits(anthropic);
			Optional<Duration> reset = read.windows().isEmpty() ? Optional.empty() : read.windows().get(0).reset();
			Optional<Instant> expected = input.expected();
			if (expected.isPresent()) {
				long since = expected.get().toEpochMilli() - date * 1000;
				require(since < -1000 ? reset.isEmpty() : reset.equals(Optional.of(Duration.ofMillis(Math.max(0, since)))),
						"read " + reset + " for " + expected);
			}
			else if (reset.isPresent()) {
				require(!reset.get().isNegative() && read.problems().isEmpty(), "read " + reset);
			}
			else {
				require(read.problems().size() == 1 && Set.of(Code.INVALID_INSTANT, Code.MULTIPLE_VALUES, Code.MALFORMED,
						Code.RESET_BEFORE_DATE).contains(read.problems().get(0).code()), "problems " + read.problems());
			}
		});
	}

	/** One to four terms of a Go duration, its value in nanoseconds (each term rounded up) when valid, or a hostile value. */
	private static Generated duration(Draw draw) {
		if (draw.chance(0.5)) {
			String hostile = draw.oneOf((anything) -> anything.string(24),
					(alphabet) -> alphabet.string("0123456789.hmsunµ-+ ", 16), (negative) -> "-" + negative.digits(1, 4) + "s",
					(huge) -> huge.digits(17, 30) + huge.of("h", "m", "s"), (empty) -> "");
			return new Generated(List.of(hostile), null);
		}
		String[] units = { "ns", "us", "µs", "ms", "s", "m", "h" };
		long[] nanos = { 1, 1_000, 1_000, 1_000_000, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L };
		StringBuilder text = new StringBuilder();
		BigDecimal total = BigDecimal.ZERO;
		int terms = draw.ints(1, 4);
		for (int i = 0; i < terms; i++) {
			String number = draw.digits(1, 6) + (draw.chance(0.3) ? "." + draw.digits(1, 12) : "");
			int unit = draw.ints(0, units.length - 1);
			text.append(number).append(units[unit]);
			total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(nanos[unit]))
				.setScale(0, RoundingMode.CEILING));
		}
		return new Generated(List.of(text.toString()), total);
	}

	/** A valid RFC 3339 instant near the Date (with its exact instant), or a hostile value. */
	private static Timed instant(Draw draw) {
		if (draw.chance(0.5)) {
			String hostile = draw.oneOf((anything) -> anything.string(30),
					(alphabet) -> alphabet.string("0123456789-:.TZ+ ", 30), (mutated) -> {
						StringBuilder text = new StringBuilder("2026-09-08T12:00:30.250+01:00");
						text.setCharAt(mutated.ints(0, text.length() - 1), mutated.anyChar());
						return text.toString();
					}, (huge) -> "+" + huge.digits(5, 12) + "-09-08T12:00:30Z", (empty) -> "");
			return new Timed(List.of(hostile), null);
		}
		Instant at = Instant.parse("2026-09-08T12:00:00Z").plusMillis(draw.longs(-90_000_000L, 90_000_000L));
		int offsetMinutes = draw.ints(-18 * 60, 18 * 60);
		java.time.OffsetDateTime local = at.atOffset(java.time.ZoneOffset.ofTotalSeconds(offsetMinutes * 60));
		String text = local.format(java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx"));
		if (offsetMinutes == 0 && draw.chance(0.5)) {
			text = text.replace("+00:00", "Z");
		}
		return new Timed(List.of(text), at);
	}

	/** A generated duration field and its exact value when valid. */
	private record Generated(List<String> lines, BigDecimal nanos) {

		Optional<BigDecimal> expectedNanos() {
			return Optional.ofNullable(this.nanos);
		}

	}

	/** A generated instant field and the instant when valid. */
	private record Timed(List<String> lines, Instant at) {

		Optional<Instant> expected() {
			return Optional.ofNullable(this.at);
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
