package io.github.retryafter.hint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ResponseHintsTests {

	private static final long DATE = Instant.parse("2026-09-08T12:00:00Z").getEpochSecond();

	private static final RetryAfterPlanner PLANNER = RetryAfterPlanner.builder()
		.ticker(() -> 0)
		.wallClock(() -> Instant.ofEpochSecond(DATE))
		.random(() -> 0.5)
		.build();

	@Test
	void nothingIsReadUntilAHintIsAskedFor() {
		List<String> reads = new ArrayList<>();
		ResponseHints.of((name) -> {
			reads.add(name);
			return List.of();
		});
		assertThat(reads).isEmpty();
	}

	@Test
	void planningTwiceAndReadingTheRateLimitsAndTheLinesReadsEachFieldOnce() {
		List<String> reads = new ArrayList<>();
		HeaderSource fields = HeaderSource.of(Map.of("Retry-After", List.of(HttpDate.format(DATE + 30)), "Date",
				List.of(HttpDate.format(DATE)), "Age", List.of("2"), "RateLimit-Reset", List.of(String.valueOf(DATE + 60)),
				"RateLimit-Remaining", List.of("0")));
		ResponseHints hints = ResponseHints.of((name) -> {
			reads.add(name);
			return fields.values(name);
		});
		assertThat(PLANNER.plan(hints, PlanRequest.forAttempt(1))).hasValueSatisfying(
				(plan) -> assertThat(plan.floor()).hasSeconds(28));
		assertThat(PLANNER.plan(hints, PlanRequest.forAttempt(2))).isPresent();
		assertThat(hints.rateLimits().reset()).hasValueSatisfying((reset) -> assertThat(reset).hasSeconds(60));
		assertThat(hints.retryAfterLines()).containsExactly(HttpDate.format(DATE + 30));
		assertThat(reads).doesNotHaveDuplicates().contains("Retry-After", "Date", "Age", "RateLimit-Reset");
	}

	@Test
	void itsTextNamesTheFieldsReadAndNeverTheirValues() {
		ResponseHints hints = ResponseHints.of(HeaderSource.of(Map.of("Retry-After", List.of("120 session=SECRET"),
				"Date", List.of(HttpDate.format(DATE)))));
		assertThat(hints).hasToString("ResponseHints[nothing read]");
		assertThat(hints.hasRetryAfter()).isTrue();
		hints.dateLines();
		assertThat(hints).hasToString("ResponseHints[read Retry-After: 1 line, Date: 1 line]");
		assertThat(hints.toString()).doesNotContain("SECRET").doesNotContain("GMT");
	}

	@Test
	void aRefusalIsParsedOnceAndThrownAgain() {
		ResponseHints hints = ResponseHints.of(HeaderSource.of(Map.of("Retry-After", List.of("soon"))));
		RetryAfterException first = catchThrowableOfType(RetryAfterException.class,
				() -> PLANNER.plan(hints, PlanRequest.forAttempt(1)));
		RetryAfterException second = catchThrowableOfType(RetryAfterException.class,
				() -> PLANNER.plan(hints, PlanRequest.forAttempt(1)));
		assertThat(first.code()).isEqualTo(RetryAfterError.INVALID_DELAY);
		assertThat(second).isSameAs(first);
	}

	@Test
	void anRfc850DateIsJudgedAgainAgainstAnotherReferenceOnly() {
		ResponseHints hints = ResponseHints.of(HeaderSource.of(Map.of("Date", List.of("Tuesday, 08-Sep-26 12:00:00 GMT"))));
		long in2026 = DATE;
		long in1970 = Instant.parse("1970-01-02T00:00:00Z").getEpochSecond();
		assertThat(hints.date(in2026)).isEqualTo(DATE);
		assertThat(hints.date(in2026)).isEqualTo(DATE);
		assertThat(catchThrowableOfType(RetryAfterException.class, () -> hints.date(in1970)).code())
			.as("1926-09-08 was a Wednesday").isEqualTo(RetryAfterError.DAY_NAME_MISMATCH);
	}

}
