package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.PlanSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DelaySource;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryScheduledEvent;

import static org.assertj.core.api.Assertions.assertThat;

/** What the events say the provider said: its floor and our jitter apart, the fields passed over, the skew in words. */
class ProviderWordsTests {

	private static RetryScheduledEvent scheduled(RetryPlan plan) {
		Decision.Retry retry = new Decision.Retry(plan.waitTime(), 0, DelaySource.RETRY_AFTER, Optional.of(plan),
				Optional.empty(), Optional.empty());
		return new RetryScheduledEvent(OperationSpec.of("GET"), 1,
				new AttemptOutcome.Response(429, HeaderSource.empty(), 0, 0), retry, Duration.ofSeconds(20),
				plan.waitTime(), 10, Duration.ZERO);
	}

	private static RetryPlan plan(PlanSource source, long floor, long jitter, Optional<Duration> skew,
			List<RetryPlan.PassedOver> passedOver) {
		return new RetryPlan(Duration.ofMillis(floor + jitter), Duration.ofMillis(floor), Duration.ofMillis(jitter),
				Duration.ofMillis(750), source, Duration.ofMillis(floor), Duration.ZERO, false, skew, false, 0,
				Instant.EPOCH, passedOver);
	}

	@Test
	void aSkewOfMinus787MsIsWithinTheDatesOneSecondPrecisionNotSkew() {
		RetryPlan plan = plan(PlanSource.DELAY_SECONDS, 3000, 143, Optional.of(Duration.ofMillis(-787)), List.of());
		assertThat(ProviderWords.of(scheduled(plan))).isEqualTo("the provider asked to wait 3000 ms (Retry-After"
				+ " 3000 ms); 143 ms of jitter added above it, so attempt 2 waits 3143 ms; the server's clock agrees with"
				+ " ours within the Date's one-second precision");
		assertThat(ProviderWords.asked(plan, plan.waitTime()))
			.isEqualTo(new RetryAfterEvents.Asked("Retry-After", 3000, 143, -0.787, true));
	}

	@Test
	void aSkewOfASecondOrMoreIsSkewAndSaysWhichWay() {
		RetryPlan behind = plan(PlanSource.HTTP_DATE, 2000, 0, Optional.of(Duration.ofMillis(-1000)), List.of());
		assertThat(ProviderWords.of(scheduled(behind))).endsWith("; the server's clock is 1.000 s behind ours");
		RetryPlan ahead = plan(PlanSource.HTTP_DATE, 2000, 0, Optional.of(Duration.ofSeconds(42)), List.of());
		assertThat(ProviderWords.of(scheduled(ahead))).endsWith("; the server's clock is 42.000 s ahead of ours");
		assertThat(ProviderWords.asked(ahead, ahead.waitTime()).skewWithinDatePrecision()).isFalse();
	}

	@Test
	void theFieldThatWonAndTheOnesPassedOverAreNamed() {
		RetryPlan plan = plan(PlanSource.RETRY_AFTER_MS, 2500, 625, Optional.empty(),
				List.of(new RetryPlan.PassedOver(HintField.RETRY_AFTER, Optional.of(Duration.ofSeconds(1)),
						Optional.empty()),
						new RetryPlan.PassedOver(HintField.X_MS_RETRY_AFTER_MS, Optional.empty(),
								Optional.of(RetryAfterError.INVALID_DELAY))));
		assertThat(ProviderWords.of(scheduled(plan))).isEqualTo("the provider asked to wait 2500 ms (retry-after-ms"
				+ " 2500 ms, later than Retry-After's 1000 ms, x-ms-retry-after-ms refused: INVALID_DELAY); 625 ms of"
				+ " jitter added above it, so attempt 2 waits 3125 ms");
		assertThat(ProviderWords.asked(plan, plan.waitTime()))
			.isEqualTo(new RetryAfterEvents.Asked("retry-after-ms", 2500, 625, null, false));
	}

}
