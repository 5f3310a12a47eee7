package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What a paced provider admitted lately: the meter that caps growth, and the count of the first throttle's burst.
 */
class AdmissionCountsTests {

	private static final long MS = 1_000_000L;

	@Test
	void theMeterReadsOnceAWindowHasPassed() {
		AdmissionCounts counts = new AdmissionCounts();
		for (long at = 0; at <= 200 * MS; at += 50 * MS) {
			counts.meter(at);
		}
		assertThat(counts.meterRate()).isNaN();
		counts.meter(250 * MS);
		assertThat(counts.meterRate()).isCloseTo(20, within(1e-9));
	}

	@Test
	void theBurstCountCompletesWithARequestSentSinceOnceItHasEnough() {
		AdmissionCounts counts = new AdmissionCounts();
		counts.startBurst(0);
		for (int i = 1; i <= 3; i++) {
			assertThat(counts.burstComplete(-MS, i * 100 * MS)).isFalse();
		}
		assertThat(counts.burstComplete(10 * MS, 350 * MS)).as("three are too few").isFalse();
		assertThat(counts.burstRate(1.0)).isNaN();
		assertThat(counts.burstComplete(-MS, 400 * MS)).isFalse();
		assertThat(counts.burstComplete(10 * MS, 500 * MS)).isTrue();
		assertThat(counts.burstRate(0.95)).isCloseTo(0.95 * 10, within(1e-9));
		assertThat(counts.burstComplete(20 * MS, 600 * MS)).as("counted once").isFalse();
	}

	@Test
	void theBurstCountEndsOnceItsSpanHasPassed() {
		AdmissionCounts counts = new AdmissionCounts();
		counts.startBurst(0);
		assertThat(counts.burstComplete(-MS, 1001 * MS)).as("too late to count").isFalse();
		assertThat(counts.burstComplete(10 * MS, 1001 * MS)).isTrue();
		assertThat(counts.burstRate(1.0)).isNaN();
	}

}
