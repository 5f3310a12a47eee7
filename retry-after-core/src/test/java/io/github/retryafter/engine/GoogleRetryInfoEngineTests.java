package io.github.retryafter.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.retryafter.BodySource;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanSource;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Google's {@code RetryInfo} through the engine under the {@code gemini} profile, on a fake clock: the body's wait is
 * waited exactly, a POST refused with {@code 429} is retried, and a daily quota beyond the max wait is never waited:
 * the operation stops {@code WAIT_TOO_LONG} and hands the provider's instant on.
 */
class GoogleRetryInfoEngineTests {

	private final Sim sim = new Sim();

	/** How many times the engine asked for a body: once per refusal at most, never for a success. */
	private final AtomicInteger bodyReads = new AtomicInteger();

	private static RetryPolicy gemini() {
		ProviderProfile profile = ProviderProfile.GEMINI;
		return RetryPolicy.builder()
			.hintMode(HintMode.EXACT)
			.conventions(profile.conventions())
			.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).fields(profile.fields()).build())
			.build();
	}

	/** Sim responses with a Gemini refusal's body on every 429, handed over only as the profile's fields ask. */
	private RetryRunner.ResponseAdapter<SimResponse> adapter(String retryDelay) {
		byte[] body = io.github.retryafter.hint.GeminiBodies.refusal(retryDelay).getBytes(StandardCharsets.UTF_8);
		return new RetryRunner.ResponseAdapter<>() {

			@Override
			public int status(SimResponse response) {
				return response.status();
			}

			@Override
			public HeaderSource headers(SimResponse response) {
				return response.headerSource();
			}

			@Override
			public BodySource body(SimResponse response) {
				if (!ProviderProfile.GEMINI.fields().readsBodyOf(response.status())) {
					return BodySource.none();
				}
				return (max) -> {
					GoogleRetryInfoEngineTests.this.bodyReads.incrementAndGet();
					return BodySource.of(body).prefix(max);
				};
			}

		};
	}

	private RetryRunner.Result<SimResponse> run(String retryDelay, Step... steps) {
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(steps).build();
		OperationSpec spec = OperationSpec.of("POST");
		RetryRunner.Result<SimResponse> result = this.sim.runner(this.sim.engine(gemini(), ScriptedRandom.of(0.5, 0.5)))
			.run(spec, adapter(retryDelay), transport.attempt("POST", "/v1beta/models/gemini:generateContent", "{}"));
		assertThat(transport.requests()).as("requests the server saw").hasSize(result.attempts());
		return result;
	}

	@Test
	void aPostRefusedWithRetryInfoOfThreePointSevenSecondsWaitsExactlyThatAndSucceeds() {
		RetryRunner.Result<SimResponse> result = run("3.700s", Step.respond(429), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(3700));
		assertThat(result.trace().get(0).plan()).hasValueSatisfying(
				(plan) -> assertThat(plan.source()).isEqualTo(PlanSource.RETRY_INFO));
		assertThat(this.bodyReads).as("the refusal's body is read once; the success's never").hasValue(1);
	}

	@Test
	void aDailyQuotaIsNeverWaitedTheOperationStopsAndHandsTheInstantOn() {
		Instant start = this.sim.clock.instant();
		RetryRunner.Result<SimResponse> result = run("52758s", Step.respond(429), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(this.sim.clock.sleeps()).isEmpty();
		NotBefore notBefore = result.notBefore().orElseThrow();
		assertThat(notBefore.remaining()).isEqualTo(Duration.ofSeconds(52758));
		assertThat(notBefore.instant()).isEqualTo(start.plusSeconds(52758));
		assertThat(result.reason()).contains("google.rpc.RetryInfo's retryDelay (52758000 ms)");
	}

	@Test
	void aBrokenRetryInfoIsRefusedWithItsCodeAndTheBackoffWaitsInstead() {
		RetryRunner.Result<SimResponse> result = run("-3s", Step.respond(503), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.trace().get(0).refusedHint()).contains(RetryAfterError.INVALID_DELAY);
		assertThat(result.trace().get(0).plan()).isEmpty();
	}

}
