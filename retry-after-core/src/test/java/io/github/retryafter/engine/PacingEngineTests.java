package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.hint.RateLimitFields;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The engine with pacing on: the provider's gate holds fresh requests and retries alike, the operation state machine
 * answers {@link Permit.Wait}, and the runner honours it.
 */
class PacingEngineTests {

	private static final RetryPolicy PACED = RetryPolicy.DEFAULTS.toBuilder().pacing(PacingSettings.DEFAULTS).build();

	private final Sim sim = new Sim();

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	private RetryOperation start(RetryEngine engine) {
		return engine.start(OperationSpec.of("GET"), Cancellation.never());
	}

	@Test
	void aRetryAfterHoldsFreshRequestsToTheProviderUntilTheInstantItNamed() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		assertThat(first.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		first.afterAttempt(response(429, "Retry-After: 2"));
		this.sim.clock.advance(Duration.ofMillis(500));
		RetryOperation fresh = start(engine);
		assertThat(fresh.beforeAttempt()).isEqualTo(new Permit.Wait(Duration.ofSeconds(2).toNanos(), GateHold.COOLDOWN));
		assertThat(engine.gate("default").queued()).isEqualTo(1);
		assertThat(fresh.attempts()).isZero();
		this.sim.clock.advance(Duration.ofMillis(1500));
		assertThat(fresh.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(engine.gate("default").queued()).isZero();
	}

	@Test
	void aOneSecond429FromAProviderThatIsAdmittingPacesEveryoneButHoldsOnlyTheRefusedOperation() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0, 0.0));
		RetryOperation down = start(engine);
		down.beforeAttempt();
		down.afterAttempt(response(503, "Retry-After: 1"));
		this.sim.clock.advance(Duration.ofSeconds(1));
		RetryOperation admitted = start(engine);
		assertThat(admitted.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		admitted.afterAttempt(response(200));
		RetryOperation refused = start(engine);
		assertThat(refused.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		Decision decision = refused.afterAttempt(response(429, "Retry-After: 1"));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class,
				(retry) -> assertThat(retry.notBeforeNanos() - this.sim.clock.read())
					.as("the refused operation waits for its own hint")
					.isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos()));
		assertThat(engine.gate("default").cooldownRemaining()).as("the gate stays open").isZero();
		assertThat(engine.gate("default").rate()).as("the rate drops by the decrease factor while it measures")
			.hasValueCloseTo(0.7 * 0.7 * 1000, within(1e-6));
		RetryOperation fresh = start(engine);
		assertThat(fresh.beforeAttempt()).as("the rate's burst, no cooldown").isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void aRemainingOfZeroClosesTheGateUntilTheResetCappedAtTheMaxWaitAndAQuotaPacesBeforeAnyRefusal() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(200, "RateLimit-Policy: \"p\";q=20;w=1", "RateLimit: \"p\";r=3;t=1"));
		assertThat(engine.gate("default").rate()).as("0.95 × 20/s, before any 429").hasValueCloseTo(19.0, within(1e-9));
		RetryOperation second = start(engine);
		second.beforeAttempt();
		second.afterAttempt(response(200, "X-RateLimit-Limit: 5000", "X-RateLimit-Remaining: 0",
				"X-RateLimit-Reset: 3600"));
		assertThat(engine.gate("default").cooldownRemaining()).as("an hour, capped at the 30 s max wait")
			.isEqualTo(Duration.ofSeconds(30));
		assertThat(start(engine).beforeAttempt()).as("30 s of cooldown leave a 30 s deadline no useful attempt")
			.isInstanceOf(Permit.Refused.class);
		this.sim.clock.advance(Duration.ofSeconds(25));
		RetryOperation later = start(engine);
		assertThat(later.beforeAttempt()).isEqualTo(new Permit.Wait(Duration.ofSeconds(30).toNanos(), GateHold.COOLDOWN));
	}

	@Test
	void withRateLimitFieldsOffTheyPaceNobodyAndAnUnusableOneIsReportedAndIgnored() {
		RetryPolicy off = PACED.toBuilder().pacing(PacingSettings.builder().rateLimitFields(false).build()).build();
		RetryEngine ignoring = this.sim.engine(off, ScriptedRandom.of(0.0));
		RetryOperation operation = start(ignoring);
		operation.beforeAttempt();
		operation.afterAttempt(response(200, "RateLimit-Remaining: 0", "RateLimit-Reset: 20"));
		assertThat(ignoring.gate("default").cooldownRemaining()).isZero();
		List<RateLimitFieldEvent> events = new ArrayList<>();
		RetryEngine reporting = RetryEngine.builder()
			.policy(PACED)
			.random(ScriptedRandom.of(0.0))
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.listener(new RetryListener() {
				@Override
				public void onRateLimitFieldIgnored(RateLimitFieldEvent event) {
					events.add(event);
				}
			})
			.build();
		RetryOperation reported = start(reporting);
		reported.beforeAttempt();
		reported.afterAttempt(response(200, "RateLimit-Remaining: none", "RateLimit-Reset: 20"));
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.problem().code()).isEqualTo(RateLimitFields.Problem.Code.INVALID_NUMBER);
			assertThat(event.problem().field()).isEqualTo("RateLimit-Remaining");
			assertThat(event.attempt()).isEqualTo(1);
		});
		assertThat(reporting.gate("default").cooldownRemaining()).isZero();
	}

	@Test
	void aShorterHintNeverShortensTheCooldownButItsRetryGoesAsTheProbeAndItsSuccessOpensTheGate() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0, 0.0));
		RetryOperation longer = start(engine);
		RetryOperation shorter = start(engine);
		longer.beforeAttempt();
		shorter.beforeAttempt();
		longer.afterAttempt(response(503, "Retry-After: 5"));
		Decision.Retry retry = (Decision.Retry) shorter.afterAttempt(response(503, "Retry-After: 1"));
		assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(1));
		this.sim.clock.advance(retry.delay());
		// the cooldown runs to the later instant, but the retry whose own hint has passed may probe
		assertThat(engine.gate("default").cooldownRemaining()).isEqualTo(Duration.ofSeconds(4));
		assertThat(shorter.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		RetryOperation fresh = start(engine);
		assertThat(fresh.beforeAttempt()).isInstanceOfSatisfying(Permit.Wait.class,
				(wait) -> assertThat(wait.reason()).isEqualTo(GateHold.COOLDOWN));
		assertThat(shorter.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
		assertThat(engine.gate("default").cooldownRemaining()).isZero();
		assertThat(fresh.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
	}

	/**
	 * Issue 32, defect 1: an early probe that got anything but a success (a 5xx without a hint, a timeout, a lost
	 * response, its operation cancelled) opened the gate at once, about 18.8 s before the instant the server named.
	 */
	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "503", "502", "500", "timeout", "lost", "cancelled" })
	void anEarlyProbeThatFailsKeepsTheCooldownToTheLatestInstantNamed(String answer) {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0, 0.0, 0.0));
		RetryOperation early = start(engine);
		RetryOperation late = start(engine);
		early.beforeAttempt();
		late.beforeAttempt();
		Decision.Retry retry = (Decision.Retry) early.afterAttempt(response(503, "Retry-After: 1"));
		late.afterAttempt(response(503, "Retry-After: 20"));
		this.sim.clock.advance(retry.delay().plusMillis(100));
		assertThat(early.beforeAttempt()).as("the retry whose hint passed goes as the early probe")
			.isInstanceOf(Permit.Proceed.class);
		long sent = this.sim.clock.read();
		switch (answer) {
			case "timeout" -> early.afterAttempt(new AttemptOutcome.Failure(FailureKind.TIMED_OUT,
					new java.net.SocketTimeoutException("read timed out"), sent, sent));
			case "lost" -> early.afterAttempt(new AttemptOutcome.Failure(FailureKind.OUTCOME_UNKNOWN,
					new java.io.IOException("connection reset"), sent, sent));
			case "cancelled" -> early.cancel();
			default -> early.afterAttempt(response(Integer.parseInt(answer)));
		}
		assertThat(engine.gate("default").cooldownRemaining()).as("the cooldown still runs to the 20 s instant")
			.isEqualTo(Duration.ofMillis(18_900));
		RetryOperation fresh = start(engine);
		assertThat(fresh.beforeAttempt()).isInstanceOfSatisfying(Permit.Wait.class,
				(wait) -> assertThat(wait.notBeforeNanos()).isEqualTo(Duration.ofSeconds(20).toNanos()));
	}

	@Test
	void aHintTooLongToWaitForStillClosesTheGateAndAFreshRequestItsDeadlineCannotCoverIsRefused() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of());
		RetryOperation first = start(engine);
		first.beforeAttempt();
		assertThat(first.afterAttempt(response(429, "Retry-After: 120"))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG));
		RetryOperation fresh = start(engine);
		assertThat(fresh.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.PROVIDER_COOLING_DOWN));
		assertThat(fresh.attempts()).isZero();
		// issue 11: no cooldown outlasts max-cooldown (30 s by default), whatever the hint asked
		assertThat(fresh.finalStop().orElseThrow().reason()).contains("cooling down for another 30.000 s")
			.contains("attempt 1 was not sent");
		assertThat(this.sim.recorder.render()).contains("PROVIDER_COOLING_DOWN");
	}

	/**
	 * Issue 32, defect 3: 100,000 WebClient requests held behind a cooldown cost 610–760 MB of heap, with no bound.
	 * Beyond max-queued a request ends at once, unsent, with a reason saying what to do.
	 */
	@Test
	void aRequestBeyondMaxQueuedEndsAtOnceUnsentAndSaysWhatToDo() {
		RetryPolicy bounded = RetryPolicy.DEFAULTS.toBuilder()
			.pacing(PacingSettings.builder().maxQueued(2).build())
			.build();
		RetryEngine engine = this.sim.engine(bounded, ScriptedRandom.of());
		engine.gate("default").closeUntil(Duration.ofSeconds(3).toNanos());
		RetryOperation first = start(engine);
		RetryOperation second = start(engine);
		assertThat(first.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		assertThat(second.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		assertThat(first.beforeAttempt()).as("asking again keeps its place").isInstanceOf(Permit.Wait.class);
		RetryOperation third = start(engine);
		assertThat(third.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class, (refused) -> {
			assertThat(refused.stop().outcome()).isEqualTo(Outcome.PROVIDER_COOLING_DOWN);
			assertThat(refused.stop().reason()).contains("already holds 2 requests (max-queued)")
				.contains("attempt 1 was not sent");
		});
		assertThat(third.attempts()).isZero();
		assertThat(engine.gate("default").queued()).isEqualTo(2);
		first.cancel();
		RetryOperation fourth = start(engine);
		assertThat(fourth.beforeAttempt()).as("a place freed is a place taken").isInstanceOf(Permit.Wait.class);
	}

	@Test
	void failFastStopsAFreshRequestAtOnceWhileTheProviderCoolsDown() {
		RetryPolicy failFast = RetryPolicy.DEFAULTS.toBuilder()
			.pacing(PacingSettings.builder().mode(PacingMode.FAIL_FAST).build())
			.build();
		RetryEngine engine = this.sim.engine(failFast, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(503, "Retry-After: 1"));
		assertThat(start(engine).beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().reason()).contains("fail-fast"));
	}

	@Test
	void withPacingOffAnotherOperationsHintHoldsNobody() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(429, "Retry-After: 2"));
		assertThat(start(engine).beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(engine.gate("default").cooldownRemaining()).isZero();
	}

	@Test
	void anUnusableHintDoesNotCloseTheGate() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(503, "Retry-After: soon"));
		assertThat(engine.gate("default").cooldownRemaining()).isZero();
	}

	@Test
	void cancellingAnOperationHeldAtTheGateTakesItOffTheQueue() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		engine.gate("default").closeUntil(Duration.ofSeconds(3).toNanos());
		RetryOperation held = start(engine);
		assertThat(held.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		assertThat(held.beforeAttempt()).as("asking again early waits again").isInstanceOf(Permit.Wait.class);
		assertThat(engine.gate("default").queued()).isEqualTo(1);
		held.cancel();
		assertThat(engine.gate("default").queued()).isZero();
	}

	@Test
	void theRunnerWaitsForTheGateThenSends() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of());
		engine.gate("default").closeUntil(Duration.ofSeconds(2).toNanos());
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(Step.respond(200)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(2));
	}

	@Test
	void aSingleOperationWaitsExactlyAsLongWithPacingOnAsOff() {
		List<Duration> on = sleepsOfOneOperation(PACED);
		List<Duration> off = sleepsOfOneOperation(RetryPolicy.DEFAULTS);
		assertThat(on).isEqualTo(off).hasSize(3);
	}

	private List<Duration> sleepsOfOneOperation(RetryPolicy policy) {
		Sim fresh = new Sim();
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.ticker(fresh.clock)
			.providerDefaults(BudgetSettings.ofCapacity(10))
			.build();
		RetryEngine engine = fresh.engine(policy, ScriptedRandom.of(0.3, 0.6, 0.9), budget);
		ScriptedTransport transport = ScriptedTransport.on(fresh.clock)
			.then(Step.respond(503, "Retry-After: 1"), Step.respond(429, "Retry-After: 2"), Step.respond(503),
					Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = fresh.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		if (policy.pacing().enabled()) {
			// issue 31: the two retries the provider asked for (Retry-After, held by the gate) took no token; the
			// unhinted third took one and, succeeding, gave it back
			assertThat(budget.providerTokens("default")).as("hinted retries paced by the gate take no token")
				.isEqualTo(10);
		}
		else {
			assertThat(budget.providerTokens("default"))
				.as("three retries took three tokens; the one that succeeded gave its back")
				.isEqualTo(8);
		}
		return fresh.clock.sleeps();
	}

}
