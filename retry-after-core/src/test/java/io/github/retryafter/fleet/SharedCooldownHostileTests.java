package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared cooldown against a lying message or a store clock that steps back, deterministically: instances on one
 * in-memory store whose clock is its own (it may run ahead of the instances' and step back, as a Redis failover's
 * does), the instances on one fake ticker, the stores' threads and flushes run by hand. Whatever a message says, a
 * genuine fleet cooldown after it still closes every instance's gate, and its probe is still the fleet's one.
 */
class SharedCooldownHostileTests {

	/** A "store now" 10^17 µs (about 3,170 years) ahead of the store's clock, as an audit's hostile message had. */
	private static final long AHEAD_MICROS = 100_000_000_000_000_000L;

	/** An 18-digit instant: no clock ever passes it. */
	private static final long NEVER_MICROS = 999_999_999_999_999_999L;

	private static final Duration CAP = Duration.ofSeconds(5);

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final AtomicLong storeNanos = new AtomicLong(7_000_000_000L);

	private final InMemoryFleetStore store = new InMemoryFleetStore(this.storeNanos::get);

	private final Instance a = new Instance("a");

	private final Instance b = new Instance("b");

	@Test
	void aGenuineCooldownAfterAHostileAnnouncementStillClosesEveryGate() {
		this.store.publish("default", storeMicros() + AHEAD_MICROS, NEVER_MICROS);
		this.a.member.runTasks();
		this.b.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).as("closed for the cap, as documented").isEqualTo(CAP);
		advance(Duration.ofSeconds(6));
		assertThat(this.a.cooldown.remaining("default")).isZero();
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(2).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).as("announced").isEqualTo(Duration.ofSeconds(2));
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).as("read again, it changes nothing")
			.isEqualTo(Duration.ofSeconds(2));
		Instance late = new Instance("late");
		assertThat(late.cooldown.remaining("default")).as("as an instance that never heard the message")
			.isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void aGenuineCooldownAfterAHostileAnnouncementIsStillReadAtTheNextSync() {
		this.store.publish("default", storeMicros() + AHEAD_MICROS, NEVER_MICROS);
		this.a.member.runTasks();
		advance(Duration.ofSeconds(6));
		// another instance pushes; a syncs before it runs the announcement: the read alone
		this.store.join("c").extendCooldown("default", Duration.ofMillis(1500), CAP);
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void aHostileInstantNeverBecomesTheFleetsProbeClaimSoAGenuineCooldownAfterItStillHasOneProbe() {
		this.store.publish("default", storeMicros() + AHEAD_MICROS, NEVER_MICROS);
		this.a.member.runTasks();
		this.b.member.runTasks();
		advance(Duration.ofSeconds(6));
		// after the message's cap, each instance probes for itself: no fleet cooldown stands behind it
		assertThat(this.a.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.a.member.runTasks();
		assertThat(this.a.admit()).isEqualTo(ProviderGate.Admission.PROBE);
		this.a.gate.probeAnswered(true);
		this.a.cooldown.publish();
		this.a.member.runTasks();
		assertThat(this.a.member.readProbes(List.of("default")).orElseThrow())
			.as("the hostile instant holds no claim in the store")
			.containsExactly(FleetStore.ProbeState.NONE);
		// a genuine cooldown: one probe for the fleet, the other instance follows it
		genuineCooldownOfBHasOneProbeThatAFollows();
	}

	@Test
	void aStoreClockThatStepsBackStillSharesTheNextGenuineCooldownAtOnce() {
		// the store's clock runs a minute ahead of the instances' while a cooldown is shared and answered...
		this.storeNanos.addAndGet(Duration.ofMinutes(1).toNanos());
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(3).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(3));
		advance(Duration.ofMillis(3100));
		assertThat(this.a.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.a.member.runTasks();
		assertThat(this.a.admit()).isEqualTo(ProviderGate.Admission.PROBE);
		this.a.gate.probeAnswered(true);
		this.a.cooldown.publish();
		this.a.member.runTasks();
		assertThat(this.b.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.b.member.runTasks();
		assertThat(this.b.admit()).as("the fleet's probe was admitted").isEqualTo(ProviderGate.Admission.GO);
		// ...then steps back by that minute (a failover to a replica whose clock is right)
		this.storeNanos.addAndGet(-Duration.ofMinutes(1).toNanos());
		advance(Duration.ofSeconds(1));
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(2).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).as("announced").isEqualTo(Duration.ofSeconds(2));
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).as("read again, it changes nothing")
			.isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void aStoreClockThatStepsBackStillHasOneProbeForTheNextGenuineCooldown() {
		// a cooldown shared and its probe admitted while the store's clock runs a minute ahead: the admitted claim, for
		// an instant a minute ahead, outlives the step back by that minute
		this.storeNanos.addAndGet(Duration.ofMinutes(1).toNanos());
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(3).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.runTasks();
		advance(Duration.ofMillis(3100));
		assertThat(this.a.admit()).isInstanceOf(ProviderGate.Admission.Hold.class);
		this.a.member.runTasks();
		assertThat(this.a.admit()).isEqualTo(ProviderGate.Admission.PROBE);
		this.a.gate.probeAnswered(true);
		this.a.cooldown.publish();
		this.a.member.runTasks();
		this.b.member.runTasks();
		this.b.member.flush();
		this.storeNanos.addAndGet(-Duration.ofMinutes(1).toNanos());
		advance(Duration.ofSeconds(1));
		// a genuine cooldown after the step back: one probe for the fleet, the other instance follows it
		genuineCooldownOfBHasOneProbeThatAFollows();
	}

	@Test
	void aStoreClockThatStepsBackWhileItsKeyHoldsAnInstantFromBeforeStillSharesTheNextCooldownAtTheNextSync() {
		this.storeNanos.addAndGet(Duration.ofMinutes(1).toNanos());
		InMemoryFleetStore.Member c = this.store.join("c");
		c.extendCooldown("default", Duration.ofSeconds(3), CAP);
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(3));
		advance(Duration.ofMillis(3100));
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).isZero();
		this.storeNanos.addAndGet(-Duration.ofMinutes(1).toNanos());
		advance(Duration.ofSeconds(1));
		c.extendCooldown("default", Duration.ofSeconds(2), CAP);
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default"))
			.as("the key still held the instant written a minute ahead: the store brings it down to its now plus the cap")
			.isEqualTo(CAP);
	}

	@Test
	void aCooldownReadAgainAfterTheStoresClockSteppedBackHoldsEveryGateUntilItOnTheStoresClock() {
		InMemoryFleetStore.Member c = this.store.join("c");
		c.extendCooldown("default", Duration.ofSeconds(3), CAP);
		this.a.member.flush();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(3));
		advance(Duration.ofSeconds(2));
		this.storeNanos.addAndGet(-Duration.ofSeconds(2).toNanos());
		this.a.member.flush();
		Instance late = new Instance("late");
		assertThat(late.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(3));
		assertThat(this.a.cooldown.remaining("default")).as("as the instance that reads it for the first time")
			.isEqualTo(Duration.ofSeconds(3));
	}

	private long storeMicros() {
		return this.storeNanos.get() / 1000;
	}

	/** Real time passes: on the instances' ticker and on the store's clock alike. */
	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
		this.storeNanos.addAndGet(duration.toNanos());
	}

	/** One instance: its link, its gate for provider 'default' and its cooldown, capped at {@link #CAP}. */
	private final class Instance {

		final InMemoryFleetStore.Member member;

		final ProviderGate gate;

		final SharedCooldown cooldown;

		Instance(String id) {
			Ticker clock = SharedCooldownHostileTests.this.nanos::get;
			this.member = SharedCooldownHostileTests.this.store.join(id);
			this.gate = new ProviderGate("default", PacingSettings.DEFAULTS, clock);
			this.cooldown = SharedCooldown.builder(this.member)
				.provider("default", CAP, Duration.ofSeconds(10))
				.ticker(clock)
				.build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
			this.member.flush();
		}

		ProviderGate.Admission admit() {
			long now = SharedCooldownHostileTests.this.nanos.get();
			return this.gate.admit(false, now, now + Duration.ofSeconds(30).toNanos(), null,
					Duration.ofSeconds(10).toNanos());
		}

	}

	/** {@code b} closes its gate for 2 s and shares it: {@code a} closes too, {@code b} probes, {@code a} follows. */
	private void genuineCooldownOfBHasOneProbeThatAFollows() {
		this.b.gate.reset();
		this.b.gate.closeUntil(this.nanos.get() + Duration.ofSeconds(2).toNanos());
		this.b.cooldown.publish();
		this.b.member.runTasks();
		this.a.member.runTasks();
		assertThat(this.a.cooldown.remaining("default")).isEqualTo(Duration.ofSeconds(2));
		advance(Duration.ofMillis(2100));
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

}
