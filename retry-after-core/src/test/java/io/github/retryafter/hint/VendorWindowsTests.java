package io.github.retryafter.hint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;
import io.github.retryafter.hint.RateLimitFields.Window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The vendor windows: OpenAI's request and token windows with Go-duration resets, Anthropic's with RFC 3339 resets
 * measured against the response's {@code Date}; the tightest window paces, a token window by the share left.
 */
class VendorWindowsTests {

	private static final HintFields VENDOR = HintFields.STANDARD.with(HintField.OPENAI_WINDOWS,
			HintField.ANTHROPIC_WINDOWS);

	private static final String DATE = "Tue, 08 Sep 2026 12:00:00 GMT";

	private static RateLimitFields read(HintFields fields, String... nameValuePairs) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		for (int i = 0; i < nameValuePairs.length; i += 2) {
			map.computeIfAbsent(nameValuePairs[i], (name) -> new ArrayList<>()).add(nameValuePairs[i + 1]);
		}
		return ResponseHints.of(HeaderSource.of(map)).rateLimits(fields);
	}

	private static Optional<Duration> openAiReset(String value) {
		RateLimitFields read = read(VENDOR, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", value);
		return read.reset();
	}

	@ParameterizedTest
	@CsvSource({ "1s, PT1S", "6m0s, PT6M", "20ms, PT0.02S", "1h2m3.5s, PT1H2M3.5S", "0.5s, PT0.5S", "0, PT0S",
			"0s, PT0S", "300us, PT0.0003S", "2µs, PT0.000002S", "7ns, PT0.000000007S", "1.0000000001s, PT1.000000001S",
			"1s1s, PT2S", ".5s, PT0.5S", "2562047h, PT2562047H" })
	void goDurationsReadAsGoReadsThemAFractionBelowANanosecondRoundedUp(String value, Duration expected) {
		assertThat(openAiReset(value)).contains(expected);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "-1s|cannot be signed or negative", "+1s|cannot be signed", "1|without a unit",
			"1.5|without a unit", "s|expected a number", "1 s|unknown unit", "1x|unknown unit", "1sm|unknown unit",
			"2562048h|longer than 292 years", "99999999999999999999s|longer than 292 years", "1..5s|without a unit",
			"'1s,2s'|unknown unit" })
	void anythingElseIsAnInvalidDurationNamingTheField(String value, String why) {
		RateLimitFields read = read(VENDOR, "x-ratelimit-reset-requests", value);
		assertThat(read.reset()).isEmpty();
		assertThat(read.problems()).singleElement().satisfies((problem) -> {
			assertThat(problem.code()).isEqualTo(Code.INVALID_DURATION);
			assertThat(problem.field()).isEqualTo("x-ratelimit-reset-requests");
			assertThat(problem.reason()).startsWith("x-ratelimit-reset-requests ignored: ").contains(why);
		});
	}

	@Test
	void anExhaustedRequestWindowHoldsUntilItsReset() {
		RateLimitFields read = read(VENDOR, "x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "1.5s");
		assertThat(read.family()).contains(RateLimitFields.Family.OPENAI);
		assertThat(read.remaining()).hasValue(0);
		assertThat(read.limit()).as("the request window's").hasValue(500);
		assertThat(read.hold()).contains(Duration.ofMillis(1500));
		assertThat(read.exhausted()).isTrue();
		assertThat(read.windows()).containsExactly(new Window("requests", Window.Kind.REQUESTS, OptionalLong.of(500),
				OptionalLong.of(0), Optional.of(Duration.ofMillis(1500))));
	}

	@Test
	void anExhaustedTokenWindowHoldsLikeARequestWindowAndTheLatestResetOfTheExhaustedWins() {
		RateLimitFields tokens = read(VENDOR, "x-ratelimit-remaining-requests", "499", "x-ratelimit-reset-requests",
				"120ms", "x-ratelimit-limit-tokens", "30000", "x-ratelimit-remaining-tokens", "0",
				"x-ratelimit-reset-tokens", "20s");
		assertThat(tokens.hold()).contains(Duration.ofSeconds(20));
		RateLimitFields both = read(VENDOR, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s",
				"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "6m0s");
		assertThat(both.hold()).contains(Duration.ofMinutes(6));
	}

	@Test
	void aTokenWindowScalesTheRequestWindowByTheShareOfTokensLeft() {
		RateLimitFields read = read(VENDOR, "x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests",
				"100", "x-ratelimit-reset-requests", "10s", "x-ratelimit-limit-tokens", "10000",
				"x-ratelimit-remaining-tokens", "2500", "x-ratelimit-reset-tokens", "15s");
		assertThat(read.remaining()).as("as announced").hasValue(100);
		assertThat(read.pacedRemaining()).as("a quarter of the tokens left: a quarter of the requests").hasValue(25);
		assertThat(read.ratePerSecond()).isCloseTo(2.5, within(1e-12));
		assertThat(read.hold()).isEmpty();
	}

	@Test
	void theScarcestTokenWindowScalesAndAScaleNeverMakesAZero() {
		RateLimitFields read = read(VENDOR, "anthropic-ratelimit-requests-remaining", "3",
				"anthropic-ratelimit-input-tokens-limit", "1000", "anthropic-ratelimit-input-tokens-remaining", "900",
				"anthropic-ratelimit-output-tokens-limit", "1000", "anthropic-ratelimit-output-tokens-remaining", "10");
		assertThat(read.pacedRemaining()).as("3 × 1% rounds down to 0, kept at 1: only an exhausted window holds")
			.hasValue(1);
		assertThat(read.ratePerSecond()).as("no reset, no rate").isZero();
	}

	@Test
	void tokensWithoutARequestWindowOnlyHold() {
		RateLimitFields read = read(VENDOR, "x-ratelimit-limit-tokens", "100", "x-ratelimit-remaining-tokens", "50",
				"x-ratelimit-reset-tokens", "1s");
		assertThat(read.remaining()).isEmpty();
		assertThat(read.limit()).as("a token window's limit is not the requests'").isEmpty();
		assertThat(read.pacedRemaining()).isEmpty();
		assertThat(read.hold()).isEmpty();
	}

	@Test
	void anthropicResetsAreMeasuredAgainstTheResponsesDate() {
		RateLimitFields read = read(VENDOR, "Date", DATE, "anthropic-ratelimit-requests-limit", "50",
				"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset",
				"2026-09-08T12:00:30Z", "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
				"2026-09-08T13:00:45.250+01:00");
		assertThat(read.family()).contains(RateLimitFields.Family.ANTHROPIC);
		assertThat(read.reset()).contains(Duration.ofSeconds(30));
		assertThat(read.hold()).contains(Duration.ofMillis(45_250));
		assertThat(read.problems()).isEmpty();
	}

	@Test
	void anInstantWithinTheDatesOneSecondPrecisionIsZeroAndAnEarlierOneIsRefused() {
		assertThat(read(VENDOR, "Date", DATE, "anthropic-ratelimit-requests-reset", "2026-09-08T11:59:59.500Z").reset())
			.contains(Duration.ZERO);
		RateLimitFields stale = read(VENDOR, "Date", DATE, "anthropic-ratelimit-requests-reset",
				"2026-09-08T11:59:55Z");
		assertThat(stale.reset()).isEmpty();
		assertThat(stale.problems()).extracting(RateLimitFields.Problem::code).containsExactly(Code.RESET_BEFORE_DATE);
	}

	@Test
	void anInstantWithoutADateIsRefusedTheClientsClockIsNeverUsed() {
		RateLimitFields read = read(VENDOR, "anthropic-ratelimit-requests-reset", "2026-09-08T12:00:30Z");
		assertThat(read.reset()).isEmpty();
		assertThat(read.problems()).singleElement().satisfies((problem) -> {
			assertThat(problem.code()).isEqualTo(Code.MISSING_DATE);
			assertThat(problem.reason()).contains("the response has no Date");
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "2026-02-30T00:00:00Z|does not exist", "2026-13-01T00:00:00Z|does not exist",
			"2026-09-08T24:00:00Z|does not exist", "+12026-09-08T12:00:00Z|four-digit year",
			"99999-09-08T12:00:00Z|expected \"-\"", "2026-09-08 12:00:30Z|expected \"T\"", "2026-09-08T12:00:30|an offset",
			"2026-09-08T12:00:30+0100|an offset", "2026-09-08T12:00:30.Z|digits after", "1786190430|expected \"-\"",
			"Tue, 08 Sep 2026 12:00:30 GMT|four-digit year", "2026-09-08T12:00:30Zjunk|nothing after it" })
	void anythingButAnRfc3339DateTimeIsAnInvalidInstant(String value, String why) {
		RateLimitFields read = read(VENDOR, "Date", DATE, "anthropic-ratelimit-tokens-reset", value);
		assertThat(read.problems()).singleElement().satisfies((problem) -> {
			assertThat(problem.code()).isEqualTo(Code.INVALID_INSTANT);
			assertThat(problem.reason()).contains(why);
		});
	}

	@Test
	void repeatedEmptyAndNonNumericFieldsAreNamedAndTheRestOfTheWindowStands() {
		RateLimitFields read = read(VENDOR, "x-ratelimit-limit-requests", "500", "x-ratelimit-limit-requests", "600",
				"x-ratelimit-remaining-requests", " ", "x-ratelimit-reset-requests", "1s", "x-ratelimit-limit-tokens",
				"0", "x-ratelimit-remaining-tokens", "-3");
		assertThat(read.problems()).extracting(RateLimitFields.Problem::code)
			.containsExactly(Code.MULTIPLE_VALUES, Code.MALFORMED, Code.INVALID_NUMBER, Code.INVALID_NUMBER);
		assertThat(read.reset()).contains(Duration.ofSeconds(1));
		assertThat(read.hold()).isEmpty();
	}

	@Test
	void theStandardFieldSetReadsNoVendorWindowAndTheStandardFamiliesStillAnswerBesideThem() {
		assertThat(read(HintFields.STANDARD, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s"))
			.isEqualTo(RateLimitFields.NONE);
		RateLimitFields github = read(VENDOR, "Date", DATE, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset",
				"1788868830");
		assertThat(github.family()).contains(RateLimitFields.Family.X_TRIO);
		assertThat(github.hold()).contains(Duration.ofSeconds(30));
	}

}
