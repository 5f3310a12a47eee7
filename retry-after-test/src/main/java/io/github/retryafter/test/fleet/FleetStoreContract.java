package io.github.retryafter.test.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.FleetStore.Acquired;
import io.github.retryafter.fleet.FleetStore.BacklogReport;
import io.github.retryafter.fleet.FleetStore.Backlogs;
import io.github.retryafter.fleet.FleetStore.Claimant;
import io.github.retryafter.fleet.FleetStore.Cooldown;
import io.github.retryafter.fleet.FleetStore.Deposit;
import io.github.retryafter.fleet.FleetStore.Lease;
import io.github.retryafter.fleet.FleetStore.ProbeClaim;
import io.github.retryafter.fleet.FleetStore.ProbeState;
import io.github.retryafter.fleet.FleetStore.ProviderKey;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What every {@link FleetStore} promises, whatever keeps the state: each operation atomic, a missing bucket full, both
 * buckets or neither, levels never below zero nor above capacity, the floor's refill on the store's clock, leases never
 * larger than asked or held, what each member holds summed and a departed member's lease dropped, and a key that is not
 * the fleet's neither read nor written; a cooldown never shortened nor longer than its cap, one probe claim per
 * instant (and a claim left from before the store's clock stepped back yielding to the fleet's cooldown), the
 * backlogs summed within their window, a cooldown moved later announced to the other members at once; and, while the
 * store's {@link FleetStore#runtime() runtime} is not shared, every operation answering empty and writing nothing,
 * its participants told of the fallback and the rejoin. The same {@link FleetRetryBudget} and {@link SharedCooldown}
 * run on each.
 * <p>
 * To hold a store of your own to it, extend this class in your tests (JUnit 5 and AssertJ on the test classpath) and
 * implement the abstract methods: how an instance joins your store's fleet, how a foreign value is written at one of
 * its keys, and how the work its members queue is run (at once, where the store runs it in the background). The
 * in-memory store runs it on a fake clock, the Redis store on a real {@code redis-server}. Waits for what a store
 * announces in the background poll every 100 ms for at most 2 s each; nothing else waits on the real clock.
 */
public abstract class FleetStoreContract {

	private static final FleetBucket GLOBAL = FleetBucket.ofGlobal(new BudgetSettings(10, 0.2, 0));

	private static final FleetBucket PROVIDER = FleetBucket.ofProvider("default", new BudgetSettings(3, 0.2, 0));

	private static final Duration CAP = Duration.ofSeconds(5);

	private static final long POLL_NANOS = 100_000_000L;

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
	 * Writes a value the fleet did not write at one of a provider's keys.
	 * @param key which key
	 * @param provider the provider
	 */
	protected abstract void corrupt(ProviderKey key, String provider);

	/**
	 * Runs what the members' store threads have queued and one flush of each, where nothing runs by itself.
	 * @param members the members
	 */
	protected abstract void settle(FleetStore... members);

	/**
	 * Runs what the members' store threads have queued (announcements they heard among them), without a flush, where
	 * nothing runs by itself.
	 * @param members the members
	 */
	protected abstract void deliver(FleetStore... members);

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

	@Test
	void whileNotSharedEveryOperationAnswersEmptyAndTheParticipantsHearTheFallbackAndTheRejoin() {
		FleetStore store = join("a");
		List<String> told = new CopyOnWriteArrayList<>();
		store.runtime().register(new FleetStore.Participant() {

			@Override
			public void sync() {
			}

			@Override
			public void onFallback() {
				told.add("fallback");
			}

			@Override
			public void onRejoin() {
				told.add("rejoin");
			}

		});
		assertThat(store.runtime()).as("one runtime").isSameAs(store.runtime());
		fallBackAndRejoin(store, () -> {
			assertThat(store.runtime().shared()).isFalse();
			assertThat(store.acquire(PROVIDER, GLOBAL)).isEmpty();
			assertThat(store.deposit(List.of(new Deposit(GLOBAL, -5)))).isEmpty();
			assertThat(store.lease(PROVIDER, GLOBAL, 0, 2, 0)).isEmpty();
			assertThat(store.extendCooldown("default", Duration.ofSeconds(2), CAP)).isEmpty();
			assertThat(store.readCooldowns(List.of("default"))).isEmpty();
			assertThat(store.claimProbe("default", 1, Duration.ofSeconds(10))).isEmpty();
			assertThat(store.readProbes(List.of("default"))).isEmpty();
			assertThat(store.reportBacklogs(Duration.ofSeconds(5), List.of(new BacklogReport("default", true, 3, 1.0))))
				.isEmpty();
		});
		assertThat(store.runtime().shared()).isTrue();
		assertThat(told).containsExactly("fallback", "rejoin");
		assertThat(levels(store.deposit(List.of(new Deposit(GLOBAL, 0), new Deposit(PROVIDER, 0))).orElseThrow()))
			.as("nothing was taken while away").containsExactly(10.0, 3.0);
		assertThat(store.readCooldowns(List.of("default")).orElseThrow().get(0).until()).hasValue(0);
		assertThat(store.readProbes(List.of("default")).orElseThrow()).containsExactly(ProbeState.NONE);
	}

