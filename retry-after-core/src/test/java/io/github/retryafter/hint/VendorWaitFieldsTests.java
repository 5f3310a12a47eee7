package io.github.retryafter.hint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.JitterMode;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlanSource;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The millisecond wait fields ({@code retry-after-ms}, {@code x-ms-retry-after-ms}) beside {@code Retry-After}: read
 * only when the field set names them, parsed strictly, and the later instant wins with the others reported.
 */
class VendorWaitFieldsTests {

	private static final long DATE = Instant.parse("2026-09-08T12:00:00Z").getEpochSecond();

	private static final HintFields AZURE = HintFields.STANDARD.with(HintField.RETRY_AFTER_MS,
			HintField.X_MS_RETRY_AFTER_MS);

	private static RetryAfterPlanner planner(HintFields fields, Duration maxWait) {
		return RetryAfterPlanner.builder()
			.options(PlannerOptions.builder().jitter(JitterMode.NONE).fields(fields).maxWait(maxWait).build())
			.ticker(() -> 0)
			.wallClock(() -> Instant.ofEpochSecond(DATE))
			.random(() -> 0.5)
			.build();
	}

	private static HeaderSource headers(String... nameValuePairs) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		for (int i = 0; i < nameValuePairs.length; i += 2) {
			map.computeIfAbsent(nameValuePairs[i], (name) -> new ArrayList<>()).add(nameValuePairs[i + 1]);
		}
		return HeaderSource.of(map);
	}

	private static RetryPlan plan(HintFields fields, String... nameValuePairs) {
		return planner(fields, null).plan(headers(nameValuePairs), PlanRequest.forAttempt(1)).orElseThrow();
	}

	@Test
	void retryAfterMsOf2500WinsOverRetryAfter1AndTheOneSecondIsReported() {
		RetryPlan plan = plan(AZURE, "Retry-After", "1", "retry-after-ms", "2500");
		assertThat(plan.floor()).isEqualTo(Duration.ofMillis(2500));
		assertThat(plan.waitTime()).isEqualTo(Duration.ofMillis(2500));
		assertThat(plan.source()).isEqualTo(PlanSource.RETRY_AFTER_MS);
		assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.RETRY_AFTER,
				Optional.of(Duration.ofSeconds(1)), Optional.empty()));
	}

	@Test
	void retryAfterWinsWhenItsInstantIsLater() {
		RetryPlan plan = plan(AZURE, "Retry-After", "3", "retry-after-ms", "1200", "x-ms-retry-after-ms", "2999");
		assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(3));
		assertThat(plan.source()).isEqualTo(PlanSource.DELAY_SECONDS);
		assertThat(plan.passedOver()).extracting(RetryPlan.PassedOver::field)
			.containsExactly(HintField.RETRY_AFTER_MS, HintField.X_MS_RETRY_AFTER_MS);
	}

	@Test
	void anHttpDateIsComparedAsTheWaitFromTheResponsesOwnDate() {
		RetryPlan plan = plan(AZURE, "Date", HttpDate.format(DATE), "Retry-After", HttpDate.format(DATE + 2),
				"x-ms-retry-after-ms", "2001");
		assertThat(plan.source()).isEqualTo(PlanSource.X_MS_RETRY_AFTER_MS);
		assertThat(plan.floor()).isEqualTo(Duration.ofMillis(2001));
		assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.RETRY_AFTER,
				Optional.of(Duration.ofSeconds(2)), Optional.empty()));
	}

	@Test
	void aTieGoesToRetryAfter() {
		assertThat(plan(AZURE, "Retry-After", "2", "retry-after-ms", "2000").source())
			.isEqualTo(PlanSource.DELAY_SECONDS);
	}

	@Test
	void theStandardFieldSetNeverReadsTheMillisecondFields() {
		List<String> reads = new ArrayList<>();
		HeaderSource fields = headers("Retry-After", "1", "retry-after-ms", "2500");
		ResponseHints hints = ResponseHints.of((name) -> {
			reads.add(name);
			return fields.values(name);
		});
		RetryPlan plan = planner(HintFields.STANDARD, null).plan(hints, PlanRequest.forAttempt(1)).orElseThrow();
		assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(1));
		assertThat(plan.passedOver()).isEmpty();
		assertThat(reads).doesNotContain("retry-after-ms", "x-ms-retry-after-ms");
		assertThat(planner(HintFields.STANDARD, null).plan(headers("retry-after-ms", "2500"))).isEmpty();
	}

	@Test
	void aMillisecondFieldAloneIsAPlan() {
		RetryPlan plan = plan(AZURE, "retry-after-ms", "20");
		assertThat(plan.floor()).isEqualTo(Duration.ofMillis(20));
		assertThat(plan.source()).isEqualTo(PlanSource.RETRY_AFTER_MS);
		assertThat(plan.passedOver()).isEmpty();
	}

	@Test
	void aFractionIsRoundedUpSoTheWaitIsNeverShorterThanAsked() {
		assertThat(plan(AZURE, "retry-after-ms", "2500.001").floor()).isEqualTo(Duration.ofMillis(2501));
		assertThat(plan(AZURE, "retry-after-ms", "2500.000").floor()).isEqualTo(Duration.ofMillis(2500));
		assertThat(plan(AZURE, "retry-after-ms", " 0.4\t").floor()).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void aRefusedRetryAfterIsPassedOverWithItsCodeWhenAMillisecondFieldIsUsable() {
		RetryPlan plan = plan(AZURE, "Retry-After", "soon", "retry-after-ms", "2500");
		assertThat(plan.source()).isEqualTo(PlanSource.RETRY_AFTER_MS);
		assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.RETRY_AFTER,
				Optional.empty(), Optional.of(RetryAfterError.INVALID_DELAY)));
	}

	@Test
	void whenEveryWaitFieldIsRefusedRetryAftersOwnRefusalIsThrown() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> plan(AZURE, "Retry-After", "", "retry-after-ms", "-5"));
		assertThat(ex.code()).isEqualTo(RetryAfterError.EMPTY);
		assertThat(ex.getMessage()).startsWith("Retry-After is present but empty");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "-2500|INVALID_DELAY|cannot be signed or negative",
			"+2500|INVALID_DELAY|cannot be signed", "2.5e3|INVALID_DELAY|exponent", "2500ms|INVALID_DELAY|not a number",
			"2500,3000|MULTIPLE_VALUES|comma-separated", "'   '|EMPTY|present but empty", ".5|INVALID_DELAY|decimal point",
			"5.|INVALID_DELAY|decimal point", "1.2.3|INVALID_DELAY|decimal point", "٣٠٠|INVALID_DELAY|not an ASCII one",
			"NaN|INVALID_DELAY|not a number", "Infinity|INVALID_DELAY|not a number" })
	void hostileValuesAreRefusedWithTheFieldNamedAndACode(String value, RetryAfterError code, String why) {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> plan(AZURE, "retry-after-ms", value));
		assertThat(ex.code()).isEqualTo(code);
		assertThat(ex.getMessage()).startsWith("retry-after-ms").contains(why).contains("Ask the provider");
	}

	@Test
	void twoLinesAreRefusedAsMultipleValues() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> plan(AZURE, "x-ms-retry-after-ms", "100", "x-ms-retry-after-ms", "200"));
		assertThat(ex.code()).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
		assertThat(ex.getMessage()).startsWith("x-ms-retry-after-ms appeared in 2 field lines");
	}

	@Test
	void aHugeValueSaturatesAndIsRefusedAsTooLongNamingTheField() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> planner(AZURE, Duration.ofSeconds(30)).plan(headers("Retry-After", "1", "retry-after-ms",
						"99999999999999999999999999999"), PlanRequest.forAttempt(1)));
		assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG);
		assertThat(ex.getMessage()).startsWith("retry-after-ms \"99999999999999999999999999999\" asks for at least "
				+ Long.MAX_VALUE + " ms");
	}

	@Test
	void theLaterInstantIsJudgedAgainstTheMaxWaitSoARetryAfterWithinItDoesNotRescueALongerMillisecondField() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> planner(AZURE, Duration.ofSeconds(30)).plan(headers("Retry-After", "1", "retry-after-ms", "40000"),
						PlanRequest.forAttempt(1)));
		assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG);
	}

	@Test
	void eachMillisecondFieldIsReadAndParsedOnce() {
		List<String> reads = new ArrayList<>();
		HeaderSource fields = headers("Retry-After", "1", "retry-after-ms", "2500", "x-ms-retry-after-ms", "x");
		ResponseHints hints = ResponseHints.of((name) -> {
			reads.add(name);
			return fields.values(name);
		});
		RetryAfterPlanner planner = planner(AZURE, null);
		planner.plan(hints, PlanRequest.forAttempt(1));
		planner.plan(hints, PlanRequest.forAttempt(2));
		assertThat(hints.hasWaitField(AZURE)).isTrue();
		assertThat(reads).doesNotHaveDuplicates().contains("retry-after-ms", "x-ms-retry-after-ms");
	}

}
