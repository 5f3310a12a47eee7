package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model provider's windowed burst: 50 calls of one application started together against a provider admitting 5
 * requests in any second and refusing the rest with {@code 429} and {@code Retry-After: 2}, no field describing its
 * window. The window admits all 50 within 10 s; the starter's pacing must get at least 98% of them through, the last
 * within 1.3× of those 10 s, and no retry may reach the provider before the instant its own refusal named.
 */
class SlidingWindowWorkloadTests {

	private static final int CALLS = 50;

	@Test
	void theBoundIsTenWindowsForFiftyCalls() {
		assertThat(Workload.FIVE_A_SECOND.bound(CALLS)).isEqualTo(Duration.ofSeconds(10));
		assertThat(Workload.FIVE_A_SECOND.bound(5)).isEqualTo(Duration.ofSeconds(1));
		assertThat(Workload.FIVE_A_SECOND.bound(6)).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void theProviderAdmitsFiveInAnySecondAndRefusesTheRestWithItsRetryAfter() {
		SlidingWindowProvider provider = new SlidingWindowProvider(ProviderModel.slidingWindow(Workload.FIVE_A_SECOND));
		for (int i = 0; i < 5; i++) {
			assertThat(provider.answer(i * 100_000_000L).status()).isEqualTo(200);
		}
		Answer refused = provider.answer(900_000_000L);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.field("Retry-After")).containsExactly("2");
		assertThat(refused.field("retry-after-ms")).containsExactly("2000");
		assertThat(refused.field("x-ratelimit-remaining-requests")).isEmpty();
		assertThat(refused.instructedNanos()).isEqualTo(2_900_000_000L);
		assertThat(provider.answer(999_999_999L).status()).as("the first admission is still in the window").isEqualTo(429);
		assertThat(provider.answer(1_000_000_000L).status()).as("the first admission has left it").isEqualTo(200);
		assertThat(provider.answer(1_050_000_000L).status()).isEqualTo(429);
	}

	@Test
	void fiftyCallsDrainWithinOnePointThreeTimesTheWindowsTenSecondsWithNoEarlyRequest() {
		Duration bound = Workload.FIVE_A_SECOND.bound(CALLS);
		for (long seed = 1; seed <= 5; seed++) {
			PolicyResult paced = paced(Workload.slidingWindow(CALLS), seed);
			String as = "seed " + seed;
			System.out.printf("sliding-window seed %d: success %.1f%%, %d requests, last success %s, early %d%n", seed,
					paced.successRate() * 100, paced.attempts(), paced.lastSuccess().orElse(null), paced.earlyRetries());
			assertThat(paced.earlyRetries()).as("retries before their own refusal's instant, %s", as).isZero();
			assertThat(paced.successRate()).as("success, %s", as).isGreaterThanOrEqualTo(0.98);
			assertThat(paced.lastSuccess().orElseThrow()).as("last success, %s", as)
				.isLessThanOrEqualTo(Duration.ofMillis((long) (bound.toMillis() * 1.3)));
		}
	}

	private static PolicyResult paced(Workload workload, long seed) {
		return FleetSimulation.run(workload, seed, List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED))
			.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED);
	}

}
