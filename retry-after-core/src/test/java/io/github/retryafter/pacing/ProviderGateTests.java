package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
	void aFleetsGateAsksItsArbiterForTheEarlyProbeAndHoldsUntilItAnswers() {
		ProviderGate gate = gate();
		List<FleetGate> asked = new ArrayList<>();
		// the fleet's arbiter answers later, on another thread: here, when the test says so
		gate.fleet().arbiter(asked::add);
		gate.closeUntil(5 * S);
		gate.closeUntil(3 * S);
		this.now.set(S);
		assertThat(gate.admit(true, S, FAR, null)).isEqualTo(new Admission.Hold(3 * S, GateHold.COOLDOWN, -1));
		this.now.set(3 * S);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.reason()).isEqualTo(GateHold.COOLDOWN));
		assertThat(asked).containsExactly(gate.fleet());
		gate.fleet().probeGranted();
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.cooldownRemaining()).hasSeconds(2);
		// another instance's claim: this gate follows it, and still opens at the fleet's cooldown's end
		ProviderGate follower = gate();
		follower.fleet().arbiter((ignored) -> {
		});
		follower.closeUntil(5 * S);
		assertThat(follower.fleet().followProbe(6 * S)).isTrue();
		follower.fleet().fleetProbeAnswered();
		assertThat(follower.admit(true, 3 * S, FAR, null)).isEqualTo(new Admission.Hold(5 * S, GateHold.COOLDOWN, -1));
	}

	@Test
	void aGateOfItsOwnProbesAtTheEarliestInstantNamedAndItsSuccessOpensTheGateBeforeTheLatest() {
		ProviderGate gate = gate();
		gate.closeUntil(5 * S);
		gate.closeUntil(3 * S);
		this.now.set(S);
		// the cooldown runs to the latest instant; one request may go as the probe from the earliest
		assertThat(gate.admit(true, S, FAR, null)).isEqualTo(new Admission.Hold(3 * S, GateHold.COOLDOWN, -1));
		gate.closeUntil(7 * S);
		assertThat(gate.admit(false, S, FAR, null)).isEqualTo(new Admission.Hold(3 * S, GateHold.COOLDOWN, -1));
		assertThat(gate.cooldownRemaining()).hasSeconds(6);
		// a request that could not start before 3 s could not be helped by the probe either
		assertThat(gate.admit(true, S, 2 * S, null)).isInstanceOf(Admission.Refuse.class);
		this.now.set(3 * S);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.PROBE);
		assertThat(gate.admit(true, 3 * S, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.reason()).isEqualTo(GateHold.COOLDOWN));
		assertThat(gate.cooldownRemaining()).hasSeconds(4);
		this.now.set(3 * S + S / 10);
		gate.probeAnswered(true);
		assertThat(gate.cooldownRemaining()).isZero();
		assertThat(gate.probePending()).isFalse();
		assertThat(gate.admit(true, 3 * S + S / 10, FAR, null)).isEqualTo(Admission.GO);
	}

	@Test
	void anEarlyProbeThatIsRefusedClosesTheGateUntilTheLatestInstantAndTheNextProbeWaitsForItsHint() {
		ProviderGate gate = gate();
		gate.closeUntil(7 * S);
		gate.closeUntil(3 * S);
		this.now.set(3 * S);
		assertThat(gate.admit(false, 3 * S, FAR, null)).isEqualTo(Admission.PROBE);
		// the probe's refusal names 4 s: the cooldown still runs to 7 s, and the next probe may go at 4 s
		gate.closeUntil(4 * S);
		gate.probeAnswered(true);
		assertThat(gate.cooldownRemaining()).hasSeconds(4);
		assertThat(gate.admit(true, 3 * S, FAR, null)).isEqualTo(new Admission.Hold(4 * S, GateHold.COOLDOWN, -1));
		this.now.set(4 * S);
		assertThat(gate.admit(true, 4 * S, FAR, null)).isEqualTo(Admission.PROBE);
		// a hint that arrives while the probe is out (a straggler sent before the cooldown) keeps the cooldown
		gate.closeUntil(5 * S);
		gate.probeAnswered(true);
		assertThat(gate.cooldownRemaining()).hasSeconds(3);
		assertThat(gate.admit(true, 4 * S, FAR, null)).isEqualTo(new Admission.Hold(5 * S, GateHold.COOLDOWN, -1));
	}

	@Test
	void anEarlyProbeThatNeverReportsStopsCountingAfterItsAttemptTimeoutAndTheNextRequestProbes() {
		ProviderGate gate = gate();
		gate.closeUntil(9 * S);
		gate.closeUntil(2 * S);
		this.now.set(2 * S);
		assertThat(gate.admit(false, 2 * S, FAR, null, S)).isEqualTo(Admission.PROBE);
		assertThat(gate.admit(true, 2 * S + S / 2, FAR, null, S)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.untilNanos()).isLessThanOrEqualTo(3 * S));
		// its caller went away: after the attempt timeout the next request probes, still before the latest instant
		this.now.set(3 * S);
		assertThat(gate.admit(true, 3 * S, FAR, null, S)).isEqualTo(Admission.PROBE);
		assertThat(gate.cooldownRemaining()).hasSeconds(6);
	}

	@Test
	void aFailFastGateRefusesUntilTheLatestInstantNamed() {
		ProviderGate gate = gate(PacingSettings.builder().mode(PacingMode.FAIL_FAST).build());
		gate.closeUntil(5 * S);
		gate.closeUntil(3 * S);
		this.now.set(3 * S);
		assertThat(gate.admit(true, 3 * S, FAR, null)).isInstanceOf(Admission.Refuse.class);
		this.now.set(5 * S);
		assertThat(gate.admit(true, 5 * S, FAR, null)).isEqualTo(Admission.PROBE);
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
		gate.probeAnswered(true);
		assertThat(gate.admit(false, opened, opened + FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos() - opened).isEqualTo((long) Math.ceil(S / 0.7)));
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
	void aBacklogOfRetriesDrainsAtTheWholeRateAfterABurstWhileNoFreshRequestComes() {
		ProviderGate gate = engagedAt(70.0, PacingSettings.DEFAULTS);
		long start = this.now.get();
		List<Long> slots = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			Admission admission = gate.admit(false, start, FAR, null);
			slots.add((admission instanceof Admission.Hold hold) ? hold.slotNanos() : start);
		}
		assertThat(slots.subList(0, 10)).containsOnly(start);
		long interval = interval(gate.rate().getAsDouble());
		assertThat(slots.get(10)).isEqualTo(start + interval);
		assertThat(slots.get(99)).isEqualTo(start + 90 * interval);
		assertThat(slots).isSorted();
	}

	@Test
	void withinASecondOfAFreshRequestRetriesKeepToTheirShareOfTheRate() {
		ProviderGate gate = engagedAt(70.0, PacingSettings.builder().burst(1).build());
		long start = this.now.get();
		assertThat(gate.admit(true, start, FAR, null)).isEqualTo(Admission.GO);
		long share = interval(gate.rate().getAsDouble() * 0.9);
		assertThat(gate.admit(false, start, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos() - start).as("the retry share").isEqualTo(share));
		long later = start + S + share;
		assertThat(gate.admit(false, later, FAR, null)).isEqualTo(Admission.GO);
		assertThat(gate.admit(false, later, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos() - later).as("a second later: the whole rate")
					.isEqualTo(interval(gate.rate().getAsDouble())));
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
				(hold) -> assertThat(hold.slotNanos() - start).isEqualTo(freshInterval));
		assertThat(gate.admit(false, start, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos() - start).isGreaterThan(10 * S));
	}

	@Test
	void aHeldSlotIsHonouredWhenItComesAndASlotPastTheLastUsefulStartIsRefusedWithoutBeingTaken() {
		ProviderGate gate = engagedAt(7.0, PacingSettings.builder().burst(1).freshShare(0).build());
		long start = this.now.get();
		long interval = interval(gate.rate().getAsDouble());
		assertThat(gate.admit(false, start, FAR, null)).isEqualTo(Admission.GO);
		Admission.Hold held = (Admission.Hold) gate.admit(false, start, FAR, null);
		assertThat(held.slotNanos() - start).isEqualTo(interval);
		assertThat(held.untilNanos() - start).as("asks again before its slot, more than 100 ms away")
			.isEqualTo(100_000_000L);
		assertThat(gate.admit(false, start + 50_000_000L, FAR, held)).isInstanceOfSatisfying(Admission.Hold.class,
				(again) -> assertThat(again).isEqualTo(new Admission.Hold(held.slotNanos(), GateHold.RATE,
						held.epoch())));
		assertThat(gate.admit(false, held.slotNanos(), FAR, held)).isEqualTo(Admission.GO);
		assertThat(gate.admit(false, held.slotNanos(), held.slotNanos() + 50_000_000L, null))
			.isInstanceOf(Admission.Refuse.class);
		assertThat(gate.admit(false, held.slotNanos(), FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos()).isEqualTo(held.slotNanos() + interval));
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
		assertThat(gate.admit(false, held.slotNanos(), FAR, held)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.reason()).isEqualTo(GateHold.COOLDOWN));
		this.now.set(start + 2 * S);
		assertThat(gate.admit(false, start + 2 * S, FAR, held)).isEqualTo(Admission.PROBE);
		gate.probeAnswered(true);
		assertThat(gate.admit(false, start + 2 * S, FAR, null)).isInstanceOfSatisfying(Admission.Hold.class,
				(hold) -> assertThat(hold.slotNanos() - (start + 2 * S)).isEqualTo(interval(gate.rate().getAsDouble())));
	}

	@Test
	void whileTheProviderNeverRefusedTheRateDoublesEverySecondFromItsFirstSuccessAndLetsGoAtTheMaximum() {
		ProviderGate gate = gate(PacingSettings.builder().maxRate(200).build());
		gate.onThrottle(0, 0);
		assertThat(gate.rate()).hasValueCloseTo(140.0, within(1e-9));
		gate.onSuccess(5 * S, 5 * S);
		assertThat(gate.rate()).as("the growth's clock starts at the first success, not at the throttle")
			.hasValueCloseTo(140.0, within(1e-9));
		gate.onSuccess(5 * S, 5 * S + S / 2);
		assertThat(gate.rate()).as("no backlog: the rate is not what limits the sending, so it does not grow")
			.hasValueCloseTo(140.0, within(1e-9));
		backlog(gate, 300, 5 * S + S / 2);
		for (int i = 0; i < 100; i++) {
			gate.onSuccess(5 * S, 5 * S + S / 2 + i * 5_000_000L);
		}
		gate.onSuccess(5 * S, 6 * S);
		assertThat(gate.rate()).as("the provider admitted 200/s, so the cap (twice that) is not in the way")
			.hasValueCloseTo(140.0 * Math.sqrt(2), within(2.0));
		for (int i = 0; i < 100; i++) {
			gate.onSuccess(5 * S, 6 * S + i * 5_000_000L);
		}
		gate.onSuccess(5 * S, 6 * S + S / 2);
		assertThat(gate.rate()).as("280 > 200: let go").isEmpty();
		assertThat(gate.admit(false, 6 * S + S / 2, FAR, null)).isEqualTo(Admission.GO);
	}

	/**
	 * Issue 32, defect 3: at max-rate the limit let go of whatever was queued (32,031 WebClient requests at once,
	 * 15,450 of them failing on Reactor Netty's pending-acquire queue). With more than a burst held, the backlog
	 * drains at max-rate first; the limit lets go once no more than a burst waits.
	 */
	@Test
	void atTheMaximumRateTheLimitStaysOnWhileMoreThanABurstIsHeldAndLetsGoOnceTheBacklogFits() {
		ProviderGate gate = gate(PacingSettings.builder().maxRate(200).build());
		gate.onThrottle(0, 0);
		gate.onSuccess(5 * S, 5 * S);
		backlog(gate, 300, 5 * S + S / 2);
		for (int i = 0; i < 11; i++) {
			assertThat(gate.tryEnqueue()).isTrue();
		}
		for (int i = 0; i < 100; i++) {
			gate.onSuccess(5 * S, 5 * S + S / 2 + i * 5_000_000L);
		}
		gate.onSuccess(5 * S, 6 * S);
		for (int i = 0; i < 100; i++) {
			gate.onSuccess(5 * S, 6 * S + i * 5_000_000L);
		}
		gate.onSuccess(5 * S, 6 * S + S / 2);
		assertThat(gate.rate()).as("11 held, burst 10: the backlog drains at max-rate").hasValueCloseTo(200.0, within(1e-9));
		gate.dequeue();
		for (int i = 0; i < 100; i++) {
			gate.onSuccess(5 * S, 6 * S + S / 2 + i * 5_000_000L);
		}
		gate.onSuccess(5 * S, 7 * S);
		assertThat(gate.rate()).as("10 held fit in one burst: let go").isEmpty();
	}

	/** Issue 32, defect 3: the number of requests one gate holds is bounded, atomically. */
	@Test
	void aGateHoldsAtMostMaxQueuedRequests() {
		ProviderGate gate = gate(PacingSettings.builder().maxQueued(2).build());
		assertThat(gate.tryEnqueue()).isTrue();
		assertThat(gate.tryEnqueue()).isTrue();
		assertThat(gate.tryEnqueue()).isFalse();
		assertThat(gate.queued()).isEqualTo(2);
		gate.dequeue();
		assertThat(gate.tryEnqueue()).isTrue();
	}

	@Test
	void growthStopsAtTwiceWhatTheProviderAdmitsSoASlowClientNeverTalksPacingIntoLettingGo() {
		ProviderGate gate = gate(PacingSettings.builder().maxRate(1000).build());
		gate.onThrottle(0, 0);
		backlog(gate, 5000, 0);
		for (int i = 0; i <= 100; i++) {
			gate.onSuccess(i * 20_000_000L, i * 20_000_000L);
		}
		assertThat(gate.rate()).as("2 s of doubling from 700 would let go; once the meter reads 50 admitted/s (after its"
				+ " first 250 ms) growth stops").isPresent();
		assertThat(gate.rate().getAsDouble()).isBetween(800.0, 850.0);
	}

	@Test
	void aRefusalFromAnAdmittingProviderMeasuresWhatItAdmitsAndSetsTheRateJustBelowIt() {
		ProviderGate gate = engagedAt(700.0, PacingSettings.DEFAULTS);
		gate.onSuccess(S / 100, S / 100);
		gate.onThrottle(S / 50, S / 50);
		assertThat(gate.rate()).as("the first refusal: × decrease while it measures").hasValueCloseTo(490.0, within(1e-9));
		long start = S / 50;
		// 32 responses to requests sent 1/490 s apart, 15 of them admitted.
		long spacing = S / 490;
		for (int i = 1; i <= 31; i++) {
			long sent = start + i * spacing;
			if (i % 2 == 0) {
				gate.onSuccess(sent, sent + 1_000_000);
			}
			else {
				gate.onThrottle(sent, sent + 1_000_000);
			}
			assertThat(gate.rate()).as("no change while measuring").hasValueCloseTo(490.0, within(1e-9));
		}
		long last = start + 32 * spacing;
		gate.onThrottle(last, last + 1_000_000);
		// over the span of the counted sends, from the first (one spacing after the start) to the last
		double admitted = 15 * 1e9 / (31 * spacing);
		assertThat(gate.rate()).as("0.95 × %.1f admitted/s", admitted).hasValueCloseTo(0.95 * admitted, within(1e-6));
	}

	@Test
	void responsesToABurstSentBeforeTheMeasurementStartItsCountAgainSoTheBurstDoesNotCountAgainstTheProvider() {
		ProviderGate gate = engagedAt(700.0, PacingSettings.DEFAULTS);
		gate.onSuccess(S / 100, S / 100);
		long start = S / 50;
		gate.onThrottle(start - 1_000_000, start);
		assertThat(gate.rate()).hasValueCloseTo(490.0, within(1e-9));
		long spacing = S / 490;
		// 20 requests sent after the start are refused while the answers to a burst sent before it still arrive (they
		// took what the provider had): those counts are dropped when the burst's last answer arrives
		for (int i = 1; i <= 20; i++) {
			long sent = start + i * spacing;
			gate.onThrottle(sent, sent + 1_000_000);
		}
		long lastStale = start + 21 * spacing;
		gate.onThrottle(start - 500_000, lastStale);
		assertThat(gate.rate()).as("nothing concluded yet").hasValueCloseTo(490.0, within(1e-9));
		// then 32 requests sent after it, every other one admitted: the provider admits about 245/s
		answerEveryOther(gate, lastStale, spacing, 32);
		double admitted = 16 * 1e9 / (31 * spacing);
		assertThat(gate.rate()).as("0.95 × %.1f admitted/s, not the 20 refusals before the burst cleared", admitted)
			.hasValueCloseTo(0.95 * admitted, within(1e-6));
	}

	@Test
	void theFirstThrottleOfABurstCapsItsRateAtWhatTheProviderAdmittedOfTheBurstOnceARequestSentSinceSucceeds() {
		ProviderGate gate = gate();
		// 200 requests sent together at 0; the first refusal comes back at 10 ms and turns the rate on at 0.7 × 1000
		long first = 10_000_000L;
		gate.onThrottle(0, first);
		gate.closeUntil(first + S);
		assertThat(gate.rate()).hasValueCloseTo(700.0, within(1e-9));
		// the burst's requests still on their way took what the provider refilled: 20 of them admitted, the last at
		// 250 ms, the others refused (stale: they say nothing new)
		for (int i = 1; i <= 20; i++) {
			gate.onSuccess(0, first + i * 12_000_000L);
			gate.onThrottle(0, first + i * 12_000_000L + 1);
		}
		assertThat(gate.rate()).as("until a request sent since answers").hasValueCloseTo(700.0, within(1e-9));
		// the probe after the cooldown succeeds: 0.95 × 20 admitted over the 240 ms from the refusal to the last
		long probe = first + S;
		gate.onSuccess(probe, probe + 2_000_000L);
		assertThat(gate.rate()).hasValueCloseTo(0.95 * 20 / 0.240, within(1e-6));
	}

	@Test
	void aRequestSentSinceThatSucceedsBeforeTheBurstsAnswersAreInLeavesTheCountRunning() {
		ProviderGate gate = gate();
		long first = 10_000_000L;
		gate.onThrottle(0, first);
		// a request sent right after the refusal (the client was still sending its burst) succeeds at once
		gate.onSuccess(first + 1, first + 2_000_000L);
		assertThat(gate.rate()).hasValueCloseTo(700.0, within(1e-9));
		for (int i = 1; i <= 20; i++) {
			gate.onSuccess(0, first + i * 12_000_000L);
		}
		gate.onSuccess(first + S, first + S + 2_000_000L);
		assertThat(gate.rate()).as("the burst's 20 over 240 ms still cap it")
			.hasValueCloseTo(0.95 * 20 / 0.240, within(1e-6));
	}

	@Test
	void aBurstTheProviderRefusedWholeLeavesTheFirstThrottlesRate() {
		ProviderGate gate = gate();
		// a provider that is down: every answer to the burst is a 503, so nothing measures its rate
		gate.onThrottle(0, 10_000_000L);
		for (int i = 1; i <= 20; i++) {
			gate.onThrottle(0, 10_000_000L + i * 12_000_000L);
		}
		// three of the burst admitted within a second are too few to measure a rate on
		for (int i = 1; i <= 3; i++) {
			gate.onSuccess(0, 300_000_000L + i * 1_000_000L);
		}
		gate.onSuccess(2 * S, 2 * S + 2_000_000L);
		assertThat(gate.rate()).hasValueCloseTo(700.0, within(1e-9));
	}

	@Test
	void aMeasurementDuringWhichTheClientSentLessThanHalfItsRateLowersTheRateByTheDecreaseFactorAtMost() {
		ProviderGate gate = engagedAt(700.0, PacingSettings.DEFAULTS);
		gate.onSuccess(S / 100, S / 100);
		gate.onThrottle(S / 50, S / 50);
		assertThat(gate.rate()).hasValueCloseTo(490.0, within(1e-9));
		long start = S / 50;
		// the queue has drained: 32 responses over most of a second (about 33 a second, far below 490), half refused
		long spacing = S / 33;
		answerEveryOther(gate, start, spacing, 31);
		long last = start + 32 * spacing;
		gate.onThrottle(last, last + 1_000_000);
		assertThat(gate.rate()).as("the demand was 33/s: 0.95 × 15.6 admitted/s would measure it, not the provider")
			.hasValueCloseTo(0.7 * 490.0, within(1e-6));
	}

	@Test
	void holdersWokenLateTogetherByAStallGoSpacedByTheSendLaneNotAllAtOnce() {
		ProviderGate gate = engagedAt(100.0, PacingSettings.DEFAULTS);
		// 40 requests book slots 10 ms apart (after the burst of 10): they are held
		List<Admission> holds = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			holds.add(gate.admit(false, 0, FAR, null));
		}
		long held = holds.stream().filter(Admission.Hold.class::isInstance).count();
		assertThat(held).isEqualTo(30);
		// the client stalls for a second: every slot has passed when the holders wake, together
		long late = S;
		int sent = 0;
		for (Admission hold : holds) {
			if (hold instanceof Admission.Hold h && gate.admit(false, late, FAR, h) == Admission.GO) {
				sent++;
			}
		}
		assertThat(sent).as("two bursts' tolerance, not all 30 at once").isEqualTo(20);
		// the rest go at the rate: one more every 10 ms
		int later = 0;
		for (Admission hold : holds) {
			if (hold instanceof Admission.Hold h) {
				Admission again = gate.admit(false, late + 10_000_000L, FAR, h);
				if (again == Admission.GO) {
					later++;
				}
			}
		}
		assertThat(later).isEqualTo(1);
	}

	@Test
	void aMeasurementThatFindsFewRefusalsTrimsTheRateByTheirShareAndOneThatFindsNoneLetsItGrowFast() {
		ProviderGate gate = engagedAt(100.0, PacingSettings.builder().maxRate(1000).decreaseFactor(0.1).build());
		gate.onSuccess(1, 1);
		gate.onThrottle(2, 2);
		double measuring = gate.rate().getAsDouble();
		for (int i = 0; i < 31; i++) {
			gate.onSuccess(3 + i, 3 + i);
		}
		gate.onThrottle(40, 40);
		double trimmed = measuring * 31 / 32;
		assertThat(gate.rate()).as("1 of 32 refused: within the headroom, the rate less that share")
			.hasValueCloseTo(trimmed, within(1e-9));
		gate.onSuccess(41, 41);
		backlog(gate, 100, 41);
		gate.onSuccess(41, 41 + S);
		assertThat(gate.rate()).as("a measured capacity grows along the cubic curve, flat at first")
			.hasValueCloseTo(trimmed + 0.4, within(1e-6));
		ProviderGate fast = engagedAt(100.0, PacingSettings.builder().maxRate(1000).decreaseFactor(0.1).build());
		fast.onSuccess(1, 1);
		fast.onThrottle(2, 2);
		for (int i = 0; i < 32; i++) {
			fast.onSuccess(3 + i, 3 + i);
		}
		backlog(fast, 100, 40);
		fast.onSuccess(40, 40 + S);
		assertThat(fast.rate()).as("none refused: doubling").hasValueCloseTo(2 * measuring, within(1e-6));
	}

	@Test
	void aRateLimitRefusalFromAProviderThatIsAdmittingIsAbsorbedRatherThanClosingTheGate() {
		ProviderGate gate = gate();
		Optional<Duration> second = Optional.of(Duration.ofSeconds(1));
		assertThat(gate.absorbs(429, second)).as("rate off").isFalse();
		gate.onThrottle(0, 0);
		assertThat(gate.absorbs(429, second)).as("nothing admitted since: the provider may be down").isFalse();
		gate.onSuccess(1, 1);
		assertThat(gate.absorbs(429, second)).isTrue();
		assertThat(gate.absorbs(429, Optional.empty())).isTrue();
		assertThat(gate.absorbs(429, Optional.of(Duration.ofSeconds(2))))
			.as("a longer hint too: the provider admits some, so its hint is the refused request's").isTrue();
		assertThat(gate.absorbs(503, second)).as("a 503 is a cooldown").isFalse();
		gate.closeUntil(S);
		assertThat(gate.absorbs(429, second)).as("a cooldown in force").isFalse();
	}

	@Test
	void anAnnouncedQuotaSetsTheRateOnceABurstIsLeftCapsItsGrowthAndLetsGoInANewWindow() {
		ProviderGate gate = gate();
		gate.onQuota(100, 50, 0);
		assertThat(gate.rate()).as("50 left: room to spare").isEmpty();
		gate.onQuota(100, 10, 0);
		assertThat(gate.rate()).as("a burst left: 0.95 × the quota").hasValueCloseTo(95.0, within(1e-9));
		gate.onSuccess(0, 0);
		gate.onSuccess(0, 10 * S);
		assertThat(gate.rate()).as("growth stops at the quota's pace").hasValueCloseTo(95.0, within(1e-9));
		gate.onQuota(100, 41, 10 * S);
		assertThat(gate.rate()).as("more than 4 bursts left: a new window").isEmpty();
		gate.onQuota(Double.NaN, 0, 10 * S);
		gate.onQuota(-1, 0, 10 * S);
		assertThat(gate.rate()).isEmpty();
	}

	@Test
	void aRateVendorWindowsSetFollowsThemBothWaysWithoutANewBurstAndIsNotLetGoWhileTheyShowRoom() {
		ProviderGate gate = gate();
		gate.onWindows(100, 50, 0);
		assertThat(gate.rate()).as("room to spare: off, as a quota's").isEmpty();
		gate.onWindows(20, 5, 0);
		assertThat(gate.rate()).as("a burst left: paced at 0.95 x").hasValueCloseTo(19.0, within(1e-9));
		int sent = 0;
		while (gate.admit(false, 0, FAR, null) == Admission.GO) {
			sent++;
		}
		assertThat(sent).as("the epoch's burst").isEqualTo(10);
		gate.onWindows(10, 4, 0);
		assertThat(gate.rate()).as("followed down").hasValueCloseTo(9.5, within(1e-9));
		assertThat(gate.admit(false, 0, FAR, null)).as("no new burst: the next request waits for a slot")
			.isInstanceOf(Admission.Hold.class);
		gate.onWindows(100, 97, S);
		assertThat(gate.rate()).as("a new window with room: followed up, not let go")
			.hasValueCloseTo(95.0, within(1e-9));
		ProviderGate quota = gate();
		quota.onQuota(20, 5, 0);
		quota.onQuota(100, 97, S);
		assertThat(quota.rate()).as("an announced quota's rate is let go in a new window, as before").isEmpty();
	}

	@Test
	void aQuotaBelowTheRateLowersItAndVoidsSlotsButARateMeasuredBelowTheQuotaIsKept() {
		ProviderGate gate = engagedAt(700.0, PacingSettings.DEFAULTS);
		gate.onQuota(100, 5, 0);
		assertThat(gate.rate()).hasValueCloseTo(95.0, within(1e-9));
		ProviderGate measured = engagedAt(50.0, PacingSettings.builder().maxRate(1000).build());
		measured.onQuota(100, 5, 0);
		assertThat(measured.rate()).hasValueCloseTo(50.0, within(1e-9));
	}

	@Test
	void queuedCountsRequestsWaitingAtTheGate() {
		ProviderGate gate = gate();
		assertThat(gate.tryEnqueue()).isTrue();
		assertThat(gate.tryEnqueue()).isTrue();
		gate.dequeue();
		assertThat(gate.queued()).isEqualTo(1);
	}

	/** Reserves {@code count} retry slots at {@code at}, so the rate is what limits the sending. */
	private static void backlog(ProviderGate gate, int count, long at) {
		for (int i = 0; i < count; i++) {
			gate.admit(false, at, FAR, null);
		}
	}

	private static long interval(double rate) {
		return (long) Math.ceil(1e9 / rate);
	}

	/** A gate whose rate is on at {@code rate}: a maximum of rate / decrease, then one throttle. */
	/**
	 * Answers {@code count} requests sent {@code spacing} apart after {@code from}, each 1 ms after it was sent: the
	 * even ones admitted, the odd ones refused.
	 */
	private static void answerEveryOther(ProviderGate gate, long from, long spacing, int count) {
		for (int i = 1; i <= count; i++) {
			long sent = from + i * spacing;
			if (i % 2 == 0) {
				gate.onSuccess(sent, sent + 1_000_000);
			}
			else {
				gate.onThrottle(sent, sent + 1_000_000);
			}
		}
	}

	private ProviderGate engagedAt(double rate, PacingSettings settings) {
		ProviderGate gate = gate(settings.toBuilder().maxRate(rate / settings.decreaseFactor()).build());
		gate.onThrottle(0, 0);
		assertThat(gate.rate()).hasValueCloseTo(rate, within(1e-6));
		return gate;
	}

}
