package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Issue 30's measure: a backlog of 1,000 requests started together against an OpenAI-style provider (100 requests
 * and 40,000 tokens a one-second window, 500 tokens a request, so 80 admitted a window) drains, paced by the
 * provider's own fields, within 1.15× of the time its windows need to admit it (13 windows: 13 s), with no refusal
 * after the first window, on five seeds and with the provider's clock 40 s off either way.
 */
class OpenAiWorkloadTests {

	private static final int BACKLOG = 1000;

	@Test
	void theBoundIsTheEndOfTheWindowThatAdmitsTheLastRequest() {
		RequestTokenWindows windows = Workload.OPENAI_WINDOWS;
		assertThat(windows.requestsPerTokenWindow()).isEqualTo(80);
		assertThat(windows.bound(BACKLOG)).isEqualTo(Duration.ofSeconds(13));
		assertThat(windows.earliestLastAdmission(BACKLOG)).isEqualTo(Duration.ofSeconds(12));
		assertThat(windows.bound(80)).isEqualTo(Duration.ofSeconds(1));
		assertThat(windows.bound(81)).isEqualTo(Duration.ofSeconds(2));
		RequestTokenWindows longTokens = new RequestTokenWindows(100, Duration.ofSeconds(1), 40_000,
				Duration.ofMinutes(1), 500);
		assertThat(longTokens.bound(81)).as("the later of the two windows").isEqualTo(Duration.ofMinutes(2));
		assertThat(longTokens.bound(50)).isEqualTo(Duration.ofMinutes(1));
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, -40, 40 })
	void thePacedBacklogDrainsWithinFifteenPercentOfItsBoundWithNoRefusalAfterTheFirstWindow(long offsetSeconds) {
		Workload workload = Workload.openAi(BACKLOG);
		workload = workload.withProvider(workload.provider().withClockOffset(Duration.ofSeconds(offsetSeconds)));
		Duration bound = Workload.OPENAI_WINDOWS.bound(BACKLOG);
		for (long seed = 1; seed <= 5; seed++) {
			PolicyResult paced = paced(workload, seed);
			String as = "provider clock " + offsetSeconds + " s, seed " + seed;
			assertThat(paced.successRate()).as("success, %s", as).isEqualTo(1.0);
			assertThat(paced.lateAttempts()).as("requests after the first window, %s", as).isEqualTo(BACKLOG - 80);
			assertThat(paced.lateRefusals()).as("refusals after the first window, %s", as).isZero();
			assertThat(paced.earlyRetries()).as("retries before the window reopened, %s", as).isZero();
			double ratio = paced.lastSuccess().orElseThrow().toNanos() / (double) bound.toNanos();
			assertThat(ratio).as("drain / bound, %s", as).isBetween(12.0 / 13, 1.15);
		}
	}

	@Test
	void theSameSeedDrainsToTheSameNanosecond() {
		Workload workload = Workload.openAi(BACKLOG);
		PolicyResult first = paced(workload, 3);
		PolicyResult again = paced(workload, 3);
		assertThat(again).isEqualTo(first);
		assertThat(first.lastSuccess().orElseThrow().toMillis()).isEqualTo(14_038);
	}

	@Test
	void everyAnswerCarriesTheOpenAiFieldsAndARefusalSaysWhenTheWindowReopens() {
		ProviderModel model = ProviderModel.openAi(
				new RequestTokenWindows(2, Duration.ofSeconds(1), 1_000, Duration.ofSeconds(6), 400), Duration.ofSeconds(5));
		WindowedProvider provider = new WindowedProvider(model);
		Answer first = provider.answer(250_000_000L);
		assertThat(first.status()).isEqualTo(200);
		assertThat(first.field("x-ratelimit-remaining-requests")).containsExactly("1");
		assertThat(first.field("x-ratelimit-reset-requests")).containsExactly("750ms");
		assertThat(first.field("x-ratelimit-remaining-tokens")).containsExactly("600");
		assertThat(first.field("x-ratelimit-reset-tokens")).containsExactly("5.75s");
		assertThat(provider.answer(260_000_000L).status()).isEqualTo(200);
		Answer refused = provider.answer(500_000_000L);
		assertThat(refused.status()).as("no request left, nor a request's tokens: the later reset").isEqualTo(429);
		assertThat(refused.field("retry-after-ms")).containsExactly("5500");
		assertThat(refused.field("Retry-After")).containsExactly("6");
		assertThat(refused.field("x-should-retry")).containsExactly("true");
		Answer tokens = provider.answer(1_100_000_000L);
		assertThat(tokens.status()).as("a new request window, but 200 tokens left of 400").isEqualTo(429);
		assertThat(tokens.field("retry-after-ms")).containsExactly("4900");
		assertThat(tokens.field("Retry-After")).containsExactly("5");
		assertThat(tokens.field("Date")).containsExactly("Wed, 01 Jan 2025 10:00:01 GMT");
	}

	@Test
	void goDurationsAreWrittenAsGoWritesThemRoundedUpToTheMillisecond() {
		assertThat(WindowedProvider.goDuration(0)).isEqualTo("0s");
		assertThat(WindowedProvider.goDuration(1)).isEqualTo("1ms");
		assertThat(WindowedProvider.goDuration(20_000_000L)).isEqualTo("20ms");
		assertThat(WindowedProvider.goDuration(1_500_000_000L)).isEqualTo("1.5s");
		assertThat(WindowedProvider.goDuration(360_000_000_000L)).isEqualTo("6m0s");
		assertThat(WindowedProvider.goDuration(3_723_500_000_000L)).isEqualTo("1h2m3.5s");
	}

	@Test
	void windowsRefuseAnOutageOrAnotherRateLimitAndATokenWindowTooSmallForOneRequest() {
		RequestTokenWindows windows = Workload.OPENAI_WINDOWS;
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ProviderModel.openAi(windows, Duration.ofSeconds(5))
				.withRateLimit(new ProviderModel.RateLimit(10, 1)))
			.withMessageContaining("use one or the other");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RequestTokenWindows(10, Duration.ofSeconds(1), 100, Duration.ofSeconds(1), 500))
			.withMessage("a token window must hold at least one request's cost: tokens 100, cost 500");
	}

	private static PolicyResult paced(Workload workload, long seed) {
		return FleetSimulation.run(workload, seed, List.of(FleetPolicy.FLOOR_PLUS_JITTER_PACED))
			.result(FleetPolicy.FLOOR_PLUS_JITTER_PACED);
	}

}
