package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 7's measure: 1,000 operations of one application against a provider that is down for 2 s and then admits
 * 250 requests a second. The default policy with the starter's pacing must succeed for at least 99.5% of them, with
 * at most 2.5 attempts each and no retry before the server's instant, also with the provider's clock 40 s off either
 * way and its hints written as HTTP-dates.
 */
class OutageThenRateLimitTests {

	private static final int OPERATIONS = 1000;

	@Test
	void pacingMeetsTheGoalOnTheIssuesWorkload() {
		FleetReport report = FleetSimulation.run(Workload.outageThenRateLimit(OPERATIONS), 1);
		assertGoal(report.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED), "delay-seconds, seed 1");
	}

	@ParameterizedTest
	@ValueSource(longs = { -40, 40 })
	void pacingMeetsTheGoalWithTheProvidersClockFortySecondsOffAndHttpDates(long offsetSeconds) {
		Workload workload = Workload.outageThenRateLimit(OPERATIONS);
		workload = workload.withProvider(workload.provider()
			.withHintForm(ProviderModel.HintForm.HTTP_DATE)
			.withClockOffset(Duration.ofSeconds(offsetSeconds)));
		FleetReport report = FleetSimulation.run(workload, 1);
		assertGoal(report.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED), "HTTP-date, provider clock " + offsetSeconds + " s");
	}

	@Test
	void pacingMeetsTheGoalOnOtherSeeds() {
		for (long seed = 2; seed <= 4; seed++) {
			FleetReport report = FleetSimulation.run(Workload.outageThenRateLimit(OPERATIONS), seed,
					List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED));
			assertGoal(report.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED), "seed " + seed);
		}
	}

	private static void assertGoal(PolicyResult paced, String variant) {
		assertThat(paced.successRate()).as("success, %s", variant).isGreaterThanOrEqualTo(0.995);
		assertThat(paced.amplification()).as("attempts per operation, %s", variant).isLessThanOrEqualTo(2.5);
		assertThat(paced.earlyRetries()).as("retries before the server's instant, %s", variant).isZero();
	}

}
