package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared cooldown, deterministically: two instances on one in-memory store and one fake clock, the stores'
 * threads and flushes run by hand.
 */
class SharedCooldownTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final Ticker ticker = this.nanos::get;

	private final InMemoryFleetStore store = new InMemoryFleetStore(this.ticker);

	private final Instance a = new Instance("a");

	private final Instance b = new Instance("b");

	@Test
	void aGateClosedOnOneInstanceClosesTheOtherUntilTheSameInstantAtItsNextSync() {
		long told = this.nanos.get() + Duration.ofSeconds(2).toNanos();
		this.a.gate.closeUntil(told);
		this.a.cooldown.publish();
		this.a.member.runTasks();
		assertThat(this.b.cooldown.remaining("default")).isZero();
		this.b.member.flush();
		assertThat(this.b.gate.cooldownUntilNanos()).isEqualTo(told);
		assertThat(this.b.gate.rate()).as("the fleet was throttled: b paces after the cooldown too").isPresent();
		assertThat(this.b.gate.fleet().share()).isEqualTo(0.5);
	}

	@Test
	void aGateClosedOnOneInstanceClosesTheOtherAsSoonAsTheStoreAnnouncesItWithoutASync() {
		long told = this.nanos.get() + Duration.ofSeconds(2).toNanos();
		this.a.gate.closeUntil(told);
		this.a.cooldown.publish();
		assertThat(this.a.member.runTasks()).as("the push only: a is not told of its own cooldown").isOne();
		assertThat(this.b.cooldown.remaining("default")).isZero();
		// no flush: the announcement, then the one task that learns it
		assertThat(this.b.member.runTasks()).isEqualTo(2);
		assertThat(this.b.gate.cooldownUntilNanos()).isEqualTo(told);
		assertThat(this.b.gate.rate()).as("the fleet was throttled: b paces after the cooldown too").isPresent();
		this.b.member.flush();
		assertThat(this.b.gate.cooldownUntilNanos()).as("read again at the sync, it changes nothing").isEqualTo(told);
	}

	@Test
	void anAnnouncementOfAnEarlierInstantChangesNothingTheLatestWaitingWinsAndOneBeyondTheCapIsCutToIt() {
		InMemoryFleetStore.Member c = this.store.join("c");
		c.extendCooldown("default", Duration.ofSeconds(2), Duration.ofHours(2));
		c.extendCooldown("default", Duration.ofSeconds(4), Duration.ofHours(2));
		assertThat(this.a.member.runTasks()).as("two announcements, one task learning the latest").isEqualTo(3);
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(4));
		c.extendCooldown("default", Duration.ofSeconds(1), Duration.ofHours(2));
		assertThat(this.a.member.runTasks()).as("the store kept the later instant: nothing announced").isZero();
		c.endCooldown("default");
		c.extendCooldown("default", Duration.ofSeconds(1), Duration.ofHours(2));
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).as("an earlier instant changes nothing")
			.isEqualTo(Duration.ofSeconds(4));
		c.extendCooldown("default", Duration.ofHours(1), Duration.ofHours(2));
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).as("cut to a's cap").isEqualTo(Duration.ofSeconds(5));
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).as("read again at the sync, it changes nothing")
			.isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void aFloodOfAnnouncementsKeepsOneTaskWaitingOnTheStoresThread() {
		InMemoryFleetStore.Member c = this.store.join("c");
		for (int i = 1; i <= 1_000; i++) {
			c.extendCooldown("default", Duration.ofMillis(i), Duration.ofHours(2));
			c.extendCooldown("unknown", Duration.ofMillis(i), Duration.ofHours(2));
		}
		assertThat(this.b.member.runTasks()).as("2,000 announcements, one task learning them").isEqualTo(2_001);
		assertThat(this.b.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aFleetInstantBeyondTheCapClosesTheGateOnceForTheCapAndALaterGenuineOneStillCloses() {
		this.store.join("c").extendCooldown("default", Duration.ofHours(1), Duration.ofHours(2));
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(5));
		this.a.gate.reset();
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).as("read again, it changes nothing").isZero();
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(1).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).as("the key holds the hour still").isZero();
	}

	@Test
	void aSyncBeforeAttachLearnsNothingSoAttachStillClosesTheGateForAFleetInstantBeyondTheCap() {
		this.store.join("c").extendCooldown("default", Duration.ofHours(1), Duration.ofHours(2));
		InMemoryFleetStore.Member member = this.store.join("late");
		ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, this.ticker);
		SharedCooldown cooldown = SharedCooldown.builder(member)
			.provider("default", Duration.ofSeconds(5), Duration.ofSeconds(10))
			.ticker(this.ticker)
			.build();
		// the store's thread syncs once between build() and attach(): no gate to close yet
		member.flush();
		cooldown.attach((name) -> Optional.of(gate.fleet()));
		assertThat(cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(5));
	}

	/**
	 * The fake-clock recipe with a fleet on (issue 31): the application's clock is advanced by hand over a wait while
	 * the store's clock stands still, as Redis's real clock does over a test's instant sleeps. The instance must not
	 * read back the cooldown it pushed itself, converted against the advanced clock, as a new one.
	 */
	@Test
	void aCooldownAnInstancePushedItselfDoesNotCloseItsGateAgainWhenItsOwnClockMovedOnAndTheStoresDidNot() {
		AtomicLong storeNanos = new AtomicLong(5_000_000_000L);
		InMemoryFleetStore realStore = new InMemoryFleetStore(storeNanos::get);
		InMemoryFleetStore.Member member = realStore.join("orders");
		ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, this.ticker);
		SharedCooldown cooldown = SharedCooldown.builder(member)
			.provider("default", Duration.ofSeconds(5), Duration.ofSeconds(10))
			.ticker(this.ticker)
			.build();
		cooldown.attach((name) -> Optional.of(gate.fleet()));
		gate.closeUntil(this.nanos.get() + Duration.ofMillis(3375).toNanos());
		cooldown.publish();
		member.runTasks();
		// the test's sleeper waits the 3.375 s out on the application's clock only
		this.nanos.addAndGet(Duration.ofMillis(3375).toNanos());
		storeNanos.addAndGet(Duration.ofMillis(10).toNanos());
		assertThat(cooldown.remaining("default")).isZero();
		member.flush();
		member.flush();
		assertThat(cooldown.remaining("default")).as("the instance's own cooldown, read back from the store").isZero();
	}

	@Test
	void afterTheFleetsCooldownOneInstanceProbesTheOtherFollowsAndAnAdmittedProbeOpensBoth() {
		this.a.gate.closeUntil(this.nanos.get() + Duration.ofMillis(300).toNanos());
		this.a.cooldown.publish();
		this.a.member.runTasks();
		this.b.member.flush();
		this.nanos.addAndGet(Duration.ofMillis(400).toNanos());
		assertThat(this.b.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.b.member.runTasks();
		assertThat(this.b.admit()).isEqualTo(ProviderGate.Admission.PROBE);
		assertThat(this.a.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.a.member.runTasks();
		assertThat(this.a.admit()).as("a follows b's probe").isInstanceOf(ProviderGate.Admission.Hold.class);
		assertThat(this.a.gate.probing()).isTrue();
		this.b.gate.probeAnswered(true);
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.flush();
		assertThat(this.a.admit()).isEqualTo(ProviderGate.Admission.GO);
	}

	/** One instance: its link, its gate for provider 'default' and its cooldown. */
	private final class Instance {

		final InMemoryFleetStore.Member member;

		final ProviderGate gate;

		final SharedCooldown cooldown;

		Instance(String id) {
			Ticker clock = SharedCooldownTests.this.ticker;
			this.member = SharedCooldownTests.this.store.join(id);
			this.gate = new ProviderGate("default", PacingSettings.DEFAULTS, clock);
			this.cooldown = SharedCooldown.builder(this.member)
				.provider("default", Duration.ofSeconds(5), Duration.ofSeconds(10))
				.ticker(clock)
				.build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
			this.member.flush();
		}

		ProviderGate.Admission admit() {
			long now = SharedCooldownTests.this.nanos.get();
			return this.gate.admit(false, now, now + Duration.ofSeconds(30).toNanos(), null,
					Duration.ofSeconds(10).toNanos());
		}

	}

}
