package io.github.retryafter.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SeededRandom;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Everything that reads {@code Retry-After} through the planner: seed 003's traces A and C, seed 002's scenarios 2 and
 * 3, the hint modes (rule 5), unusable and too-long hints (rule 4) and the floor that is never shortened (rule 3).
 */
class HintedRetryAfterTests {

	private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final Sim sim = new Sim();

	private static Duration s(double seconds) {
		return Duration.ofMillis(Math.round(seconds * 1000));
	}

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines)), now, now);
	}

	private Decision firstDecision(RetryEngine engine, OperationSpec spec, AttemptOutcome.Response response) {
		RetryOperation operation = engine.start(spec, Cancellation.never());
		operation.beforeAttempt();
		return operation.afterAttempt(response);
	}

	private RetryEngine engine(RetryPolicy policy, RandomSource random) {
		return this.sim.engine(policy, random, RetryBudget.unlimited());
	}

	// Issue 12: the engine overflowed on Retry-After: 9223372036854775807

	/** An engine on the fake clock without the scenario recorder, whose log lines are not under test here. */
	private RetryEngine quietEngine(RetryPolicy policy) {
		return RetryEngine.builder().policy(policy).random(() -> 0.5).ticker(this.sim.clock).wallClock(this.sim.clock).build();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CAPPED", "FLOOR_PLUS_JITTER", "EXACT", "MAX_WITH_BACKOFF" })
	void retryAfterOfLongMaxValueWithoutMaxWaitStopsInsteadOfOverflowing(String mode) {
		RetryPolicy policy = RetryPolicy.builder()
			.hintMode(HintMode.valueOf(mode))
			.hintCap(Duration.ofSeconds(Long.MAX_VALUE))
			.planner(io.github.retryafter.PlannerOptions.DEFAULTS)
			.build();
		for (String retryAfter : List.of("9223372036854775807", "9".repeat(400), "Fri, 31 Dec 9999 23:59:59 GMT")) {
			Decision decision = firstDecision(quietEngine(policy), OperationSpec.of("GET"),
					response(503, "Retry-After: " + retryAfter, "Date: Thu, 01 Jan 1970 00:00:00 GMT"));
			assertThat(decision).as(retryAfter).isInstanceOfSatisfying(Decision.Stop.class, (stop) -> {
				assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
				assertThat(stop.reason()).contains("does not fit in the 30.000 s left of the deadline");
			});
		}
	}

	@Test
	void retryAfterOfLongMaxValueInCappedModeWaitsTheCap() {
		RetryPolicy policy = RetryPolicy.builder().hintMode(HintMode.CAPPED).hintCap(Duration.ofSeconds(5)).build();
		Decision decision = firstDecision(quietEngine(policy), OperationSpec.of("GET"),
				response(503, "Retry-After: 9223372036854775807"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(5));
			assertThat(retry.plan()).map((plan) -> plan.floor()).contains(Duration.ofMillis(Long.MAX_VALUE));
		});
	}

	// Seed 003

	@Test
	void traceAHeaderWinsThenBackoffSuccessAtAttemptFourAfter390s() {
		ScriptedRandom random = ScriptedRandom.of(0.40, 0.75);
		RetryEngine engine = engine(Sim.WORKED_TRACES_POLICY, random);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(429, "Retry-After: 2"), Step.respond(503), Step.respond(503), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		System.out.println(this.sim.recorder.render());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(4);
		assertThat(result.totalWait()).isEqualTo(s(3.90));
		assertThat(this.sim.clock.sleeps()).containsExactly(s(2.00), s(0.40), s(1.50));
		assertThat(result.trace()).extracting((record) -> record.source().orElse(null))
			.containsExactly(DelaySource.RETRY_AFTER, DelaySource.BACKOFF, DelaySource.BACKOFF, null);
		assertThat(result.trace().get(0).plan()).map((plan) -> plan.floor()).contains(s(2));
		assertThat(result.trace().get(1).draw()).map(BackoffDraw::ceiling).contains(s(1.0));
		assertThat(result.trace().get(2).draw()).map(BackoffDraw::ceiling).contains(s(2.0));
		assertThat(random.taken()).as("EXACT draws nothing on the hinted path").isEqualTo(2);
	}

	@Test
	void traceCDateFormWaitsSevenSecondsFromTheResponsesOwnDate() {
		RetryEngine engine = engine(Sim.WORKED_TRACES_POLICY, ScriptedRandom.of());
		this.sim.clock.setWallOffset(Duration.ofSeconds(-42));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(429, "Date: Wed, 01 Jan 2025 10:00:00 GMT",
					"Retry-After: Wed, 01 Jan 2025 10:00:07 GMT"), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).containsExactly(s(7.00));
		assertThat(result.trace().get(0).plan()).hasValueSatisfying((plan) -> {
			assertThat(plan.source()).isEqualTo(PlanSource.HTTP_DATE);
			assertThat(plan.skew()).contains(Duration.ofSeconds(42));
		});
	}

	@Test
	void traceCaWaitPastTheTwentySecondTotalStopsAndFlags() {
		RetryPolicy noPlannerCap = Sim.WORKED_TRACES_POLICY.toBuilder()
			.planner(Sim.WORKED_TRACES_POLICY.planner().toBuilder().maxWait(null).build())
			.build();
		Decision decision = firstDecision(engine(noPlannerCap, ScriptedRandom.of()), OperationSpec.of("GET"),
				response(429, "Retry-After: 21"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.TOTAL_WAIT_EXCEEDED));
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	// Seed 002

	@Test
	void scenario2DeadlineEndsDuringProviderDelayNoSecondAttempt() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(429, "Retry-After: 30"))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET").withDeadline(Duration.ofSeconds(5)), SimResponse.ADAPTER,
					transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
		assertThat(transport.requests()).hasSize(1);
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(ints = { -3600, -30, -1, 0, 1, 30, 3600 })
	void scenario3HttpDateAheadOrBehindTheLocalClockGivesABoundedNonNegativeDelay(int serverAheadSeconds) {
		RetryPolicy exact = RetryPolicy.builder().hintMode(HintMode.EXACT).build();
		RetryEngine engine = engine(exact, ScriptedRandom.of());
		Instant serverNow = this.sim.clock.instant().plusSeconds(serverAheadSeconds);
		Decision decision = firstDecision(engine, OperationSpec.of("GET"),
				response(503, "Date: " + IMF_FIXDATE.format(serverNow),
						"Retry-After: " + IMF_FIXDATE.format(serverNow.plusSeconds(5))));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(5));
			assertThat(retry.plan()).hasValueSatisfying(
					(plan) -> assertThat(plan.skew()).contains(Duration.ofSeconds(serverAheadSeconds)));
		});
		Decision past = firstDecision(engine, OperationSpec.of("GET"), response(503,
				"Date: " + IMF_FIXDATE.format(serverNow), "Retry-After: " + IMF_FIXDATE.format(serverNow)));
		assertThat(past).isInstanceOfSatisfying(Decision.Retry.class,
				(retry) -> assertThat(retry.delay()).isZero());
	}

	// Rule 4: unusable and too-long hints

	@Test
	void anUnusableHintIsTreatedAsAbsentAndReported() {
		ScriptedRandom random = ScriptedRandom.of(0.5);
		List<RefusalEvent> refusals = new ArrayList<>();
		RetryEngine engine = RetryEngine.builder()
			.random(random)
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.listener(new RetryListener() {
				@Override
				public void onRefusal(RefusalEvent event) {
					refusals.add(event);
				}
			})
			.build();
		Decision decision = firstDecision(engine, OperationSpec.of("GET"), response(503, "Retry-After: soon"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.source()).isEqualTo(DelaySource.BACKOFF);
			assertThat(retry.delay()).isEqualTo(Duration.ofMillis(50));
			assertThat(retry.refusedHint()).hasValueSatisfying(
					(ex) -> assertThat(ex.code()).isEqualTo(RetryAfterError.INVALID_DELAY));
		});
		assertThat(refusals).singleElement().satisfies((refusal) -> {
			assertThat(refusal.stop()).isEmpty();
			assertThat(refusal.hintError()).contains(RetryAfterError.INVALID_DELAY);
		});
	}

	@Test
	void aValidHintLongerThanTheMaxWaitStopsWithWaitTooLongAndIsNeverShortened() {
		List<RefusalEvent> refusals = new ArrayList<>();
		RetryEngine engine = RetryEngine.builder()
			.random(ScriptedRandom.of())
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.listener(new RetryListener() {
				@Override
				public void onRefusal(RefusalEvent event) {
					refusals.add(event);
				}
			})
			.build();
		Decision decision = firstDecision(engine, OperationSpec.of("GET"), response(429, "Retry-After: 120"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG));
		assertThat(refusals).singleElement()
			.satisfies((refusal) -> assertThat(refusal.hintError()).contains(RetryAfterError.TOO_LONG));
	}

	// Rule 3: the floor never shrinks, our jitter may

	@Test
	void theServersFloorIsNeverShortenedToFitTheDeadline() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0));
		Decision decision = firstDecision(engine, OperationSpec.of("GET").withDeadline(s(10.05)),
				response(503, "Retry-After: 10"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE));
	}

	@Test
	void ourJitterShrinksToFitTheDeadlineButNotBelowTheFloor() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.9));
		long deadline = this.sim.clock.read() + s(10.5).toNanos();
		Decision decision = firstDecision(engine, OperationSpec.of("GET").withDeadline(s(10.5)),
				response(503, "Retry-After: 10"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.delay()).isGreaterThanOrEqualTo(s(10));
			assertThat(retry.delay()).isLessThan(retry.plan().orElseThrow().waitTime());
			assertThat(retry.notBeforeNanos() + s(0.1).toNanos()).isLessThan(deadline);
		});
	}

	// Rule 5: hint modes

	@Test
	void floorPlusJitterIsThePlannersPlan() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		Decision decision = firstDecision(engine, OperationSpec.of("GET"), response(503, "Retry-After: 4"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.delay()).isEqualTo(retry.plan().orElseThrow().waitTime());
			assertThat(retry.delay()).isGreaterThan(s(4));
			assertThat(retry.draw()).isEmpty();
		});
	}

	@Test
	void maxWithBackoffTakesTheLargerOfFloorAndDrawPlusThePlannersJitter() {
		RetryPolicy policy = RetryPolicy.builder()
			.hintMode(HintMode.MAX_WITH_BACKOFF)
			.backoff(new Backoff(Duration.ofSeconds(4), Duration.ofSeconds(4)))
			.build();
		RetryEngine engine = engine(policy, SeededRandom.of(11));
		for (String hint : List.of("1", "3", "6")) {
			Decision decision = firstDecision(engine, OperationSpec.of("GET"), response(503, "Retry-After: " + hint));
			assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
				Duration floor = retry.plan().orElseThrow().floor();
				Duration drawn = retry.draw().orElseThrow().delay();
				Duration larger = (floor.compareTo(drawn) >= 0) ? floor : drawn;
				assertThat(retry.delay()).isEqualTo(larger.plus(retry.plan().orElseThrow().jitter()));
				assertThat(retry.source()).isEqualTo(DelaySource.RETRY_AFTER);
			});
		}
	}

	@Test
	void cappedWaitsTheSmallerOfCapAndFloorWithoutJitter() {
		RetryPolicy capped = RetryPolicy.builder().hintMode(HintMode.CAPPED).hintCap(Duration.ofSeconds(5)).build();
		RetryEngine engine = engine(capped, ScriptedRandom.of());
		assertThat(((Decision.Retry) firstDecision(engine, OperationSpec.of("GET"), response(429, "Retry-After: 3")))
			.delay()).isEqualTo(s(3));
		assertThat(((Decision.Retry) firstDecision(engine, OperationSpec.of("GET"), response(429, "Retry-After: 60")))
			.delay()).as("capped, not refused as too long").isEqualTo(s(5));
	}

	@Test
	void cappedConsumesNoDrawOnTheHintedPathSoInterleavedHintsLeaveTheFallbackDrawsIdentical() {
		RetryPolicy capped = RetryPolicy.builder().hintMode(HintMode.CAPPED).hintCap(Duration.ofSeconds(5)).build();
		List<Double> fewHints = fallbackDraws(capped, List.of(false, true, false, true, false));
		List<Double> manyHints = fallbackDraws(capped, List.of(true, true, false, true, true, true, false, false, true));
		assertThat(fewHints).hasSize(3).isEqualTo(manyHints);
	}

	private List<Double> fallbackDraws(RetryPolicy policy, List<Boolean> hinted) {
		RetryEngine engine = engine(policy, SeededRandom.of(20_250_101));
		List<Double> draws = new ArrayList<>();
		for (boolean hint : hinted) {
			Decision.Retry retry = (Decision.Retry) firstDecision(engine, OperationSpec.of("GET"),
					hint ? response(429, "Retry-After: 2") : response(503));
			retry.draw().ifPresent((draw) -> draws.add(draw.draw()));
			assertThat(retry.source()).isEqualTo(hint ? DelaySource.RETRY_AFTER : DelaySource.BACKOFF);
		}
		return draws;
	}

	@Test
	void aHintOfZeroIsHonouredAndDiffersFromAnAbsentHint() {
		RetryPolicy capped = RetryPolicy.builder().hintMode(HintMode.CAPPED).build();
		ScriptedRandom random = ScriptedRandom.of(0.7);
		RetryEngine engine = engine(capped, random);
		Decision.Retry zero = (Decision.Retry) firstDecision(engine, OperationSpec.of("GET"),
				response(429, "Retry-After: 0"));
		assertThat(zero.delay()).isZero();
		assertThat(zero.source()).isEqualTo(DelaySource.RETRY_AFTER);
		assertThat(random.taken()).isZero();
		Decision.Retry absent = (Decision.Retry) firstDecision(engine, OperationSpec.of("GET"), response(429));
		assertThat(absent.source()).isEqualTo(DelaySource.BACKOFF);
		assertThat(absent.delay()).isEqualTo(Duration.ofMillis(70));
		assertThat(random.taken()).isEqualTo(1);
	}

}
