package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * How a window that refuses with a wait longer than itself is measured: five admitted at once, the rest refused with
 * {@code Retry-After: 2}, a window of 1.1 s, requests paced a few hundred milliseconds apart while it is measured.
 */
class HintedRefusalsTests {

	private static final long MS = 1_000_000L;

	private static final long WAIT = 2_000 * MS;

	/**
	 * The gate's cooldown began at {@code closedAt}; the burst of five goes at 1 s, each answer takes {@code latency},
	 * then three paced requests are refused and the fourth admitted.
	 */
	private static double cycleOf(HintedRefusals refusals, long closedAt, long latency) {
		for (long sent = 1_000 * MS; sent <= 1_016 * MS; sent += 4 * MS) {
			assertThat(refusals.admitted(sent, sent + latency, 0, closedAt)).isNaN();
		}
		refusals.refused(1_020 * MS, 1_020 * MS + latency, WAIT);
		for (long sent : new long[] { 1_300 * MS, 1_600 * MS, 1_950 * MS }) {
			refusals.refused(sent, sent + latency, WAIT);
		}
		return refusals.admitted(2_250 * MS, 2_250 * MS + latency, 0, closedAt);
	}

	@Test
	void aCycleEndsMidwayBetweenTheLastRefusedAndTheFirstAdmittedSending() {
		// the window's end lies between 1.95 s (refused) and 2.25 s (admitted): 2.1 s, a cycle of 1.1 s from 1 s
		assertThat(cycleOf(new HintedRefusals(new RecentSuccesses(), 0), 500 * MS, 50 * MS))
			.isCloseTo(5 / 1.1, within(1e-9));
	}

	@Test
	void aCycleIsTimedBySendingsSoAnswersSlowerThanRefusalsDoNotLengthenIt() {
		// answers take 200 ms, refusals 20 ms: the burst's refusal arrives before its successes
		HintedRefusals refusals = new HintedRefusals(new RecentSuccesses(), 0);
		long closedAt = 500 * MS;
		refusals.refused(1_020 * MS, 1_040 * MS, WAIT);
		for (long sent = 1_000 * MS; sent <= 1_016 * MS; sent += 4 * MS) {
			assertThat(refusals.admitted(sent, sent + 200 * MS, 0, closedAt)).isNaN();
		}
		for (long sent : new long[] { 1_300 * MS, 1_600 * MS, 1_950 * MS }) {
			refusals.refused(sent, sent + 20 * MS, WAIT);
		}
		assertThat(refusals.admitted(2_250 * MS, 2_450 * MS, 0, closedAt)).isCloseTo(5 / 1.1, within(1e-9));
	}

	@Test
	void aProbeSentDuringTheCooldownAndTheBurstItsAnswerReleasesAreOneCycle() {
		HintedRefusals refusals = new HintedRefusals(new RecentSuccesses(), 0);
		// a first burst, sent before the cooldown began at 20 ms, some of its successes arriving after
		long closedAt = 20 * MS;
		refusals.admitted(10 * MS, 30 * MS, 0, closedAt);
		refusals.admitted(12 * MS, 32 * MS, 0, closedAt);
		// the probe goes at 1.99 s, before the cooldown's end, and its answer releases four more
		refusals.admitted(1_990 * MS, 2_000 * MS, 0, closedAt);
		for (long sent = 2_020 * MS; sent <= 2_032 * MS; sent += 4 * MS) {
			refusals.admitted(sent, sent + 10 * MS, 0, closedAt);
		}
		for (long sent : new long[] { 2_040 * MS, 2_300 * MS, 2_600 * MS, 2_950 * MS }) {
			refusals.refused(sent, sent + 10 * MS, WAIT);
		}
		// the window's end: midway between 2.95 s and 3.25 s, 1.11 s after the probe: the probe is one of the five
		assertThat(refusals.admitted(3_250 * MS, 3_260 * MS, 0, closedAt)).isCloseTo(5 / 1.11, within(1e-9));
	}

	@Test
	void aCycleSpanningACooldownMeasuresNothing() {
		HintedRefusals refusals = new HintedRefusals(new RecentSuccesses(), 0);
		refusals.admitted(1_000 * MS, 1_010 * MS, 0, 500 * MS);
		refusals.admitted(1_004 * MS, 1_014 * MS, 0, 500 * MS);
		refusals.refused(1_020 * MS, 1_030 * MS, WAIT);
		// the gate closed again at 1.5 s, after the cycle's first request was sent: the next success starts a new one
		assertThat(refusals.admitted(3_600 * MS, 3_610 * MS, 0, 1_500 * MS)).isNaN();
	}

	@Test
	void withNoRefusedSendingInTheCycleItEndsAtTheFirstAdmitted() {
		HintedRefusals refusals = new HintedRefusals(new RecentSuccesses(), 0);
		long closedAt = 500 * MS;
		for (long sent = 1_000 * MS; sent <= 1_016 * MS; sent += 4 * MS) {
			refusals.admitted(sent, sent + MS, 0, closedAt);
		}
		// a request sent before the cycle started was refused: it says nothing of where the window ends
		refusals.refused(900 * MS, 1_100 * MS, WAIT);
		assertThat(refusals.admitted(2_000 * MS, 2_001 * MS, 0, closedAt)).isCloseTo(5 / 1.0, within(1e-9));
	}

	@Test
	void aMeasurementUnderWayConcludesNoLowerThanACycleMeasuredDuringIt() {
		HintedRefusals refusals = new HintedRefusals(new RecentSuccesses(), 0);
		// no cap started the measurement (its floor is 0): the cycle's rate still bounds its conclusion
		refusals.forgetFloor();
		refusals.cycled(4.3, 2_300 * MS);
		assertThat(refusals.concludeFloor()).isEqualTo(4.3);
		assertThat(refusals.concludeFloor()).as("once").isZero();
	}

}
