package io.github.retryafter.engine;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.PlannerOptions;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Issue 30 item 4: an operation that gives up hands on the instant the provider named, on the ticker and the wall
 * clock, so an outer layer can wait for it; without jitter, measured as every wait is, and never one already past.
 */
class NotBeforeHandedOnTests {

	private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final Sim sim = new Sim();

	private RetryRunner.Result<SimResponse> run(RetryPolicy policy, OperationSpec spec, Step... steps) {
		RetryEngine engine = this.sim.engine(policy, ScriptedRandom.of(0.5, 0.5, 0.5, 0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(steps).build();
		return this.sim.runner(engine).run(spec, SimResponse.ADAPTER, transport.attempt(spec.method(), "/", ""));
	}

	@Test
	void aWaitTooLongHandsOnTheServersWholeFloorWithoutJitter() {
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(10)).build())
			.build();
		Instant start = this.sim.clock.instant();
		RetryRunner.Result<SimResponse> result = run(policy, OperationSpec.of("GET"),
				Step.respond(429, "Retry-After: 120"));
		assertThat(result.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		NotBefore notBefore = result.notBefore().orElseThrow();
		assertThat(notBefore.remaining()).isEqualTo(Duration.ofSeconds(120));
		assertThat(notBefore.instant()).isEqualTo(start.plusSeconds(120));
		assertThat(notBefore.tickerNanos()).isEqualTo(this.sim.clock.read() + Duration.ofSeconds(120).toNanos());
		this.sim.clock.advance(Duration.ofSeconds(45));
		assertThat(notBefore.remainingAt(this.sim.clock)).isEqualTo(Duration.ofSeconds(75));
		this.sim.clock.advance(Duration.ofSeconds(100));
		assertThat(notBefore.remainingAt(this.sim.clock)).isZero();
	}

	@Test
	void anHttpDateIsHandedOnMeasuredAgainstTheResponsesOwnDateNotTheClientClock() {
		// the server's clock is an hour ahead: its date names 90 s after its own Date
		Instant serverNow = this.sim.clock.instant().plusSeconds(3600);
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).build())
			.build();
		RetryRunner.Result<SimResponse> result = run(policy, OperationSpec.of("GET"),
				Step.respond(503, "Date: " + IMF_FIXDATE.format(serverNow),
						"Retry-After: " + IMF_FIXDATE.format(serverNow.plusSeconds(90))));
		assertThat(result.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		assertThat(result.notBefore()).map(NotBefore::remaining).contains(Duration.ofSeconds(90));
	}

	@Test
	void attemptsExhaustedHandOnTheLastResponsesFloor() {
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder().maxAttempts(2).build();
		RetryRunner.Result<SimResponse> result = run(policy, OperationSpec.of("GET"),
				Step.respond(503, "Retry-After: 1"), Step.respond(429, "Retry-After: 7"));
		assertThat(result.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED);
		assertThat(result.notBefore()).map(NotBefore::remaining).contains(Duration.ofSeconds(7));
	}

	@Test
	void aPostRefusedWithoutAKeyHandsOnTheInstantToo() {
		RetryRunner.Result<SimResponse> result = run(RetryPolicy.DEFAULTS, OperationSpec.of("POST"),
				Step.respond(429, "Retry-After: 4"));
		assertThat(result.outcome()).isIn(Outcome.NOT_RETRYABLE, Outcome.OUTCOME_UNKNOWN);
		assertThat(result.notBefore()).map(NotBefore::remaining).contains(Duration.ofSeconds(4));
	}

