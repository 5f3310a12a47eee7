package io.github.retryafter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.github.retryafter.PlannerFixtures.SERVER_NOW;
import static io.github.retryafter.PlannerFixtures.headers;
import static io.github.retryafter.PlannerFixtures.jitter;
import static io.github.retryafter.PlannerFixtures.planner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WaiterTests {

	private final PlannerFixtures.FakeTicker ticker = new PlannerFixtures.FakeTicker(1_000_000_000L);

	private final List<Duration> sleeps = new ArrayList<>();

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	private RetryPlan thirtySeconds() {
		return planner(SERVER_NOW).options(jitter(JitterMode.NONE))
			.ticker(this.ticker)
			.build()
			.plan(headers("Retry-After", "30"))
			.orElseThrow();
	}

	/**
	 * A sleeper whose timer fires {@code fraction} of the way through every requested sleep (but always lets at least
	 * a nanosecond pass, like any real clock).
	 */
	private Sleeper firingEarly(double fraction) {
		return (duration, cancellation) -> {
			this.sleeps.add(duration);
			if (this.sleeps.size() > 1_000) {
				throw new AssertionError("the waiter is spinning: " + this.sleeps.size() + " sleeps");
			}
			this.ticker.advance(Math.max(1, (long) (duration.toNanos() * fraction)));
		};
	}

	@Test
	void aSleeperThatReturnsOnTimeIsOneIteration() throws InterruptedException {
		RetryPlan plan = thirtySeconds();
		assertThat(Waiter.of(this.ticker, firingEarly(1.0)).await(plan, Cancellation.never())).isTrue();
		assertThat(this.sleeps).containsExactly(Duration.ofSeconds(30));
		assertThat(this.ticker.read()).isEqualTo(plan.deadlineNanos());
	}

	@Test
	void aTimerThatFiresEarlyIsAnExtraIterationNeverAnEarlyReturn() throws InterruptedException {
		RetryPlan plan = thirtySeconds();
		assertThat(Waiter.of(this.ticker, firingEarly(0.5)).await(plan, Cancellation.never())).isTrue();
		assertThat(this.ticker.read()).isGreaterThanOrEqualTo(plan.deadlineNanos());
		assertThat(this.sleeps).hasSizeBetween(10, 40);
		assertThat(this.sleeps.get(0)).isEqualTo(Duration.ofSeconds(30));
		assertThat(this.sleeps.get(1)).isEqualTo(Duration.ofSeconds(15));
	}

	@Test
	void aSleeperThatDoesNotSleepAtAllCannotEndTheWait() throws InterruptedException {
		RetryPlan plan = thirtySeconds();
		int[] calls = { 0 };
		Sleeper spurious = (duration, cancellation) -> {
			calls[0]++;
			if (calls[0] % 3 == 0) {
				this.ticker.advance(10_000_000_000L);
			}
		};
		assertThat(Waiter.of(this.ticker, spurious).await(plan, Cancellation.never())).isTrue();
		assertThat(calls[0]).isEqualTo(9);
		assertThat(this.ticker.read()).isGreaterThanOrEqualTo(plan.deadlineNanos());
	}

	@Test
	void aPassedDeadlineDoesNotSleep() throws InterruptedException {
		RetryPlan plan = thirtySeconds();
		this.ticker.advance(31_000_000_000L);
		assertThat(Waiter.of(this.ticker, firingEarly(1.0)).await(plan, Cancellation.never())).isTrue();
		assertThat(this.sleeps).isEmpty();
	}

	@Test
	void cancellationEndsTheWaitWithFalse() throws InterruptedException {
		RetryPlan plan = thirtySeconds();
		Cancellation cancellation = Cancellation.create();
		Sleeper cancelling = (duration, token) -> {
			this.sleeps.add(duration);
			this.ticker.advance(1_000_000_000L);
			cancellation.cancel();
		};
		assertThat(Waiter.of(this.ticker, cancelling).await(plan, cancellation)).isFalse();
		assertThat(this.sleeps).hasSize(1);
		assertThat(this.ticker.read()).isLessThan(plan.deadlineNanos());
	}

	@Test
	void anAlreadyCancelledWaitReturnsAtOnce() throws InterruptedException {
		Cancellation cancellation = Cancellation.create();
		cancellation.cancel();
		assertThat(Waiter.of(this.ticker, firingEarly(1.0)).await(thirtySeconds(), cancellation)).isFalse();
		assertThat(this.sleeps).isEmpty();
	}

	@Test
	void interruptionWhileSleepingAbandonsTheWait() {
		Sleeper interrupted = (duration, cancellation) -> {
			throw new InterruptedException("test");
		};
		assertThatThrownBy(() -> Waiter.of(this.ticker, interrupted).await(thirtySeconds(), Cancellation.never()))
			.isInstanceOf(InterruptedException.class);
	}

	@Test
	void anInterruptFlagSetDuringASleepIsHonouredOnTheNextIteration() {
		Sleeper flagging = (duration, cancellation) -> {
			this.sleeps.add(duration);
			this.ticker.advance(1_000_000_000L);
			Thread.currentThread().interrupt();
		};
		assertThatThrownBy(() -> Waiter.of(this.ticker, flagging).await(thirtySeconds(), Cancellation.never()))
			.isInstanceOf(InterruptedException.class);
		assertThat(this.sleeps).hasSize(1);
	}

	@Test
	void theSystemSleeperWakesAtOnceWhenCancelled() throws InterruptedException {
		Cancellation cancellation = Cancellation.create();
		cancellation.cancel();
		// Already cancelled: the latch is open, so a day-long sleep returns immediately.
		Sleeper.system().sleep(Duration.ofDays(1), cancellation);
		assertThat(Waiter.of(this.ticker, Sleeper.system()).awaitDeadline(Long.MAX_VALUE, cancellation)).isFalse();
	}

}
