package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Scope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared state per origin, and its bounds: one origin's {@code Retry-After} pauses that origin only, no cooldown
 * outlasts its cap, a cooldown ends with one probe, and the number of origins tracked stays at its cap.
 */
class OriginScopeTests {

	private static final Scope A = Scope.origin("default", "https://a.example:443");

	private static final Scope B = Scope.origin("default", "https://b.example:443");

	private static final RetryPolicy PACED = RetryPolicy.DEFAULTS.toBuilder()
		.pacing(PacingSettings.builder().maxCooldown(Duration.ofSeconds(10)).build())
		.build();

	private final Sim sim = new Sim();

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	private RetryOperation start(RetryEngine engine, Scope scope) {
		return engine.start(OperationSpec.of("GET").withScope(scope), Cancellation.never());
	}

	/** One operation to {@code scope} answered with a hint, which closes its gate. */
	private void coolDown(RetryEngine engine, Scope scope, String status, String hint) {
		RetryOperation first = start(engine, scope);
		first.beforeAttempt();
		first.afterAttempt(response(Integer.parseInt(status), hint));
	}

	@Test
	void oneOriginsHugeRetryAfterLeavesAnotherOriginOfTheSameProviderUntouched() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of());
		RetryOperation toA = start(engine, A);
		toA.beforeAttempt();
		assertThat(toA.afterAttempt(response(503, "Retry-After: 99999999999")))
			.isInstanceOfSatisfying(Decision.Stop.class, (stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG));
		assertThat(start(engine, B).beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(engine.gate(B).cooldownRemaining()).isZero();
		assertThat(engine.gate("default").cooldownRemaining()).isZero();
		assertThat(engine.gate(A).cooldownRemaining()).as("capped at max-cooldown").isEqualTo(Duration.ofSeconds(10));
		assertThat(start(engine, A).beforeAttempt())
			.isEqualTo(new Permit.Wait(Duration.ofSeconds(10).toNanos(), GateHold.COOLDOWN));
	}

	@Test
	void whenTheCooldownEndsOneRequestProbesAndTheOthersWaitForItsAnswer() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of());
		coolDown(engine, A, "503", "Retry-After: 3600");
		this.sim.clock.advance(Duration.ofSeconds(10));
		RetryOperation probe = start(engine, A);
		RetryOperation waiting = start(engine, A);
		assertThat(probe.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(engine.gate(A).probing()).isTrue();
		Permit held = waiting.beforeAttempt();
		assertThat(held).isEqualTo(new Permit.Wait(this.sim.clock.read() + 10_000_000L, GateHold.COOLDOWN));
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(waiting.beforeAttempt()).as("still no answer: wait as long as the probe has been out")
			.isEqualTo(new Permit.Wait(this.sim.clock.read() + 10_000_000L, GateHold.COOLDOWN));
		assertThat(probe.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
		assertThat(engine.gate(A).probing()).isFalse();
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(waiting.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(start(engine, A).beforeAttempt()).isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void aProbeRefusedAgainClosesTheGateAndTheFirstRequestAfterTheNewCooldownProbesAgain() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0, 0.0));
		coolDown(engine, A, "503", "Retry-After: 2");
		this.sim.clock.advance(Duration.ofSeconds(2));
		RetryOperation probe = start(engine, A);
		RetryOperation waiting = start(engine, A);
		assertThat(probe.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(waiting.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		probe.afterAttempt(response(503, "Retry-After: 1"));
		assertThat(waiting.beforeAttempt()).isEqualTo(new Permit.Wait(this.sim.clock.read() + 1_000_000_000L,
				GateHold.COOLDOWN));
		this.sim.clock.advance(Duration.ofSeconds(1));
		assertThat(waiting.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(engine.gate(A).probing()).isTrue();
		assertThat(start(engine, A).beforeAttempt()).isInstanceOf(Permit.Wait.class);
	}

	@Test
	void aProbeWhoseOperationEndsWithoutAnAnswerReleasesTheOthers() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		coolDown(engine, A, "429", "Retry-After: 1");
		this.sim.clock.advance(Duration.ofSeconds(1));
		RetryOperation probe = start(engine, A);
		probe.beforeAttempt();
		probe.cancel();
		assertThat(engine.gate(A).probing()).isFalse();
		assertThat(start(engine, A).beforeAttempt()).isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void aProbeThatNeverReportsStopsCountingAfterItsAttemptTimeout() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		coolDown(engine, A, "429", "Retry-After: 1");
		this.sim.clock.advance(Duration.ofSeconds(1));
		start(engine, A).beforeAttempt();
		assertThat(start(engine, A).beforeAttempt()).isInstanceOf(Permit.Wait.class);
		this.sim.clock.advance(PACED.attemptTimeout());
		assertThat(engine.gate(A).probing()).isFalse();
		assertThat(start(engine, A).beforeAttempt()).as("the next request probes in its place")
			.isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void resettingAGateOpensItAtOnce() {
		RetryEngine engine = this.sim.engine(PACED, ScriptedRandom.of(0.0));
		coolDown(engine, A, "429", "Retry-After: 5");
		assertThat(engine.gate(A).rate()).isPresent();
		engine.gate(A).reset();
		assertThat(engine.gate(A).cooldownRemaining()).isZero();
		assertThat(engine.gate(A).rate()).isEmpty();
		assertThat(start(engine, A).beforeAttempt()).isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void oneOriginsOutageSpendsItsOwnBucketNotAnotherOrigins() {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.ticker(this.sim.clock)
			.provider("default", new BudgetSettings(2, 0, 0))
			.build();
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0, 0.0, 0.0, 0.0), budget);
		RetryOperation toA = start(engine, A);
		Outcome outcome = null;
		while (outcome == null) {
			Permit permit = toA.beforeAttempt();
			if (permit instanceof Permit.Refused refused) {
				outcome = refused.stop().outcome();
				break;
			}
			Decision decision = toA.afterAttempt(response(503));
			if (decision instanceof Decision.Retry retry) {
				this.sim.clock.advance(retry.delay());
			}
			else {
				outcome = ((Decision.Stop) decision).outcome();
			}
		}
		assertThat(outcome).isEqualTo(Outcome.BUDGET_EXHAUSTED);
		assertThat(toA.attempts()).as("the first attempt and the bucket's 2 retries").isEqualTo(3);
		assertThat(budget.availableTokens(A)).isLessThan(1.0);
		assertThat(budget.availableTokens(B)).isEqualTo(2.0);
		assertThat(budget.availableTokens("default")).as("the provider's own bucket is untouched").isEqualTo(2.0);
	}

	@Test
	void tenThousandOriginsKeepTheTrackedStateAtItsCap() {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().ticker(this.sim.clock).maxOrigins(100).build();
		RetryEngine engine = RetryEngine.builder()
			.policy(PACED)
			.budget(budget)
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.random(() -> 0.5)
			.maxOrigins(100)
			.build();
		for (int i = 0; i < 10_000; i++) {
			Scope scope = Scope.origin("default", "https://host-" + i + ".example:443");
			RetryOperation operation = start(engine, scope);
			operation.beforeAttempt();
			operation.afterAttempt(response(i % 2 == 0 ? 200 : 503, "Retry-After: 1"));
			assertThat(engine.originGates().size()).isLessThanOrEqualTo(100);
			assertThat(budget.originBuckets()).isLessThanOrEqualTo(100);
		}
		assertThat(engine.originGates()).hasSizeGreaterThan(90);
		Scope recent = Scope.origin("default", "https://host-9999.example:443");
		assertThat(engine.gate(recent).cooldownRemaining()).as("the most recent origin is still tracked").isPositive();
		Scope evicted = Scope.origin("default", "https://host-1.example:443");
		assertThat(engine.gate(evicted).cooldownRemaining()).as("a forgotten origin starts fresh").isZero();
	}

}
