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

	/**
	 * Issue 13's measure: the paced backlog finishes within 1.15× of the fastest schedule that honours every hint, in
	 * each clock variant and on seeds 1 to 4, with at most 2.2 attempts per operation.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "delay-seconds", "http-date-40s-slow", "http-date-40s-fast" })
	void pacingFinishesWithinFifteenPercentOfTheBoundThatHonoursEveryHint(String variant) {
		Workload workload = variant(variant);
		Duration p50Bound = bound(workload, 0.50);
		Duration p99Bound = bound(workload, 0.99);
		assertThat(p50Bound).isEqualTo(Duration.ofNanos(3_901_000_000L));
		assertThat(p99Bound).isEqualTo(Duration.ofNanos(5_861_000_000L));
		for (long seed = 1; seed <= 4; seed++) {
			PolicyResult paced = FleetSimulation.run(workload, seed, List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED))
				.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED);
			String as = variant + ", seed " + seed;
			assertGoal(paced, as);
			assertThat(paced.amplification()).as("attempts per operation, %s", as).isLessThanOrEqualTo(2.2);
			assertThat(ratio(paced.p50ToSuccess().orElseThrow(), p50Bound)).as("p50 / bound, %s", as)
				.isBetween(1.0, 1.15);
			assertThat(ratio(paced.p99ToSuccess().orElseThrow(), p99Bound)).as("p99 / bound, %s", as)
				.isBetween(1.0, 1.15);
		}
	}

	/**
	 * Issue 13's second measure: a provider that announces its quota in {@code RateLimit} fields is paced before its
	 * first refusal, so after the first window (when nobody could know the quota yet) at most 1% of the paced
	 * policy's requests are refused, against more without the fields, on seeds 1 to 4.
	 */
	@Test
	void anAnnouncedQuotaKeepsRefusalsAfterTheFirstWindowUnderOnePercent() {
		for (long seed = 1; seed <= 4; seed++) {
			Workload announced = Workload.announcedQuota(3000);
			Workload silent = announced.withProvider(
					announced.provider().withRateLimit(new ProviderModel.RateLimit(250, 25, false)));
			PolicyResult with = FleetSimulation.run(announced, seed, List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED))
				.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED);
			PolicyResult without = FleetSimulation.run(silent, seed, List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED))
				.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED);
			assertThat(with.lateAttempts()).as("seed %d", seed).isGreaterThan(2500);
			assertThat(with.lateRefusedShare()).as("refused after the first window with the fields, seed %d", seed)
				.isLessThanOrEqualTo(0.01)
				.isLessThan(without.lateRefusedShare());
			assertThat(with.successRate()).as("seed %d", seed).isGreaterThanOrEqualTo(0.995);
			assertThat(without.successRate()).as("seed %d", seed).isGreaterThanOrEqualTo(0.995);
			assertThat(with.earlyRetries()).isZero();
		}
	}

	/**
	 * The earliest the {@code p}-quantile operation can succeed while every hint is honoured: nobody may come back
	 * before the provider recovers (every hint names an instant at or after it), from then on it admits its burst at
	 * once and {@code perSecond} after, and the response takes at least the shortest one-way latency back.
	 */
	static Duration bound(Workload workload, double p) {
		ProviderModel.RateLimit limit = workload.provider().rateLimit().orElseThrow();
		long rank = (long) Math.ceil(p * workload.clients());
		double queued = Math.max(0, rank - limit.burst()) / limit.perSecond();
		return workload.provider().outageMax().plusNanos(Math.round(queued * 1e9)).plus(workload.client().latencyMin());
	}

	private static double ratio(Duration measured, Duration bound) {
		return measured.toNanos() / (double) bound.toNanos();
	}

	private static Workload variant(String name) {
		Workload workload = Workload.outageThenRateLimit(OPERATIONS);
		return switch (name) {
			case "delay-seconds" -> workload;
			case "http-date-40s-slow" -> workload.withProvider(workload.provider()
				.withHintForm(ProviderModel.HintForm.HTTP_DATE)
				.withClockOffset(Duration.ofSeconds(-40)));
			default -> workload.withProvider(workload.provider()
				.withHintForm(ProviderModel.HintForm.HTTP_DATE)
				.withClockOffset(Duration.ofSeconds(40)));
		};
	}

	private static void assertGoal(PolicyResult paced, String variant) {
		assertThat(paced.successRate()).as("success, %s", variant).isGreaterThanOrEqualTo(0.995);
		assertThat(paced.amplification()).as("attempts per operation, %s", variant).isLessThanOrEqualTo(2.5);
		assertThat(paced.earlyRetries()).as("retries before the server's instant, %s", variant).isZero();
	}

}
