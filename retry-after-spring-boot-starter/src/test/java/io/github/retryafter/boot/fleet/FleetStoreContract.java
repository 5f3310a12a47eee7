package io.github.retryafter.boot.fleet;

import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.FleetStore.Acquired;
import io.github.retryafter.fleet.FleetStore.Deposit;
import io.github.retryafter.fleet.FleetStore.Lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What every {@link FleetStore} promises, whatever keeps the state: each operation atomic, a missing bucket full, both
 * buckets or neither, levels never below zero nor above capacity, the floor's refill on the store's clock, leases never
 * larger than asked or held, what each member holds summed and a departed member's lease dropped, and a key that is not
 * the fleet's neither read nor written. The same {@link FleetRetryBudget} runs on each. One subclass per store.
 */
public abstract class FleetStoreContract {

	private static final FleetBucket GLOBAL = FleetBucket.ofGlobal(new BudgetSettings(10, 0.2, 0));

	private static final FleetBucket PROVIDER = FleetBucket.ofProvider("default", new BudgetSettings(3, 0.2, 0));

	/**
	 * Joins a new instance to this test's fleet, shared once it returns.
	 * @param instanceId the instance's identity
	 * @return its link
	 */
	protected abstract FleetStore join(String instanceId);

	/**
	 * Writes a value the fleet did not write at {@code bucket}'s key.
	 * @param bucket the bucket
	 */
	protected abstract void corrupt(FleetBucket bucket);

	/**
	 * Lets {@code duration} pass on the store's clock.
	 * @param duration at least this long
	 */
	protected abstract void elapse(Duration duration);

	/**
	 * Makes {@code member} stop counting as a member of the fleet.
	 * @param member the member
	 */
	protected abstract void leave(FleetStore member);

	/**
	 * Makes {@code member} fall back to local state, then return to the store, its participants told of both.
	 * @param member the member
	 * @param whileAway runs after the fallback, before the return
	 */
	protected abstract void fallBackAndRejoin(FleetStore member, Runnable whileAway);

	@Test
	void aMissingBucketIsFullAndATakeTakesOneFromEachBucket() {
		FleetStore store = join("a");
		Acquired taken = store.acquire(PROVIDER, GLOBAL).orElseThrow();
		assertThat(taken.taken()).isTrue();
		assertThat(taken.provider().getAsDouble()).isEqualTo(2.0);
		assertThat(taken.global().getAsDouble()).isEqualTo(9.0);
	}

	@Test
	void aTakeTakesFromBothBucketsOrNeither() {
		FleetStore store = join("a");
		for (int i = 0; i < 3; i++) {
			assertThat(store.acquire(PROVIDER, GLOBAL).orElseThrow().taken()).isTrue();
		}
		Acquired refused = store.acquire(PROVIDER, GLOBAL).orElseThrow();
		assertThat(refused.taken()).isFalse();
		assertThat(refused.provider().getAsDouble()).isEqualTo(0.0);
		assertThat(refused.global().getAsDouble()).as("the refusal took nothing from the global bucket").isEqualTo(7.0);
	}

	@Test
	void aDepositNeverTakesABucketBelowZeroNorAboveItsCapacityAndZeroOnlyReads() {
		FleetStore store = join("a");
		assertThat(levels(store.deposit(List.of(new Deposit(GLOBAL, 0), new Deposit(PROVIDER, -100))).orElseThrow()))
			.containsExactly(10.0, 0.0);
		assertThat(levels(store.deposit(List.of(new Deposit(GLOBAL, -2.5), new Deposit(PROVIDER, 0.5))).orElseThrow()))
			.containsExactly(7.5, 0.5);
		assertThat(levels(store.deposit(List.of(new Deposit(GLOBAL, 100), new Deposit(PROVIDER, 0))).orElseThrow()))
			.containsExactly(10.0, 0.5);
	}

	@Test
	void theFloorRefillsEveryBucketOnTheStoresClockUpToItsCapacity() {
		FleetStore store = join("a");
		FleetBucket refilling = FleetBucket.ofProvider("refilling", new BudgetSettings(2, 0, 10));
		store.acquire(refilling, GLOBAL);
		Acquired emptied = store.acquire(refilling, GLOBAL).orElseThrow();
		assertThat(emptied.taken()).isTrue();
		assertThat(emptied.provider().getAsDouble()).isLessThan(1);
		elapse(Duration.ofMillis(250));
		OptionalDouble refilled = store.deposit(List.of(new Deposit(refilling, 0))).orElseThrow().get(0);
		assertThat(refilled.getAsDouble()).as("10 a second for 0.25 s, capped at 2").isEqualTo(2.0, within(1e-9));
	}