	@Test
	void aProviderCoolingDownHandsOnItsGatesInstant() {
		RetryPolicy paced = RetryPolicy.DEFAULTS.toBuilder().pacing(PacingSettings.DEFAULTS).build();
		RetryEngine engine = this.sim.engine(paced, ScriptedRandom.of(0.5, 0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(503, "Retry-After: 20"))
			.build();
		RetryRunner runner = this.sim.runner(engine);
		RetryRunner.Result<SimResponse> first = runner.run(OperationSpec.of("GET").withDeadline(Duration.ofSeconds(5)),
				SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(first.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
		this.sim.clock.advance(Duration.ofSeconds(2));
		RetryRunner.Result<SimResponse> second = runner.run(
				OperationSpec.of("GET").withDeadline(Duration.ofSeconds(5)), SimResponse.ADAPTER,
				transport.attempt("GET", "/", ""));
		assertThat(second.outcome()).isEqualTo(Outcome.PROVIDER_COOLING_DOWN);
		assertThat(second.attempts()).isZero();
		assertThat(second.notBefore()).map(NotBefore::remaining).contains(Duration.ofSeconds(18));
	}

	@Test
	void nothingIsHandedOnAfterASuccessAnUnhintedFailureOrAnInstantAlreadyPast() {
		assertThat(run(RetryPolicy.DEFAULTS, OperationSpec.of("GET"), Step.respond(503, "Retry-After: 1"),
				Step.respond(200))
			.notBefore()).isEmpty();
		assertThat(run(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(1).build(), OperationSpec.of("GET"),
				Step.respond(503))
			.notBefore()).isEmpty();
		assertThat(run(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(1).build(), OperationSpec.of("GET"),
				Step.respond(429, "Retry-After: 0"))
			.notBefore()).isEmpty();
	}

	@Test
	void anOuterRunnerWaitsForTheInstantAnInnerLayerHandedOnToTheMillisecond() {
		RetryEngine outer = this.sim.engine(RetryPolicy.builder().hintMode(HintMode.EXACT).build(), ScriptedRandom.of());
		java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
		RetryRunner.Result<SimResponse> result = RetryRunner.of(outer, this.sim.clock)
			.withFailureClassifier(RetryRunner.outerLoop(RetryRunner.defaultFailureClassifier()))
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, (context) -> {
				if (calls.incrementAndGet() == 1) {
					Duration left = Duration.ofMillis(2300);
					throw new IllegalStateException("the inner client gave up",
							new CarrierException(new NotBefore(0, this.sim.clock.instant().plus(left), left)));
				}
				return new SimResponse(200, java.util.Map.of(), Optional.empty());
			});
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(calls).hasValue(2);
		// the instant reaches the planner as an instant: 2.3 s, not a made-up "Retry-After: 3"
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(2300));
	}

	@Test
	void anInstantHandedOnIsWaitedForByAPolicyWhoseFieldsLeaveOutRetryAfter() {
		PlannerOptions noRetryAfter = PlannerOptions.builder()
			.fields(io.github.retryafter.HintFields.of(io.github.retryafter.HintField.RETRY_AFTER_MS))
			.build();
		RetryEngine outer = this.sim.engine(RetryPolicy.builder().hintMode(HintMode.EXACT).planner(noRetryAfter).build(),
				ScriptedRandom.of());
		java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
		RetryRunner.Result<SimResponse> result = RetryRunner.of(outer, this.sim.clock)
			.withFailureClassifier(RetryRunner.outerLoop(RetryRunner.defaultFailureClassifier()))
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, (context) -> {
				if (calls.incrementAndGet() == 1) {
					Duration left = Duration.ofMillis(1700);
					throw new IllegalStateException("the inner client gave up",
							new CarrierException(new NotBefore(0, this.sim.clock.instant().plus(left), left)));
				}
				return new SimResponse(200, java.util.Map.of(), Optional.empty());
			});
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(1700));
	}

	@Test
	void anInstantHandedOnBeyondTheMaxWaitIsRefusedNotWaited() {
		RetryEngine outer = this.sim.engine(RetryPolicy.builder()
			.hintMode(HintMode.EXACT)
			.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(5)).build())
			.build(), ScriptedRandom.of());
		RetryRunner.Result<SimResponse> result = RetryRunner.of(outer, this.sim.clock)
			.withFailureClassifier(RetryRunner.outerLoop(RetryRunner.defaultFailureClassifier()))
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, (context) -> {
				Duration left = Duration.ofSeconds(3600);
				throw new IllegalStateException("the inner client gave up",
						new CarrierException(new NotBefore(0, this.sim.clock.instant().plus(left), left)));
			});
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	@Test
	void anOuterRunnerDoesNotRepeatAnUnkeyedPostAndIgnoresExceptionsWithoutAnInstant() {
		RetryEngine outer = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		RetryRunner runner = RetryRunner.of(outer, this.sim.clock)
			.withFailureClassifier(RetryRunner.outerLoop(RetryRunner.defaultFailureClassifier()));
		Duration left = Duration.ofSeconds(2);
		RetryRunner.Result<SimResponse> post = runner.run(OperationSpec.of("POST"), SimResponse.ADAPTER, (context) -> {
			throw new IllegalStateException("gave up",
					new CarrierException(new NotBefore(0, this.sim.clock.instant().plus(left), left)));
		});
		assertThat(post.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		assertThat(post.attempts()).isEqualTo(1);
		RetryRunner.Result<SimResponse> plain = runner.run(OperationSpec.of("GET"), SimResponse.ADAPTER, (context) -> {
			throw new IllegalStateException("a bug");
		});
		assertThat(plain.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	@Test
	void anInstantIsFoundOnTheCaughtExceptionItsCausesAndItsSuppressedOnes() {
		NotBefore notBefore = new NotBefore(5, Instant.EPOCH, Duration.ofSeconds(3));
		Exception carrier = new CarrierException(notBefore);
		IOException client = new IOException("429");
		client.addSuppressed(carrier);
		RuntimeException outer = new RuntimeException("wrapped", client);
		assertThat(NotBefore.find(outer)).contains(notBefore);
		assertThat(NotBefore.find(new RuntimeException("plain", new IOException()))).isEmpty();
		RuntimeException cycle = new RuntimeException("a");
		RuntimeException other = new RuntimeException("b", cycle);
		cycle.addSuppressed(other);
		assertThat(NotBefore.find(cycle)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> new NotBefore(0, Instant.EPOCH, Duration.ofMillis(-1)));
	}

	private static final class CarrierException extends Exception implements NotBefore.Carrier {

		private final transient NotBefore notBefore;

		CarrierException(NotBefore notBefore) {
			super("gave up");
			this.notBefore = notBefore;
		}

		@Override
		public Optional<NotBefore> notBefore() {
			return Optional.of(this.notBefore);
		}

	}

}
