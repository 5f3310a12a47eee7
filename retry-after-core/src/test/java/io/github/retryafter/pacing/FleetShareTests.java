package io.github.retryafter.pacing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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
		gate.share(share);
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
			if (hold.untilNanos() - by <= 0) {
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
		assertThatIllegalArgumentException().isThrownBy(() -> sixteenth.share(0)).withMessageContaining("(0, 1]");
		assertThatIllegalArgumentException().isThrownBy(() -> sixteenth.share(1.5));
	}

	@Test
	void aGateWhoseFleetProbesHoldsItsRequestsUntilTheFleetsProbeIsAnswered() {
		ProviderGate gate = gate(0.5);
		gate.closeUntil(2 * S);
		assertThat(gate.followProbe(12 * S)).isTrue();
		this.now.set(2 * S);
		Admission first = gate.admit(false, 2 * S, FAR, null);
		assertThat(first).isInstanceOf(Admission.Hold.class);
		assertThat(((Admission.Hold) first).reason()).isEqualTo(GateHold.COOLDOWN);
		assertThat(gate.probing()).isTrue();
		gate.fleetProbeAnswered();
		assertThat(gate.probePending()).isFalse();
		assertThat(gate.admit(false, 2 * S, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void aFleetProbeTheProviderAdmittedOpensTheFollowerBeforeItsCooldownEndsUnlessItWasRefusedMeanwhile() {
		ProviderGate follower = gate(0.5);
		follower.closeUntil(5 * S);
		assertThat(follower.followProbe(12 * S)).isTrue();
		this.now.set(2 * S);
		follower.fleetProbeAdmitted();
		assertThat(follower.cooldownRemaining()).isZero();
		assertThat(follower.admit(false, 2 * S, FAR, null)).isEqualTo(Admission.GO);
		ProviderGate refused = gate(0.5);
		refused.closeUntil(5 * S);
		assertThat(refused.followProbe(12 * S)).isTrue();
		// a refusal reaches this gate while the fleet's probe is out: the probe's admission opens nothing
		refused.closeUntil(6 * S);
		refused.fleetProbeAdmitted();
		assertThat(refused.cooldownUntilNanos()).isEqualTo(6 * S);
		assertThat(refused.admit(false, 2 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
	}

	@Test
	void aGateWhoseFleetsProbeNeverAnswersProbesForItselfOnceTheLeaseHasPassed() {
		ProviderGate gate = gate(0.5);
		gate.closeUntil(2 * S);
		gate.followProbe(3 * S);
		this.now.set(2 * S);
		assertThat(gate.admit(false, 2 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
		this.now.set(3 * S);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.PROBE);
		// the fleet's claim going away now says nothing of this gate's own probe
		gate.fleetProbeAnswered();
		assertThat(gate.probing()).isTrue();
		assertThat(gate.admit(false, 3 * S, FAR, null)).isInstanceOf(Admission.Hold.class);
		gate.probeAnswered();
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void aGateThatSentItsOwnProbeDoesNotFollowTheFleetsAndAWithdrawnProbeIsStillToCome() {
		ProviderGate gate = gate(1);
		gate.closeUntil(S);
		this.now.set(S);
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.followProbe(10 * S)).isFalse();
		gate.probeWithdrawn();
		assertThat(gate.probePending()).isTrue();
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.admit(false, S, FAR, null)).isInstanceOf(Admission.Hold.class);
	}

}
