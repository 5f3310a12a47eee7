package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A measurement of what the provider admits: counted over the span of the counted requests' sends.
 */
class SampleTests {

	private static final long MS = 1_000_000L;

	@Test
	void admissionsAreCountedOverTheSpanOfTheirSends() {
		Sample sample = Sample.startingAt(0).admitted(100 * MS).admitted(200 * MS).refused(250 * MS).admitted(300 * MS);
		assertThat(sample.responses()).isEqualTo(4);
		assertThat(sample.admittedPerSecond()).isCloseTo(15, within(1e-9));
		assertThat(sample.sentPerSecond()).isCloseTo(20, within(1e-9));
	}

	@Test
	void oneSendIsCountedFromTheCountsStart() {
		Sample sample = Sample.startingAt(0).admitted(500 * MS);
		assertThat(sample.admittedPerSecond()).isCloseTo(2, within(1e-9));
	}

	@Test
	void aMeasurementIsCompleteWithEnoughResponsesOrOnceItSpansASecond() {
		Sample sample = Sample.startingAt(0);
		for (int i = 1; i <= 3; i++) {
			sample = sample.admitted(i * MS);
		}
		assertThat(sample.complete(4)).isFalse();
		assertThat(sample.refused(4 * MS).complete(4)).isTrue();
		assertThat(sample.admitted(1000 * MS).complete(32)).isTrue();
	}

	@Test
	void aRecountStartsTheCountsAgainWithinTheSameSpan() {
		Sample sample = Sample.startingAt(0).admitted(100 * MS).refused(200 * MS).recountFrom(300 * MS);
		assertThat(sample).isEqualTo(new Sample(0, 0, 0, 300 * MS, 300 * MS, 300 * MS));
	}

}
