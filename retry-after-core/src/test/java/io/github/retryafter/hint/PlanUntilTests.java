package io.github.retryafter.hint;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** An instant another retry layer handed on, planned as an instant: to the millisecond, with the field's rules. */
class PlanUntilTests {

	private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

	private static RetryAfterPlanner planner(PlannerOptions options, double draw) {
		return RetryAfterPlanner.builder()
			.options(options)
			.ticker(() -> 5_000_000_000L)
			.wallClock(() -> NOW)
			.random(() -> draw)
			.build();
	}

	@Test
	void theFloorIsTheTimeToTheInstantRoundedUpToTheMillisecond() {
		RetryPlan plan = planner(PlannerOptions.builder().jitter(JitterMode.NONE).build(), 0.5)
			.planUntil(NOW.plusNanos(1_234_500_000L), PlanRequest.forAttempt(1));
		assertThat(plan.floor()).isEqualTo(Duration.ofMillis(1235));
		assertThat(plan.waitTime()).isEqualTo(Duration.ofMillis(1235));
		assertThat(plan.source()).isEqualTo(PlanSource.HANDED_ON);
		assertThat(plan.deadlineNanos()).isEqualTo(5_000_000_000L + 1_235_000_000L);
		assertThat(plan.clampedToZero()).isFalse();
	}

	@Test
	void theJitterIsDrawnAboveTheFloorAsForAField() {
		RetryPlan plan = planner(PlannerOptions.builder().build(), 0.5)
			.planUntil(NOW.plusSeconds(10), PlanRequest.forAttempt(1));
		assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(10));
		assertThat(plan.jitter()).isEqualTo(plan.spread().dividedBy(2));
		assertThat(plan.waitTime()).isEqualTo(plan.floor().plus(plan.jitter()));
	}

	@Test
	void anInstantAlreadyPassedIsAZeroFloor() {
		RetryPlan plan = planner(PlannerOptions.builder().jitter(JitterMode.NONE).build(), 0.5)
			.planUntil(NOW.minusSeconds(3), PlanRequest.forAttempt(2));
		assertThat(plan.floor()).isZero();
		assertThat(plan.clampedToZero()).isTrue();
	}

	@Test
	void anInstantBeyondTheMaxWaitIsRefusedNotShortened() {
		RetryAfterPlanner planner = planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).build(), 0.5);
		assertThatExceptionOfType(RetryAfterException.class)
			.isThrownBy(() -> planner.planUntil(NOW.plusSeconds(52758), PlanRequest.forAttempt(1)))
			.satisfies((ex) -> assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG))
			.withMessageContaining("inner retry layer handed on")
			.withMessageContaining("maxWait is 30000 ms");
	}

	@Test
	void itIsNotAFieldSoFieldsThatLeaveOutRetryAfterDoNotFilterIt() {
		PlannerOptions millisOnly = PlannerOptions.builder()
			.jitter(JitterMode.NONE)
			.fields(HintFields.of(HintField.RETRY_AFTER_MS))
			.build();
		assertThat(planner(millisOnly, 0.5).planUntil(NOW.plusMillis(800), PlanRequest.forAttempt(1)).floor())
			.isEqualTo(Duration.ofMillis(800));
	}

}
