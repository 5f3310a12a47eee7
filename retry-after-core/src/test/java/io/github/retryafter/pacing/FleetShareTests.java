package io.github.retryafter.pacing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * A gate as one of a fleet's instances (issue 17): at a share of {@code 1/N} of its provider, N gates together send
 * what one gate would, and a gate whose fleet probes for it holds its requests until the fleet's probe is answered.
 */
class FleetShareTests {

	private static final long S = 1_000_000_000L;

	private static final long FAR = 1000 * S;

	private final AtomicLong now = new AtomicLong();

	private ProviderGate gate(double share) {
		ProviderGate gate = new ProviderGate("p", PacingSettings.DEFAULTS, this.now::get);
		gate.fleet().share(share);
		return gate;
	}

	/** Asks the gate for {@code count} retries at {@code at}, each keeping its slot, and counts those sent by then. */
	private static int sentWithin(ProviderGate gate, int count, long at, long by) {
		int sent = 0;
		List<Admission.Hold> held = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Admission admission = gate.admit(false, at, FAR, null);
			if (admission == Admission.GO) {
				sent++;
			}
			else if (admission instanceof Admission.Hold hold) {
				held.add(hold);
			}
		}
		for (Admission.Hold hold : held) {
			if (hold.slotNanos() - by <= 0) {
				sent++;
			}
		}
		return sent;
	}

	@Test
	void fourGatesAtAQuarterSendTogetherWhatOneGateSends() {
		ProviderGate alone = gate(1);
		alone.onThrottle(0, 0);
		int oneGate = sentWithin(alone, 2000, 0, S);
		int fleet = 0;
		for (int i = 0; i < 4; i++) {
			ProviderGate quarter = gate(0.25);
			quarter.onThrottle(0, 0);
			assertThat(quarter.rate().getAsDouble()).isEqualTo(alone.rate().getAsDouble() / 4);
			fleet += sentWithin(quarter, 500, 0, S);
		}
		// the first throttle turns the rate on at 0.7 x 1000/s: 700 in the first second and the burst, fleet or not
		assertThat(oneGate).isBetween(700, 711);
		assertThat(fleet).isBetween(oneGate - 4, oneGate + 4);
	}

	@Test
	void aSmallShareKeepsABurstOfOneAndLetsGoAtItsShareOfTheMaximum() {
		ProviderGate sixteenth = gate(1.0 / 16);
		sixteenth.onThrottle(0, 0);
		assertThat(sixteenth.rate().getAsDouble()).isEqualTo(700.0 / 16);
		assertThat(sixteenth.admit(false, 0, FAR, null)).isEqualTo(Admission.GO);
		assertThat(sixteenth.admit(false, 0, FAR, null)).isInstanceOf(Admission.Hold.class);
		assertThatIllegalArgumentException().isThrownBy(() -> sixteenth.fleet().share(0)).withMessageContaining("(0, 1]");
		assertThatIllegalArgumentException().isThrownBy(() -> sixteenth.fleet().share(1.5));
	}

	@Test
	void aGateWhoseFleetProbesHoldsItsRequestsUntilTheFleetsProbeIsAnswered() {
		ProviderGate gate = gate(0.5);
		gate.closeUntil(2 * S);
		assertThat(gate.fleet().followProbe(12 * S)).isTrue();
		this.now.set(2 * S);
		Admission first = gate.admit(false, 2 * S, FAR, null);
		assertThat(first).isInstanceOf(Admission.Hold.class);
		assertThat(((Admission.Hold) first).reason()).isEqualTo(GateHold.COOLDOWN);
		assertThat(gate.probing()).isTrue();
		gate.fleet().fleetProbeAnswered();
		assertThat(gate.probePending()).isFalse();
		assertThat(gate.admit(false, 2 * S, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void aFleetProbeTheProviderAdmittedOpensTheFollowerBeforeItsCooldownEndsUnlessItWasRefusedMeanwhile() {
		ProviderGate follower = gate(0.5);
		follower.closeUntil(5 * S);
		assertThat(follower.fleet().followProbe(12 * S)).isTrue();
		this.now.set(2 * S);
		follower.fleet().fleetProbeAdmitted();
		assertThat(follower.cooldownRemaining()).isZero();
		assertThat(follower.admit(false, 2 * S, FAR, null)).isEqualTo(Admission.GO);
		ProviderGate refused = gate(0.5);
		refused.closeUntil(5 * S);
		assertThat(refused.fleet().followProbe(12 * S)).isTrue();
		// a refusal reaches this gate while the fleet's probe is out: the probe's admission opens nothing
		refused.closeUntil(6 * S);
		refused.fleet().fleetProbeAdmitted();
		assertThat(refused.cooldownUntilNanos()).isEqualTo(6 * S);
		assertThat(refused.admit(false, 2 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
	}

	@Test
	void aGateWhoseFleetsProbeNeverAnswersProbesForItselfOnceTheLeaseHasPassed() {
		ProviderGate gate = gate(0.5);
		gate.closeUntil(2 * S);
		gate.fleet().followProbe(3 * S);
		this.now.set(2 * S);
		assertThat(gate.admit(false, 2 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
		this.now.set(3 * S);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.PROBE);
		// the fleet's claim going away now says nothing of this gate's own probe
		gate.fleet().fleetProbeAnswered();
		assertThat(gate.probing()).isTrue();
		assertThat(gate.admit(false, 3 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
		gate.probeAnswered(true);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void aGateThatSentItsOwnProbeDoesNotFollowTheFleetsAndAWithdrawnProbeIsStillToCome() {
		ProviderGate gate = gate(1);
		gate.closeUntil(S);
		this.now.set(S);
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.fleet().followProbe(10 * S)).isFalse();
		gate.probeWithdrawn();
		assertThat(gate.probePending()).isTrue();
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.admit(false, S, FAR, null)).isInstanceOf(Admission.Hold.class);
	}

	@Test
	void aShareThatDoublesWhileABacklogHoldsDrainsTheRestTwiceAsFastInTheOrderItBooked() {
		Drain steady = drain(0.25, 350, FAR, Long.MAX_VALUE, 0.25);
		Drain doubled = drain(0.25, 350, FAR, S / 2, 0.5);
		// 175/s at a quarter, a burst of 3: the last of 350 goes at about (350 - 3) / 175 s
		assertThat(steady.last()).isBetween(1_970_000_000L, 1_990_000_000L);
		// at 0.5 s the share doubles: what was ahead (1.48 s) takes half as long
		assertThat(doubled.last()).isBetween(1_220_000_000L, 1_250_000_000L);
		assertThat(doubled.sentBetween(0, S / 2)).isEqualTo(steady.sentBetween(0, S / 2));
		assertThat(doubled.sentBetween(S, S + S / 10)).as("350/s once the share doubled").isBetween(34, 36);
		// in the order the backlog booked its slots, but for holders within 100 ms of their slot, which do not ask again
		assertThat(doubled.mostOvertaken()).isLessThanOrEqualTo(50_000_000L);
		assertThat(steady.mostOvertaken()).isZero();
		assertThat(doubled.refused()).isZero();
		// a holder asks again half-way while its slot is more than 100 ms away: 2 s ahead, 7 asks in all (the booking,
		// 5 half-way, the slot), not one per 100 ms
		assertThat(steady.mostAsks()).isEqualTo(7);
	}

	@Test
	void aShareThatShrinksMovesTheSlotsLaterAndRefusesAHolderItsSlotWouldTakePastItsLastUsefulStart() {
		// 350/s at a half, 87.5/s at an eighth: the slots ahead, all within 0.27 s, now reach 1.1 s
		Drain shrunk = drain(0.5, 100, FAR, 0, 0.125);
		long[] after = Arrays.stream(shrunk.sent()).filter((at) -> at > 0).sorted().toArray();
		assertThat(after).hasSize(95);
		for (int i = 1; i < after.length; i++) {
			assertThat(after[i] - after[i - 1]).as("spaced at 87.5/s once the share shrank")
				.isGreaterThanOrEqualTo((long) (S / 87.5) - 1);
		}
		assertThat(shrunk.last()).isBetween(1_090_000_000L, 1_130_000_000L);
		Drain refused = drain(0.5, 100, S / 2, 0, 0.125);
		assertThat(refused.refused()).isGreaterThan(50);
		assertThat(refused.last()).isLessThanOrEqualTo(S / 2);
		long[] sent = refused.sent();
		for (int i = refused.firstRefused(); i < sent.length; i++) {
			assertThat(sent[i]).as("the holders refused are the last in line").isEqualTo(-1);
		}
	}

	@Test
	void aGatePacesAtTheRateItsFleetGivesItWithinItsFloorAndCeilingAndOnlyWhileTheRateIsOn() {
		ProviderGate gate = gate(0.25);
		gate.fleet().paceAt(100, 0);
		assertThat(gate.rate()).as("off: nothing to pace").isEmpty();
		gate.onThrottle(0, 0);
		assertThat(gate.rate()).hasValue(175.0);
		gate.fleet().paceAt(180, 0);
		assertThat(gate.rate()).as("less than 5% away").hasValue(175.0);
		gate.fleet().paceAt(50, 0);
		assertThat(gate.rate().getAsDouble()).isCloseTo(50.0, within(1e-9));
		gate.fleet().paceAt(10_000, 0);
		assertThat(gate.rate().getAsDouble()).as("a quarter of the 1,000/s ceiling").isCloseTo(250.0, within(1e-9));
		gate.fleet().paceAt(0.01, 0);
		assertThat(gate.rate().getAsDouble()).as("a quarter of the 1/s floor").isCloseTo(0.25, within(1e-9));
		gate.fleet().paceAt(Double.NaN, 0);
		gate.fleet().paceAt(Double.POSITIVE_INFINITY, 0);
		assertThat(gate.rate().getAsDouble()).isCloseTo(0.25, within(1e-9));
	}

	/**
	 * Books {@code count} retries at 0 after the first throttle of a gate at {@code from} (each with the last useful
	 * start {@code latest}), then lets each holder ask again at the end of each hold until it goes; the gate's share
	 * becomes {@code share} at {@code changeAt}.
	 */
	private Drain drain(double from, int count, long latest, long changeAt, double share) {
		this.now.set(0);
		ProviderGate gate = gate(from);
		gate.onThrottle(0, 0);
		long[] sent = new long[count];
		int[] asks = new int[count];
		record Waiting(int index, Admission.Hold hold) {
		}
		PriorityQueue<Waiting> waiting = new PriorityQueue<>(
				Comparator.comparingLong((Waiting w) -> w.hold().untilNanos()).thenComparingInt(Waiting::index));
		for (int i = 0; i < count; i++) {
			Admission admission = gate.admit(false, 0, latest, null);
			asks[i]++;
			if (admission instanceof Admission.Hold hold) {
				waiting.add(new Waiting(i, hold));
			}
			else {
				sent[i] = (admission == Admission.GO) ? 0 : -1;
			}
		}
		boolean changed = false;
		while (!waiting.isEmpty()) {
			Waiting next = waiting.poll();
			long at = next.hold().untilNanos();
			if (!changed && changeAt - at <= 0) {
				this.now.set(changeAt);
				gate.fleet().share(share);
				changed = true;
			}
			this.now.set(at);
			Admission admission = gate.admit(false, at, latest, next.hold());
			asks[next.index()]++;
			if (admission instanceof Admission.Hold hold) {
				assertThat(hold.untilNanos()).as("a hold ends after now").isGreaterThan(at);
				waiting.add(new Waiting(next.index(), hold));
			}
			else {
				sent[next.index()] = (admission == Admission.GO) ? at : -1;
			}
		}
		return new Drain(sent, asks);
	}

	/** When each of a backlog's holders was sent ({@code -1}: refused), and how often each asked. */
	private record Drain(long[] sent, int[] asks) {

		long last() {
			long last = 0;
			for (long at : this.sent) {
				last = Math.max(last, at);
			}
			return last;
		}

		int sentBetween(long from, long to) {
			int count = 0;
			for (long at : this.sent) {
				count += (at >= from && at < to) ? 1 : 0;
			}
			return count;
		}

		int refused() {
			int count = 0;
			for (long at : this.sent) {
				count += (at == -1) ? 1 : 0;
			}
			return count;
		}

		int firstRefused() {
			for (int i = 0; i < this.sent.length; i++) {
				if (this.sent[i] == -1) {
					return i;
				}
			}
			return this.sent.length;
		}

		/** The longest any holder went after one that booked its slot after it. */
		long mostOvertaken() {
			long most = 0;
			long latest = Long.MIN_VALUE;
			for (long at : this.sent) {
				latest = Math.max(latest, at);
				most = Math.max(most, latest - at);
			}
			return most;
		}

		int mostAsks() {
			int most = 0;
			for (int count : this.asks) {
				most = Math.max(most, count);
			}
			return most;
		}

	}

}