	@Test
	void aLeaseIsNeverMoreThanWantedNorThanBothBucketsHold() {
		FleetStore store = join("a");
		Lease lease = store.lease(PROVIDER, GLOBAL, 0, 5, 0).orElseThrow();
		assertThat(lease.granted()).isEqualTo(3);
		assertThat(lease.provider().getAsDouble()).isEqualTo(0.0);
		assertThat(lease.global().getAsDouble()).isEqualTo(7.0);
		assertThat(lease.fleetHeld()).isEqualTo(3);
		assertThat(store.lease(PROVIDER, GLOBAL, 0, 1, 3).orElseThrow().granted()).as("the bucket is empty").isZero();
	}

	@Test
	void leasesRecordWhatEachMemberHoldsAndWhatIsGivenBackReturnsToBothBuckets() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		assertThat(a.lease(PROVIDER, GLOBAL, 0, 2, 0).orElseThrow().granted()).isEqualTo(2);
		Lease second = b.lease(PROVIDER, GLOBAL, 0, 4, 0).orElseThrow();
		assertThat(second.granted()).isEqualTo(1);
		assertThat(second.fleetHeld()).as("a holds 2, b holds 1").isEqualTo(3);
		Lease back = a.lease(PROVIDER, GLOBAL, 2, 0, 0).orElseThrow();
		assertThat(back.granted()).isZero();
		assertThat(back.provider().getAsDouble()).isEqualTo(2.0);
		assertThat(back.global().getAsDouble()).isEqualTo(9.0);
		assertThat(back.fleetHeld()).isEqualTo(1);
	}

	@Test
	void aDepartedMembersLeaseIsDroppedAndItsTokensStaySpent() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		assertThat(a.lease(PROVIDER, GLOBAL, 0, 2, 0).orElseThrow().fleetHeld()).isEqualTo(2);
		leave(a);
		Lease read = b.lease(PROVIDER, GLOBAL, 0, 0, 0).orElseThrow();
		assertThat(read.fleetHeld()).isZero();
		assertThat(read.provider().getAsDouble()).isEqualTo(1.0);
	}

	@Test
	void aBucketThatIsNotTheFleetsIsAnsweredInvalidAndNeitherReadNorWritten() {
		FleetStore store = join("a");
		corrupt(PROVIDER);
		Acquired refused = store.acquire(PROVIDER, GLOBAL).orElseThrow();
		assertThat(refused.taken()).isFalse();
		assertThat(refused.provider()).isEmpty();
		assertThat(refused.global().getAsDouble()).isEqualTo(10.0);
		List<OptionalDouble> levels = store.deposit(List.of(new Deposit(GLOBAL, -1), new Deposit(PROVIDER, -1)))
			.orElseThrow();
		assertThat(levels.get(0).getAsDouble()).isEqualTo(9.0);
		assertThat(levels.get(1)).isEmpty();
		Lease lease = store.lease(PROVIDER, GLOBAL, 1, 1, 0).orElseThrow();
		assertThat(lease.granted()).isZero();
		assertThat(lease.provider()).isEmpty();
		assertThat(lease.global().getAsDouble()).as("nothing given, nothing leased").isEqualTo(9.0);
	}

	@Test
	void twoBudgetsOnOneStoreNeverTakeMoreThanTheBucketHolds() {
		FleetRetryBudget a = budget(join("a"));
		FleetRetryBudget b = budget(join("b"));
		int granted = 0;
		for (int i = 0; i < 10; i++) {
			granted += ((i % 2 == 0) ? a : b).tryAcquire("default") ? 1 : 0;
		}
		assertThat(granted).isEqualTo(3);
		assertThat(a.providerTokens("default")).isLessThan(1);
	}

	@Test
	void aBudgetsFallbackContinuesFromTheLastLevelAndTheStoreIsToldWhatWasSpent() {
		FleetStore store = join("a");
		FleetRetryBudget budget = budget(store);
		assertThat(budget.tryAcquire("default")).isTrue();
		// the last level read is 2: this instance's share while it decides locally, never a fresh bucket
		fallBackAndRejoin(store, () -> {
			assertThat(budget.tryAcquire("default")).isTrue();
			assertThat(budget.tryAcquire("default")).isTrue();
			assertThat(budget.tryAcquire("default")).isFalse();
		});
		assertThat(budget.tryAcquire("default")).as("the two spent away reached the store at the rejoin").isFalse();
		assertThat(levels(store.deposit(List.of(new Deposit(PROVIDER, 0))).orElseThrow())).containsExactly(0.0);
	}

	private static FleetRetryBudget budget(FleetStore store) {
		return FleetRetryBudget.builder(store)
			.global(GLOBAL.settings())
			.provider("default", PROVIDER.settings())
			.ticker(Ticker.system())
			.build();
	}

	private static List<Double> levels(List<OptionalDouble> levels) {
		return levels.stream().map(OptionalDouble::getAsDouble).toList();
	}

}
