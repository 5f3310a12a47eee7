package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FleetSimulationTests {

	/** Small enough to keep the default test run fast; the command line runs 1,000. */
	private static final int CLIENTS = 300;

	private static final long SEED = 1;

	@Test
	void sameSeedGivesTheSameReportToTheCharacter() {
		Workload workload = Workload.shared(CLIENTS);
		assertThat(FleetSimulation.run(workload, SEED).render()).isEqualTo(FleetSimulation.run(workload, SEED).render());
	}

	@Test
	void anotherSeedGivesAnotherReport() {
		Workload workload = Workload.episodes(CLIENTS);
		assertThat(FleetSimulation.run(workload, 2).render()).isNotEqualTo(FleetSimulation.run(workload, SEED).render());
	}

	@Test
	void everyPolicyMeetsTheSameScenario() {
		// The scenario is drawn before any policy runs, so running one policy alone changes nothing for it.
		Workload workload = Workload.episodes(CLIENTS);
		PolicyResult alone = FleetSimulation.run(workload, SEED, List.of(FleetPolicy.FLOOR_PLUS_JITTER))
			.result(FleetPolicy.FLOOR_PLUS_JITTER);
		assertThat(FleetSimulation.run(workload, SEED).result(FleetPolicy.FLOOR_PLUS_JITTER)).isEqualTo(alone);
	}

	@ParameterizedTest
	@ValueSource(strings = { "episodes", "shared" })
	void theDefaultKeepsCappedSuccessRateWithATenthOfItsHerdNoEarlyRetryAndNoMoreAttempts(String name) {
		for (long seed = 1; seed <= 3; seed++) {
			FleetReport report = FleetSimulation.run(Workload.named(name, CLIENTS), seed,
					List.of(FleetPolicy.CAPPED, FleetPolicy.FLOOR_PLUS_JITTER, FleetPolicy.FLOOR_PLUS_JITTER_KEYED));
			PolicyResult capped = report.result(FleetPolicy.CAPPED);
			for (FleetPolicy ours : List.of(FleetPolicy.FLOOR_PLUS_JITTER, FleetPolicy.FLOOR_PLUS_JITTER_KEYED)) {
				PolicyResult result = report.result(ours);
				assertThat(result.successRate()).as("%s success, seed %d", ours, seed)
					.isGreaterThanOrEqualTo(capped.successRate() - 0.005);
				assertThat(result.herd() * 10).as("%s herd x 10, seed %d", ours, seed).isLessThanOrEqualTo(capped.herd());
				assertThat(result.earlyRetries()).as("%s early retries, seed %d", ours, seed).isZero();
				assertThat(result.amplification()).as("%s amplification, seed %d", ours, seed)
					.isLessThanOrEqualTo(capped.amplification());
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "episodes", "shared" })
	void theDefaultPaysForTheSpreadInTimeToSuccess(String name) {
		// Where the default loses: the jitter sits on top of every wait, so a success comes later than CAPPED's.
		FleetReport report = FleetSimulation.run(Workload.named(name, CLIENTS), SEED,
				List.of(FleetPolicy.CAPPED, FleetPolicy.FLOOR_PLUS_JITTER));
		Duration capped = report.result(FleetPolicy.CAPPED).p50ToSuccess().orElseThrow();
		Duration ours = report.result(FleetPolicy.FLOOR_PLUS_JITTER).p50ToSuccess().orElseThrow();
		assertThat(ours).isGreaterThan(capped).isLessThan(capped.plus(Duration.ofSeconds(2)));
	}

	@ParameterizedTest
	@ValueSource(strings = { "episodes", "shared" })
	void exactAndCappedHerd(String name) {
		FleetReport report = FleetSimulation.run(Workload.named(name, CLIENTS), SEED,
				List.of(FleetPolicy.CAPPED, FleetPolicy.EXACT));
		assertThat(report.result(FleetPolicy.CAPPED).herd()).isGreaterThan(0.15);
		assertThat(report.result(FleetPolicy.EXACT).herd()).isGreaterThan(0.15);
	}

	@Test
	void fullJitterIgnoringTheHeaderRetriesBeforeTheInstructedInstant() {
		PolicyResult result = FleetSimulation.run(Workload.episodes(CLIENTS), SEED, List.of(FleetPolicy.FULL_JITTER))
			.result(FleetPolicy.FULL_JITTER);
		assertThat(result.earlyRetries()).isGreaterThan(result.retries() / 2);
	}

	@Test
	void theNaiveClientRetriesEarlyOnAFastClockWhileTheEngineDoesNot() {
		// Every client's clock is 40 s fast: Retry-After minus its own clock is negative, floored to zero.
		Workload workload = fleetWithSkew(Duration.ofSeconds(40));
		FleetReport report = FleetSimulation.run(workload, SEED,
				List.of(FleetPolicy.NAIVE_CLIENT_CLOCK, FleetPolicy.FLOOR_PLUS_JITTER, FleetPolicy.EXACT));
		PolicyResult naive = report.result(FleetPolicy.NAIVE_CLIENT_CLOCK);
		assertThat(naive.earlyRetries()).isEqualTo(naive.retries()).isPositive();
		assertThat(naive.successRate()).isZero();
		assertThat(report.result(FleetPolicy.FLOOR_PLUS_JITTER).earlyRetries()).isZero();
		assertThat(report.result(FleetPolicy.FLOOR_PLUS_JITTER).successRate()).isEqualTo(1.0);
		assertThat(report.result(FleetPolicy.EXACT).earlyRetries()).isZero();
	}

	@Test
	void theNaiveClientGivesUpOnASlowClockWhileTheEngineIsUnmoved() {
		// A clock a day slow turns a 5 s hint into a wait of a day: past the deadline, so the naive client stops.
		Workload skewed = fleetWithSkew(Duration.ofDays(-1));
		FleetReport report = FleetSimulation.run(skewed, SEED,
				List.of(FleetPolicy.NAIVE_CLIENT_CLOCK, FleetPolicy.FLOOR_PLUS_JITTER));
		assertThat(report.result(FleetPolicy.NAIVE_CLIENT_CLOCK).successRate()).isZero();
		assertThat(report.result(FleetPolicy.NAIVE_CLIENT_CLOCK).retries()).isZero();
		PolicyResult skewFree = FleetSimulation.run(fleetWithSkew(Duration.ZERO), SEED,
				List.of(FleetPolicy.FLOOR_PLUS_JITTER))
			.result(FleetPolicy.FLOOR_PLUS_JITTER);
		assertThat(report.result(FleetPolicy.FLOOR_PLUS_JITTER)).isEqualTo(skewFree);
	}

	@Test
	void aProviderClockHoursOutChangesNothingForTheEngine() {
		// Only Retry-After minus the provider's own Date enters the wait, so moving the provider's clock moves nothing.
		Workload workload = Workload.shared(CLIENTS);
		Workload offset = workload.withProvider(workload.provider().withClockOffset(Duration.ofHours(-2)));
		List<FleetPolicy> engine = List.of(FleetPolicy.CAPPED, FleetPolicy.FLOOR_PLUS_JITTER);
		assertThat(FleetSimulation.run(offset, SEED, engine).results())
			.isEqualTo(FleetSimulation.run(workload, SEED, engine).results());
	}

	@Test
	void delaySecondsIsHonouredToo() {
		Workload workload = Workload.shared(CLIENTS)
			.withProvider(Workload.shared(CLIENTS).provider().withHintForm(ProviderModel.HintForm.DELAY_SECONDS));
		FleetReport report = FleetSimulation.run(workload, SEED,
				List.of(FleetPolicy.CAPPED, FleetPolicy.FLOOR_PLUS_JITTER, FleetPolicy.NAIVE_CLIENT_CLOCK));
		for (PolicyResult result : report.results()) {
			assertThat(result.earlyRetries()).as(result.policy().label()).isZero();
			assertThat(result.successRate()).as(result.policy().label()).isEqualTo(1.0);
		}
		assertThat(report.result(FleetPolicy.FLOOR_PLUS_JITTER).herd() * 10)
			.isLessThan(report.result(FleetPolicy.CAPPED).herd());
	}

	@Test
	void aRateLimitAfterTheOutageIsAnsweredWith429AndHonoured() {
		// 300 clients back at once after the outage meet a bucket of 50 at 100 req/s: most get a 429 with
		// Retry-After: 1 and come back; the engine never comes back early.
		ProviderModel limited = Workload.shared(CLIENTS)
			.provider()
			.withRateLimit(new ProviderModel.RateLimit(100, 50));
		Workload workload = Workload.shared(CLIENTS).withProvider(limited);
		FleetReport report = FleetSimulation.run(workload, SEED,
				List.of(FleetPolicy.EXACT, FleetPolicy.FLOOR_PLUS_JITTER));
		PolicyResult unlimited = FleetSimulation.run(Workload.shared(CLIENTS), SEED,
				List.of(FleetPolicy.EXACT)).result(FleetPolicy.EXACT);
		PolicyResult exact = report.result(FleetPolicy.EXACT);
		assertThat(exact.attempts()).isGreaterThan(unlimited.attempts());
		assertThat(exact.earlyRetries()).isZero();
		assertThat(report.result(FleetPolicy.FLOOR_PLUS_JITTER).earlyRetries()).isZero();
	}

	@Test
	void percentilesAreNearestRank() {
		long[] sorted = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
		assertThat(FleetSimulation.percentile(sorted, 0.5)).contains(Duration.ofNanos(5));
		assertThat(FleetSimulation.percentile(sorted, 0.99)).contains(Duration.ofNanos(10));
		assertThat(FleetSimulation.percentile(new long[0], 0.5)).isEmpty();
	}

	private static Workload fleetWithSkew(Duration skew) {
		Workload shared = Workload.shared(CLIENTS);
		return shared.withClient(shared.client().withSkew(List.of(ClientModel.SkewBand.exactly(skew))));
	}

}
