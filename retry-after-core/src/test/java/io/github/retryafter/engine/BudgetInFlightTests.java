package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Scope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Budget and pacing agree (issue 17): a retry that finds the budget empty while other retries hold its tokens in
 * flight waits for their answers instead of ending {@link Outcome#BUDGET_EXHAUSTED}; with nothing in flight it ends
 * at once, as before, and the tokens spent by failed retries never exceed the bucket.
 */
class BudgetInFlightTests {

	private static final Scope DEFAULT = Scope.provider("default");

	private final Sim sim = new Sim();

	private final TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
		.ticker(this.sim.clock)
		.providerDefaults(new BudgetSettings(1, 0, 0))
		.build();

	private final RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0, 0.0, 0.0, 0.0),
			this.budget);

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	/** An operation whose first attempt failed with a one-second hint, now at its retry instant. */
	private RetryOperation failedOnce() {
		RetryOperation operation = this.engine.start(OperationSpec.of("GET"), Cancellation.never());
		assertThat(operation.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(operation.afterAttempt(response(503, "Retry-After: 1"))).isInstanceOf(Decision.Retry.class);
		return operation;
	}

	@Test
	void aRetryThatFindsTheOnlyTokenInFlightWaitsForItsAnswerAndTakesTheTokenItsSuccessGaveBack() {
		RetryOperation first = failedOnce();
		RetryOperation second = failedOnce();
		this.sim.clock.advance(Duration.ofSeconds(1));
		assertThat(first.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(this.budget.pendingTokens(DEFAULT)).isOne();
		long now = this.sim.clock.read();
		assertThat(second.beforeAttempt()).as("the one token is in flight: wait, do not give up")
			.isEqualTo(new Permit.Wait(now + Duration.ofMillis(10).toNanos(), GateHold.BUDGET));
		assertThat(second.outcome()).isEmpty();
		assertThat(first.afterAttempt(response(200))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.SUCCESS));
		assertThat(this.budget.pendingTokens(DEFAULT)).isZero();
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(second.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(second.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
		assertThat(this.budget.providerTokens("default")).isEqualTo(1);
	}

	@Test
	void aRetryWaitingForATokenThatIsSpentEndsBudgetExhaustedOnceNothingIsInFlight() {
		RetryOperation first = failedOnce();
		RetryOperation second = failedOnce();
		this.sim.clock.advance(Duration.ofSeconds(1));
		first.beforeAttempt();
		assertThat(second.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(second.beforeAttempt()).as("the wait doubles with its age, from 10 ms")
			.isEqualTo(new Permit.Wait(this.sim.clock.read() + Duration.ofMillis(10).toNanos(), GateHold.BUDGET));
		// the retry in flight fails: its token stays spent, and the first operation has no token for another retry
		assertThat(first.afterAttempt(response(503, "Retry-After: 1"))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED));
		assertThat(this.budget.pendingTokens(DEFAULT)).isZero();
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(second.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED));
		assertThat(this.budget.providerTokens("default")).isZero();
	}

	@Test
	void aRetryStillInFlightWhenItsOperationIsCancelledNoLongerCountsAsInFlight() {
		RetryOperation first = failedOnce();
		this.sim.clock.advance(Duration.ofSeconds(1));
		first.beforeAttempt();
		assertThat(this.budget.pendingTokens(DEFAULT)).isOne();
		first.cancel();
		assertThat(this.budget.pendingTokens(DEFAULT)).isZero();
		assertThat(this.budget.providerTokens("default")).as("a cancelled retry's token stays spent").isZero();
	}

}
