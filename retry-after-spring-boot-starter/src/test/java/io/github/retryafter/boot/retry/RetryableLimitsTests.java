package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.core.retry.RetryPolicy;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The predicate reads {@code @Retryable} as Spring Framework 7 does, and its bound on the back-off Spring waits after
 * the predicate's wait is never below what Spring's own back-off, built from the same attributes, returns.
 */
class RetryableLimitsTests {

	@Test
	void readsTheAttributesAsSpringDoesPlaceholdersAndTimeUnitIncluded() throws Exception {
		RetryableLimits limits = RetryableLimits.of(method("configured"),
				(value) -> value.replace("${retries}", "4").replace("${timeout}", "1m")).orElseThrow();
		assertThat(limits.maxRetries()).isEqualTo(4);
		assertThat(limits.timeout()).isEqualTo(Duration.ofMinutes(1));
		assertThat(limits.delay()).isEqualTo(Duration.ofSeconds(2));
		assertThat(limits.maxDelay()).isEqualTo(Duration.ofSeconds(10));
		assertThat(RetryableLimits.of(method("inherited"), null)).map(RetryableLimits::maxRetries).contains(7L);
		assertThat(RetryableLimits.of(Object.class.getMethod("toString"), null)).isEmpty();
	}

	@Test
	void anUnboundedMaxDelayDoesNotOverflow() {
		RetryableLimits limits = new RetryableLimits(100, Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(1),
				3.0, Duration.ofSeconds(Long.MAX_VALUE));
		assertThat(RetryableLimits.millis(limits.maxDelay())).isEqualTo(Long.MAX_VALUE);
		assertThat(limits.longestBackOffMillis(3)).isEqualTo(18_000 + 9000);
		assertThat(limits.longestBackOffMillis(100)).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void theLongestBackOffIsNeverBelowSpringsOwn() {
		long[][] configurations = { { 1000, 0, 10, 60_000 }, { 500, 200, 10, 60_000 }, { 1000, 500, 20, 5000 },
				{ 100, 50, 15, 100_000 } };
		for (long[] each : configurations) {
			double multiplier = each[2] / 10.0;
			RetryableLimits limits = new RetryableLimits(8, Duration.ZERO, Duration.ofMillis(each[0]),
					Duration.ofMillis(each[1]), multiplier, Duration.ofMillis(each[3]));
			RetryPolicy spring = RetryPolicy.builder()
				.maxRetries(8)
				.delay(Duration.ofMillis(each[0]))
				.jitter(Duration.ofMillis(each[1]))
				.multiplier(multiplier)
				.maxDelay(Duration.ofMillis(each[3]))
				.build();
			for (int run = 0; run < 200; run++) {
				BackOffExecution execution = spring.getBackOff().start();
				for (int retry = 1; retry <= 8; retry++) {
					long springs = execution.nextBackOff();
					assertThat(limits.longestBackOffMillis(retry)).as("retry %d of %s", retry, limits)
						.isGreaterThanOrEqualTo(springs);
					if (each[1] == 0) {
						assertThat(limits.longestBackOffMillis(retry)).isEqualTo(springs);
					}
				}
			}
		}
	}

	private static Method method(String name) throws NoSuchMethodException {
		return Annotated.class.getDeclaredMethod(name);
	}

	@Retryable(maxRetries = 7)
	static class Annotated {

		@Retryable(maxRetriesString = "${retries}", timeoutString = "${timeout}", delay = 2, maxDelay = 10,
				timeUnit = TimeUnit.SECONDS)
		void configured() {
		}

		void inherited() {
		}

	}

}
