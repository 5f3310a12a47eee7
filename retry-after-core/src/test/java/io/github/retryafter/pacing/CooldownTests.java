package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cooldown and its probe on their own, with the rate always letting a request go.
 */
class CooldownTests {

	private static final long S = 1_000_000_000L;

	private static final long MS = 1_000_000L;

	private static final long FAR = 1000 * S;

	private final AtomicLong now = new AtomicLong();

	private final List<Long> lanesOpened = new ArrayList<>();

	private Cooldown cooldown(PacingMode mode) {
		PacingSettings settings = PacingSettings.builder().mode(mode).maxCooldown(Duration.ofSeconds(30)).build();
		return new Cooldown(Scope.provider("p"), settings, this.now::get, new Object(), 0, this.lanesOpened::add,
				(fresh, nowNanos, latestStartNanos, held) -> Admission.GO, null);
	}

	@Test
	void aCooldownIsCappedAndNeverShortened() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		cooldown.closeUntil(100 * S);
		assertThat(cooldown.until()).isEqualTo(30 * S);
		cooldown.closeUntil(5 * S);
		assertThat(cooldown.until()).isEqualTo(30 * S);
		assertThat(cooldown.probePending()).isTrue();
	}

	@Test
	void anInstantThatHasPassedChangesNothing() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		this.now.set(S);
		cooldown.closeUntil(S);
		assertThat(cooldown.until()).isZero();
		assertThat(cooldown.probePending()).isFalse();
		assertThat(cooldown.admit(true, S, FAR, null, S)).as("the rate decides").isNull();
	}

	@Test
	void aFailFastGateRefusesWhileClosed() {
		Cooldown cooldown = cooldown(PacingMode.FAIL_FAST);
		cooldown.closeUntil(5 * S);
		assertThat(cooldown.admit(true, 0, FAR, null, S)).isInstanceOfSatisfying(Admission.Refuse.class,
				(refuse) -> assertThat(refuse.reason()).contains("cooling down for another 5").contains("fail-fast"));
	}

	@Test
	void aHoldingGateProbesEarlyAtTheEarliestInstantNamedAndHoldsTheOthersBehindIt() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		cooldown.closeUntil(5 * S);
		cooldown.closeUntil(3 * S);
		assertThat(cooldown.admit(true, 0, FAR, null, S)).isEqualTo(new Admission.Hold(3 * S, GateHold.COOLDOWN, -1));
		this.now.set(3 * S);
		assertThat(cooldown.admit(true, 3 * S, FAR, null, S)).isEqualTo(Admission.PROBE);
		assertThat(this.lanesOpened).as("the lanes start with the early probe").containsExactly(3 * S);
		assertThat(cooldown.admit(true, 3 * S, FAR, null, S))
			.isEqualTo(new Admission.Hold(3 * S + 10 * MS, GateHold.COOLDOWN, -1));
		assertThat(cooldown.probing()).isTrue();
	}

	@Test
	void anEarlyProbeThatSucceedsOpensTheGate() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		cooldown.closeUntil(5 * S);
		cooldown.closeUntil(3 * S);
		this.now.set(3 * S);
		cooldown.admit(true, 3 * S, FAR, null, S);
		cooldown.probeAnswered(true);
		assertThat(cooldown.until()).isEqualTo(3 * S);
		assertThat(cooldown.probePending()).isFalse();
		assertThat(cooldown.admit(true, 3 * S, FAR, null, S)).isNull();
	}

	@Test
	void anEarlyProbeThatFailsLeavesTheNextToTheCooldownsEnd() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		cooldown.closeUntil(5 * S);
		cooldown.closeUntil(3 * S);
		this.now.set(3 * S);
		cooldown.admit(true, 3 * S, FAR, null, S);
		cooldown.probeAnswered(false);
		assertThat(cooldown.admit(true, 3 * S, FAR, null, S)).isEqualTo(new Admission.Hold(5 * S, GateHold.COOLDOWN, -1));
	}

	@Test
	void aFleetsArbiterIsAskedOnceAndItsGrantSendsTheProbe() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		List<FleetGate> asked = new ArrayList<>();
		cooldown.arbiter(asked::add);
		cooldown.closeUntil(S);
		this.now.set(S);
		assertThat(cooldown.admit(true, S, FAR, null, S)).isEqualTo(new Admission.Hold(S + 10 * MS, GateHold.COOLDOWN, -1));
		assertThat(cooldown.admit(true, S, FAR, null, S)).isInstanceOf(Admission.Hold.class);
		assertThat(asked).hasSize(1);
		cooldown.probeGranted();
		assertThat(cooldown.admit(true, S, FAR, null, S)).isEqualTo(Admission.PROBE);
	}

	@Test
	void aGateFollowingTheFleetsProbeOpensWhenTheFleetSaysItWasAdmitted() {
		Cooldown cooldown = cooldown(PacingMode.HOLD);
		cooldown.closeUntil(5 * S);
		assertThat(cooldown.followProbe(6 * S)).isTrue();
		assertThat(cooldown.probing()).isTrue();
		assertThat(cooldown.admit(true, 0, FAR, null, S)).isEqualTo(new Admission.Hold(5 * S, GateHold.COOLDOWN, -1));
		cooldown.fleetProbeAnswered(true);
		assertThat(cooldown.until()).isZero();
		assertThat(cooldown.probePending()).isFalse();
	}

}
