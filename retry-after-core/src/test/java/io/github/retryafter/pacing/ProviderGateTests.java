package io.github.retryafter.pacing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.retryafter.pacing.ProviderGate.Admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ProviderGateTests {

	private static final long S = 1_000_000_000L;

	private static final long FAR = 1000 * S;

	private final AtomicLong now = new AtomicLong();

	private ProviderGate gate(PacingSettings settings) {
		return new ProviderGate("p", settings, this.now::get);
	}

	private ProviderGate gate() {
		return gate(PacingSettings.DEFAULTS);
	}

	@Test
	void theGateOpensAtTheLatestInstantAnyHintNamedAndAShorterHintNeverShortensIt() {
		ProviderGate gate = gate();
		gate.closeUntil(5 * S);
		gate.closeUntil(3 * S);
		this.now.set(S);
		assertThat(gate.admit(true, S, FAR, null)).isEqualTo(new Admission.Hold(5 * S, GateHold.COOLDOWN, -1));
		gate.closeUntil(7 * S);
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(new Admission.Hold(7 * S, GateHold.COOLDOWN, -1));
		assertThat(gate.cooldownRemaining()).hasSeconds(6);
		this.now.set(7 * S);
		// issue 11: the first request after a cooldown goes as its probe
		assertThat(gate.admit(true, 7 * S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.cooldownRemaining()).isZero();
	}

	@Test
	void aHugeBurstAtATinyRateSaturatesItsToleranceInsteadOfWrappingIntoTheFuture() {
		ProviderGate gate = gate(PacingSettings.builder().minRate(1e-300).maxRate(1e-300).burst(Integer.MAX_VALUE).build());
		gate.onThrottle(0, 0);
		assertThat(gate.admit(false, 0, FAR, null)).isEqualTo(Admission.GO);
		assertThat(gate.admit(false, 0, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void aTickerThatWrapsPastTheEndOfLongKeepsTheCooldownAndTheSlotsInOrder() {
		long nearEnd = Long.MAX_VALUE - S;
		this.now.set(nearEnd);
		ProviderGate gate = gate(PacingSettings.builder().maxRate(1).minRate(0.5).burst(1).freshShare(0).build());
		gate.closeUntil(nearEnd + 2 * S);
		assertThat(gate.admit(false, nearEnd, nearEnd + FAR, null))
			.isEqualTo(new Admission.Hold(nearEnd + 2 * S, GateHold.COOLDOWN, -1));
		gate.onThrottle(nearEnd, nearEnd);
		long opened = nearEnd + 2 * S;
		this.now.set(opened);
		assertThat(gate.admit(false, opened, opened + FAR, null)).isEqualTo(Admission.PROBE);
		gate.probeAnswered();
		assertThat(gate.admit(false, opened, opened + FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos() - opened).isEqualTo((long) Math.ceil(S / 0.7)));
	}

	@Test
	void aCooldownTheDeadlineCannotAccommodateIsRefusedAndFailFastRefusesAnyCooldown() {
		ProviderGate hold = gate();
		hold.closeUntil(5 * S);
		assertThat(hold.admit(true, 0, 5 * S - 1, null)).isInstanceOfSatisfying(Admission.Refuse.class,
				(refuse) -> assertThat(refuse.reason()).contains("cooling down for another 5.000 s"));
		assertThat(hold.admit(true, 0, 5 * S, null)).isInstanceOf(Admission.Hold.class);
		ProviderGate failFast = gate(PacingSettings.builder().mode(PacingMode.FAIL_FAST).build());
		failFast.closeUntil(S);
		assertThat(failFast.admit(false, 0, FAR, null)).isInstanceOfSatisfying(Admission.Refuse.class,
				(refuse) -> assertThat(refuse.reason()).contains("fail-fast"));
	}

	@Test
	void theRateIsOffUntilTheFirstThrottleWhichStartsItAtTheDecreaseTimesTheMaximum() {
		ProviderGate gate = gate();
		for (int i = 0; i < 300; i++) {
			assertThat(gate.admit(true, 0, FAR, null)).isEqualTo(Admission.GO);
		}
		assertThat(gate.rate()).isEmpty();
		gate.onThrottle(0, 10_000_000);
		assertThat(gate.rate()).hasValueCloseTo(700.0, within(1e-9));
	}

	@Test
	void onlyAThrottleOfARequestSentAfterTheLastDecreaseLowersTheRateAgain() {
		ProviderGate gate = gate();
		gate.onThrottle(0, 10_000_000);
		gate.onSuccess(11_000_000);
		gate.onThrottle(5_000_000, 12_000_000);
		double grown = gate.rate().getAsDouble();
		assertThat(grown).as("a millisecond of cubic growth").isCloseTo(700.0, within(0.1));
		gate.onThrottle(11_000_000, 20_000_000);
		assertThat(gate.rate()).hasValueCloseTo(grown * 0.7, within(1e-9));
	}

	@Test
	void aProviderThatAdmitsNothingIsDownNotRateLimitingSoItsThrottlesDoNotCompound() {
		ProviderGate gate = gate();
		gate.onThrottle(0, 10_000_000);
		gate.onThrottle(S, S + 10_000_000);
		gate.onThrottle(2 * S, 2 * S + 10_000_000);
		assertThat(gate.rate()).hasValueCloseTo(700.0, within(1e-9));
		gate.onSuccess(2 * S + 20_000_000);
		double grown = gate.rate().getAsDouble();
		gate.onThrottle(2 * S + 30_000_000, 2 * S + 40_000_000);
		assertThat(gate.rate()).hasValueCloseTo(grown * 0.7, within(1e-9));
	}

	@Test
	void theRateNeverDropsBelowItsMinimum() {
		ProviderGate gate = gate(PacingSettings.builder().minRate(5).maxRate(6).build());
		gate.onThrottle(0, 0);
		assertThat(gate.rate()).hasValueCloseTo(5.0, within(1e-9));
	}

	@Test
	void aBacklogDrainsAtTheRetryShareOfTheRateAfterABurst() {
		ProviderGate gate = engagedAt(70.0, PacingSettings.DEFAULTS);
		long start = this.now.get();
		List<Long> slots = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			Admission admission = gate.admit(false, start, FAR, null);
			slots.add((admission instanceof Admission.Hold hold) ? hold.untilNanos() : start);
		}
		assertThat(slots.subList(0, 10)).containsOnly(start);
		long interval = interval(gate.rate().getAsDouble() * 0.9);
		assertThat(slots.get(10)).isEqualTo(start + interval);
		assertThat(slots.get(99)).isEqualTo(start + 90 * interval);
		assertThat(slots).isSorted();
	}

	@Test
	void freshRequestsKeepTheirShareBehindABacklogOfRetries() {
		ProviderGate gate = engagedAt(70.0, PacingSettings.DEFAULTS);
		long start = this.now.get();
		long freshInterval = interval(gate.rate().getAsDouble() * 0.1);
		for (int i = 0; i < 1000; i++) {
			gate.admit(false, start, FAR, null);
		}
		for (int i = 0; i < 10; i++) {
			assertThat(gate.admit(true, start, FAR, null)).as("fresh burst").isEqualTo(Admission.GO);
		}
		assertThat(gate.admit(true, start, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos() - start).isEqualTo(freshInterval));
		assertThat(gate.admit(false, start, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos() - start).isGreaterThan(10 * S));
	}

	@Test
	void aHeldSlotIsHonouredWhenItComesAndASlotPastTheLastUsefulStartIsRefusedWithoutBeingTaken() {
		ProviderGate gate = engagedAt(7.0, PacingSettings.builder().burst(1).freshShare(0).build());
		long start = this.now.get();
		long interval = interval(gate.rate().getAsDouble());
		assertThat(gate.admit(false, start, FAR, null)).isEqualTo(Admission.GO);
		Admission.Hold held = (Admission.Hold) gate.admit(false, start, FAR, null);
		assertThat(held.untilNanos() - start).isEqualTo(interval);
		assertThat(gate.admit(false, start + 50_000_000L, FAR, held)).isEqualTo(held);
		assertThat(gate.admit(false, held.untilNanos(), FAR, held)).isEqualTo(Admission.GO);
		assertThat(gate.admit(false, held.untilNanos(), held.untilNanos() + 50_000_000L, null))
			.isInstanceOf(Admission.Refuse.class);
		assertThat(gate.admit(false, held.untilNanos(), FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos()).isEqualTo(held.untilNanos() + interval));
	}

	@Test
	void aThrottleVoidsHeldSlotsAndRestartsTheLanesAtTheEndOfTheCooldown() {
		ProviderGate gate = engagedAt(7.0, PacingSettings.builder().burst(1).freshShare(0).build());
		long start = this.now.get();
		gate.admit(false, start, FAR, null);
		Admission.Hold held = (Admission.Hold) gate.admit(false, start, FAR, null);
		gate.closeUntil(start + 2 * S);
		gate.onSuccess(start + 1);
		gate.onThrottle(start + 1, start + 10_000_000L);
		assertThat(gate.rate()).hasValueCloseTo(4.9, within(1e-6));
		assertThat(gate.admit(false, held.untilNanos(), FAR, held)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.reason()).isEqualTo(GateHold.COOLDOWN));
		this.now.set(start + 2 * S);
		assertThat(gate.admit(false, start + 2 * S, FAR, held)).isEqualTo(Admission.PROBE);
		gate.probeAnswered();
		assertThat(gate.admit(false, start + 2 * S, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos() - (start + 2 * S)).isEqualTo(interval(gate.rate().getAsDouble())));
	}

	@Test
	void successesGrowTheRateAlongTheCubicCurveAndPacingLetsGoAtTheMaximum() {
		ProviderGate gate = gate(PacingSettings.builder().maxRate(200).build());
		gate.onThrottle(0, 0);
		gate.onSuccess(0);
		gate.onThrottle(1, 1);
		assertThat(gate.rate()).as("0.7 × 0.7 × 200").hasValueCloseTo(98.0, within(1e-6));
		double k = Math.cbrt(140 * 0.3 / 0.4);
		gate.onSuccess((long) (k * S));
		assertThat(gate.rate()).as("back at the rate before the decrease").hasValueCloseTo(140.0, within(0.01));
		gate.onSuccess((long) ((k + 1) * S));
		assertThat(gate.rate()).as("140.4 is within 1% of 140: not worth a write").hasValueCloseTo(140.0, within(0.01));
		gate.onSuccess((long) ((k + 2) * S));
		assertThat(gate.rate()).hasValueCloseTo(143.2, within(0.01));
		gate.onSuccess((long) ((k + 6) * S));
		assertThat(gate.rate()).as("0.4 × 6³ + 140 = 226.4 > 200: let go").isEmpty();
		assertThat(gate.admit(false, (long) ((k + 6) * S), FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void queuedCountsRequestsWaitingAtTheGate() {
		ProviderGate gate = gate();
		gate.enqueue();
		gate.enqueue();
		gate.dequeue();
		assertThat(gate.queued()).isEqualTo(1);
	}

	private static long interval(double rate) {
		return (long) Math.ceil(1e9 / rate);
	}

	/** A gate whose rate is on at {@code rate}: a maximum of rate / decrease, then one throttle. */
	private ProviderGate engagedAt(double rate, PacingSettings settings) {
		ProviderGate gate = gate(settings.toBuilder().maxRate(rate / settings.decreaseFactor()).build());
		gate.onThrottle(0, 0);
		assertThat(gate.rate()).hasValueCloseTo(rate, within(1e-6));
		return gate;
	}

}