	@Test
	void aCooldownIsNeverShortenedNorStoredBeyondItsCap() {
		FleetStore store = join("a");
		Cooldown first = store.extendCooldown("default", Duration.ofSeconds(2), CAP).orElseThrow();
		assertThat(first.until().getAsLong() - first.storeNow()).isEqualTo(2_000_000);
		Cooldown shorter = store.extendCooldown("default", Duration.ofMillis(300), CAP).orElseThrow();
		assertThat(shorter.until()).as("a shorter hint never shortens it").isEqualTo(first.until());
		Cooldown longer = store.extendCooldown("default", Duration.ofHours(1), CAP).orElseThrow();
		assertThat(longer.until().getAsLong() - longer.storeNow()).as("the cap at most").isEqualTo(5_000_000);
		List<Cooldown> read = store.readCooldowns(List.of("default", "other")).orElseThrow();
		assertThat(read.get(0).until()).isEqualTo(longer.until());
		assertThat(read.get(1).until().getAsLong()).as("none stands").isZero();
		store.endCooldown("default");
		assertThat(store.readCooldowns(List.of("default")).orElseThrow().get(0).until().getAsLong()).isZero();
	}

	@Test
	void aCooldownOrBacklogKeyThatIsNotTheFleetsIsAnsweredInvalidAndLeftAlone() {
		FleetStore store = join("a");
		corrupt(ProviderKey.COOLDOWN, "default");
		corrupt(ProviderKey.BACKLOG, "default");
		assertThat(store.extendCooldown("default", Duration.ofSeconds(1), CAP).orElseThrow().until()).isEmpty();
		List<Cooldown> read = store.readCooldowns(List.of("default", "other")).orElseThrow();
		assertThat(read.get(0).until()).isEmpty();
		assertThat(read.get(1).until().getAsLong()).isZero();
		List<Optional<Backlogs>> sums = store.reportBacklogs(Duration.ofSeconds(1),
				List.of(new BacklogReport("default", true, 3, 10), new BacklogReport("other", true, 1, 5)))
			.orElseThrow();
		assertThat(sums.get(0)).isEmpty();
		assertThat(sums.get(1)).contains(new Backlogs(1, 1, 5.0));
		store.endCooldown("default");
		assertThat(store.readCooldowns(List.of("default")).orElseThrow().get(0).until()).as("deleted, valid again")
			.hasValue(0);
	}

