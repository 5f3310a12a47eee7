package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet budget's lease side, deterministically: two instances on one in-memory store and one fake clock, every
 * retry decided as on an event loop (no round trip on the caller's thread), the stores' threads run by hand.
 */
class FleetRetryBudgetTests {

	private final AtomicLong nanos = new AtomicLong();

	private final Ticker ticker = this.nanos::get;

	private final InMemoryFleetStore store = new InMemoryFleetStore(this.ticker);

	private final InMemoryFleetStore.Member a = this.store.join("a");

	private final InMemoryFleetStore.Member b = this.store.join("b");

	private final Scope scope = Scope.provider("default");

	@Test
	void onAnEventLoopARetryFindingNoTokenWaitsForALeaseAndNeverGetsMoreThanTheBucketHolds() {
		FleetRetryBudget first = budget(this.a, 2);
		FleetRetryBudget second = budget(this.b, 2);
		assertThat(first.tryAcquire(this.scope)).as("no round trip: a lease is asked for").isFalse();
		assertThat(first.pendingTokens(this.scope)).as("the lease is on its way: the retry waits").isPositive();
		this.a.runTasks();
		assertThat(first.tryAcquire(this.scope)).isTrue();
		assertThat(second.tryAcquire(this.scope)).isFalse();
		this.b.runTasks();
		assertThat(second.tryAcquire(this.scope)).isTrue();
		assertThat(first.tryAcquire(this.scope) || second.tryAcquire(this.scope)).isFalse();
		this.a.runTasks();
		this.b.runTasks();
		assertThat(first.tryAcquire(this.scope) || second.tryAcquire(this.scope)).as("two tokens, two retries").isFalse();
	}

	@Test
	void aRefundStaysForThisInstancesNextRetryAndAFailedRetrysTokenStaysSpent() {
		FleetRetryBudget first = budget(this.a, 1);
		FleetRetryBudget second = budget(this.b, 1);
		first.tryAcquire(this.scope);
		this.a.runTasks();
		assertThat(first.tryAcquire(this.scope)).isTrue();
		first.refund(this.scope);
		assertThat(first.tryAcquire(this.scope)).as("the refund is in this instance's pool at once").isTrue();
		first.settle(this.scope);
		this.a.runTasks();
		// the fleet's only token is spent and nobody holds one: once b knows, its retry gives up
		assertThat(second.tryAcquire(this.scope)).isFalse();
		this.b.runTasks();
		assertThat(second.tryAcquire(this.scope)).isFalse();
		this.b.runTasks();
		assertThat(second.pendingTokens(this.scope)).isZero();
	}

	@Test
	void pooledTokensNoRetryWantsGoBackToTheFleetAfterTheKeep() {
		FleetRetryBudget first = budget(this.a, 1);
		FleetRetryBudget second = budget(this.b, 1);
		first.tryAcquire(this.scope);
		this.a.runTasks();
		assertThat(first.availableTokens(this.scope)).as("the leased token waits in a's pool").isEqualTo(1.0);
		this.nanos.addAndGet(FleetRetryBudget.KEEP_FOR.plus(Duration.ofMillis(1)).toNanos());
		this.a.flush();
		assertThat(this.store.level(FleetBucket.ofProvider("default", settings(1))).getAsDouble()).isEqualTo(1.0);
		second.tryAcquire(this.scope);
		this.b.runTasks();
		assertThat(second.tryAcquire(this.scope)).isTrue();
	}

	@Test
	void aloneAnInstanceDecidesOnItsShareAtOnceAndTheStoreLearnsWhatItTook() {
		this.b.leave();
		FleetRetryBudget alone = budget(this.a, 2);
		assertThat(alone.tryAcquire(this.scope)).isTrue();
		assertThat(alone.tryAcquire(this.scope)).isTrue();
		assertThat(alone.tryAcquire(this.scope)).isFalse();
		this.a.runTasks();
		assertThat(this.store.level(FleetBucket.ofProvider("default", settings(2))).getAsDouble()).isZero();
	}

	private FleetRetryBudget budget(FleetStore member, double capacity) {
		return FleetRetryBudget.builder(member)
			.global(new BudgetSettings(100, 0, 0))
			.provider("default", settings(capacity))
			.ticker(this.ticker)
			.mayBlock(() -> false)
			.build();
	}

	private static BudgetSettings settings(double capacity) {
		return new BudgetSettings(capacity, 0, 0);
	}

}
