package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RetryTokens}: a retry's token is taken, or the retry told to wait or refused, in one call; the attempt's end
 * reaches the budget once.
 */
class RetryTokensTests {

	private static final Scope DEFAULT = Scope.provider("default");

	private static final long MS = Duration.ofMillis(1).toNanos();

	private final FakeClock clock = FakeClock.create();

	private final TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
		.ticker(this.clock)
		.providerDefaults(new BudgetSettings(1, 0.5, 0))
		.build();

	private final RetryTokens tokens = new RetryTokens(this.budget);

	private RetryTokens.Take take(long now, long latestStart, long since) {
		return this.tokens.take(DEFAULT, 2, now, latestStart, since);
	}

	@Test
	void aRetryTakesItsTokenInOneCallAndItsSuccessGivesItBack() {
		long now = this.clock.read();
		assertThat(take(now, now + 1000 * MS, now)).isEqualTo(new RetryTokens.Take.Taken(0.0));
		assertThat(this.budget.pendingTokens(DEFAULT)).isOne();
		this.tokens.attemptEnded(DEFAULT, true, true, true);
		assertThat(this.budget.pendingTokens(DEFAULT)).isZero();
		assertThat(this.budget.providerTokens("default")).isEqualTo(1);
	}

	@Test
	void aRetryThatFindsTheOnlyTokenInFlightWaitsAtIntervalsThatGrowWithItsWaitButNeverPastItsLastStart() {
		long now = this.clock.read();
		take(now, now + 1000 * MS, now);
		assertThat(take(now, now + 1000 * MS, now)).isEqualTo(new RetryTokens.Take.Await(now + 10 * MS));
		assertThat(take(now, now + 1000 * MS, now - 50 * MS)).isEqualTo(new RetryTokens.Take.Await(now + 50 * MS));
		assertThat(take(now, now + 1000 * MS, now - 1000 * MS)).isEqualTo(new RetryTokens.Take.Await(now + 100 * MS));
		assertThat(take(now, now + 5 * MS, now)).isEqualTo(new RetryTokens.Take.Await(now + 5 * MS));
		assertThat(this.budget.pendingTokens(DEFAULT)).as("waiting takes nothing").isOne();
	}

	@Test
	void withNothingInFlightARetryIsRefusedAndTheReasonSaysWhatTheBudgetHeld() {
		long now = this.clock.read();
		take(now, now + 1000 * MS, now);
		this.tokens.attemptEnded(DEFAULT, true, true, false);
		assertThat(this.budget.providerTokens("default")).as("a failed retry's token stays spent").isZero();
		assertThat(take(now, now + 1000 * MS, now)).isInstanceOfSatisfying(RetryTokens.Take.Refused.class,
				(refused) -> assertThat(refused.reason()).isEqualTo(
						"the retry budget for 'default' has no token for attempt 2 (0.00 available)"));
	}

	@Test
	void aFirstAttemptTakesNothingAndItsSuccessDeposits() {
		this.tokens.attemptEnded(DEFAULT, false, false, false);
		assertThat(this.budget.providerTokens("default")).isEqualTo(1);
		long now = this.clock.read();
		take(now, now + 1000 * MS, now);
		this.tokens.attemptEnded(DEFAULT, true, true, false);
		this.tokens.attemptEnded(DEFAULT, false, false, true);
		assertThat(this.budget.providerTokens("default")).isEqualTo(0.5);
	}

	@Test
	void theViewReadsWhatMayComeBackOnlyWhenAsked() {
		TokenView view = this.tokens.view(DEFAULT);
		assertThat(view.available()).isEqualTo(1);
		long now = this.clock.read();
		take(now, now + 1000 * MS, now);
		assertThat(view.available()).isZero();
		assertThat(view.inFlight()).isOne();
	}

}