	@Test
	void theFirstInstanceToClaimAnInstantsProbeHoldsItAndALaterInstantReplacesIt() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		long instant = a.extendCooldown("default", Duration.ofSeconds(2), CAP).orElseThrow().until().getAsLong();
		ProbeClaim mine = a.claimProbe("default", instant, Duration.ofSeconds(10)).orElseThrow();
		assertThat(mine.claimant()).isEqualTo(Claimant.THIS_INSTANCE);
		assertThat(mine.instant()).isEqualTo(instant);
		ProbeClaim theirs = b.claimProbe("default", instant, Duration.ofSeconds(10)).orElseThrow();
		assertThat(theirs.claimant()).isEqualTo(Claimant.ANOTHER_INSTANCE);
		assertThat(theirs.instant()).isEqualTo(instant);
		assertThat(theirs.instant() - theirs.storeNow()).isBetween(1L, 2_000_000L);
		assertThat(b.claimProbe("default", instant - 1, Duration.ofSeconds(10)).orElseThrow().claimant())
			.as("an earlier instant's claim does not replace it").isEqualTo(Claimant.ANOTHER_INSTANCE);
		assertThat(b.claimProbe("default", instant + 1, Duration.ofSeconds(10)).orElseThrow().claimant())
			.isEqualTo(Claimant.THIS_INSTANCE);
		assertThat(a.readProbes(List.of("default", "other")).orElseThrow())
			.containsExactly(new ProbeState(instant + 1, false), ProbeState.NONE);
	}

	@Test
	void aClaimForAnInstantAheadOfTheProvidersCooldownYieldsToAClaimOfThatCooldown() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		long instant = a.extendCooldown("default", Duration.ofSeconds(2), CAP).orElseThrow().until().getAsLong();
		// what a claim made before the store's clock stepped back by a minute looks like after the step
		long ahead = instant + Duration.ofMinutes(1).toNanos() / 1000;
		assertThat(a.claimProbe("default", ahead, Duration.ofSeconds(10)).orElseThrow().claimant())
			.isEqualTo(Claimant.THIS_INSTANCE);
		ProbeClaim theirs = b.claimProbe("default", instant, Duration.ofSeconds(10)).orElseThrow();
		assertThat(theirs.claimant()).as("the claim of the fleet's cooldown replaces it").isEqualTo(Claimant.THIS_INSTANCE);
		assertThat(theirs.instant()).isEqualTo(instant);
		assertThat(a.claimProbe("default", instant, Duration.ofSeconds(10)).orElseThrow().claimant())
			.as("one claim for that instant").isEqualTo(Claimant.ANOTHER_INSTANCE);
		assertThat(a.claimProbe("default", instant - 1, Duration.ofSeconds(10)).orElseThrow().claimant())
			.as("an earlier instant's claim still does not replace it").isEqualTo(Claimant.ANOTHER_INSTANCE);
	}

	@Test
	void anAdmittedProbeMarksItsClaimAndEndsThatCooldownAndAnAnsweredOneRemovesIt() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		long instant = a.extendCooldown("default", Duration.ofSeconds(2), CAP).orElseThrow().until().getAsLong();
		a.claimProbe("default", instant, Duration.ofSeconds(10));
		b.endProbe("default", instant, true);
		assertThat(a.readProbes(List.of("default")).orElseThrow()).as("not b's claim")
			.containsExactly(new ProbeState(instant, false));
		a.endProbe("default", instant, true);
		assertThat(b.readProbes(List.of("default")).orElseThrow()).containsExactly(new ProbeState(instant, true));
		assertThat(b.readCooldowns(List.of("default")).orElseThrow().get(0).until()).hasValue(0);
		assertThat(b.claimProbe("default", instant, Duration.ofSeconds(10)).orElseThrow().claimant())
			.isEqualTo(Claimant.ADMITTED);
		long later = a.extendCooldown("default", Duration.ofSeconds(3), CAP).orElseThrow().until().getAsLong();
		assertThat(b.claimProbe("default", later, Duration.ofSeconds(10)).orElseThrow().claimant())
			.isEqualTo(Claimant.THIS_INSTANCE);
		b.endProbe("default", later, false);
		assertThat(a.readProbes(List.of("default")).orElseThrow()).containsExactly(ProbeState.NONE);
		assertThat(a.readCooldowns(List.of("default")).orElseThrow().get(0).until()).as("not admitted: it stands")
			.hasValue(later);
	}

	@Test
	void backlogsAreSummedPerProviderAndAReportOlderThanTheWindowNoLongerCounts() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		Duration window = Duration.ofMillis(300);
		assertThat(a.reportBacklogs(window, List.of(new BacklogReport("default", true, 3, 10))).orElseThrow())
			.containsExactly(Optional.of(new Backlogs(1, 3, 10.0)));
		assertThat(b.reportBacklogs(window, List.of(new BacklogReport("default", true, 1, 5.5))).orElseThrow())
			.containsExactly(Optional.of(new Backlogs(2, 4, 15.5)));
		assertThat(b.reportBacklogs(window, List.of(new BacklogReport("default", true, 0, 0))).orElseThrow())
			.as("still counted, lending no rate").containsExactly(Optional.of(new Backlogs(2, 3, 10.0)));
		assertThat(a.reportBacklogs(window, List.of(new BacklogReport("default", false, 0, 0))).orElseThrow())
			.as("a's report removed").containsExactly(Optional.of(new Backlogs(1, 0, 0.0)));
		elapse(Duration.ofMillis(400));
		assertThat(a.reportBacklogs(window, List.of(new BacklogReport("default", false, 0, 0))).orElseThrow())
			.as("b's report is older than the window").containsExactly(Optional.of(new Backlogs(0, 0, 0.0)));
	}

	@Test
	void aGateClosedOnOneInstanceClosesTheOthersAtTheirNextSync() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		ProviderGate gateB = closeOnAUntilBLearns(a, b, () -> settle(a, b));
		assertThat(gateB.fleet().share()).isEqualTo(0.5);
	}

	@Test
	void aCooldownOneMemberExtendsIsAnnouncedToTheOthersWithoutTheirReadingAndNeverToItself() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		List<Announced> heardByA = new CopyOnWriteArrayList<>();
		List<Announced> heardByB = new CopyOnWriteArrayList<>();
		a.onCooldown((provider, storeNow, until) -> heardByA.add(new Announced(provider, storeNow, until)));
		b.onCooldown((provider, storeNow, until) -> heardByB.add(new Announced(provider, storeNow, until)));
		Cooldown first = a.extendCooldown("default", Duration.ofSeconds(2), CAP).orElseThrow();
		a.extendCooldown("default", Duration.ofMillis(300), CAP);
		Cooldown longer = a.extendCooldown("default", Duration.ofSeconds(3), CAP).orElseThrow();
		eventually(Duration.ofSeconds(2), () -> {
			deliver(b);
			return heardByB.size() >= 2;
		});
		assertThat(heardByB).as("what moved the instant later, in order; the shorter hint moved nothing").containsExactly(
				new Announced("default", first.storeNow(), first.until().getAsLong()),
				new Announced("default", longer.storeNow(), longer.until().getAsLong()));
		Cooldown fromB = b.extendCooldown("other", Duration.ofSeconds(1), CAP).orElseThrow();
		eventually(Duration.ofSeconds(2), () -> {
			deliver(a);
			return !heardByA.isEmpty();
		});
		assertThat(heardByA).as("b's, and none of a's own, which it heard before")
			.containsExactly(new Announced("other", fromB.storeNow(), fromB.until().getAsLong()));
	}

	@Test
	void aGateClosedOnOneInstanceClosesTheOthersAsTheStoreAnnouncesItWithoutASync() {
		FleetStore a = join("a");
		FleetStore b = join("b");
		closeOnAUntilBLearns(a, b, () -> deliver(a, b));
	}

	/**
	 * Closes a's gate for 2 s and publishes it, then runs {@code step} (a sync, or the announcements' delivery) until
	 * b's gate holds most of it, never earlier than a was told.
	 * @return b's gate
	 */
	private ProviderGate closeOnAUntilBLearns(FleetStore a, FleetStore b, Runnable step) {
		ProviderGate gateA = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		ProviderGate gateB = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		SharedCooldown cooldownA = cooldown(a);
		SharedCooldown cooldownB = cooldown(b);
		cooldownA.attach((name) -> Optional.of(gateA.fleet()));
		cooldownB.attach((name) -> Optional.of(gateB.fleet()));
		long told = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		gateA.closeUntil(told);
		cooldownA.publish();
		eventually(Duration.ofSeconds(2), () -> {
			step.run();
			return cooldownB.remaining("default").compareTo(Duration.ofSeconds(1)) > 0;
		});
		assertThat(gateB.cooldownUntilNanos() - told).as("never earlier than the instant a was told").isNotNegative();
		return gateB;
	}

	private static SharedCooldown cooldown(FleetStore store) {
		return SharedCooldown.builder(store).provider("default", CAP, Duration.ofSeconds(10)).ticker(Ticker.system())
			.build();
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

	/**
	 * Polls {@code condition} every 100 ms, the first time 100 ms from now, until it holds, for at most {@code within}:
	 * a member's work runs in the background on a real store, and each poll runs a step of it.
	 */
	private static void eventually(Duration within, BooleanSupplier condition) {
		long deadline = System.nanoTime() + within.toNanos();
		do {
			LockSupport.parkNanos(POLL_NANOS);
			if (condition.getAsBoolean()) {
				return;
			}
		}
		while (System.nanoTime() - deadline < 0);
		throw new AssertionError("not within " + within.toMillis() + " ms");
	}

	private record Announced(String provider, long storeNow, long until) {
	}

}
