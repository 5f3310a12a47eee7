package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the slots booked in one epoch move as the rate changes within it.
 */
class TimelineTests {

	private static final long MS = 1_000_000L;

	@Test
	void noChangeLeavesEverySlotWhereItWasBooked() {
		assertThat(Timeline.NONE.slot(123 * MS)).isEqualTo(123 * MS);
		assertThat(Timeline.NONE.booked(123 * MS)).isEqualTo(123 * MS);
	}

	@Test
	void aRateThatDoublesBringsTheSlotsAheadHalfWayNearerInTheirOrder() {
		Timeline doubled = Timeline.NONE.then(100 * MS, 0.5);
		assertThat(doubled.slot(300 * MS)).isEqualTo(200 * MS);
		assertThat(doubled.slot(500 * MS)).isEqualTo(300 * MS);
		assertThat(doubled.booked(300 * MS)).isEqualTo(500 * MS);
	}

	@Test
	void changesCompose() {
		Timeline twice = Timeline.NONE.then(0, 0.5).then(100 * MS, 2);
		// 500 ms moved to 250 ms, then, 150 ms ahead of 100 ms at half the rate, to 400 ms
		assertThat(twice.slot(500 * MS)).isEqualTo(400 * MS);
		assertThat(twice.booked(400 * MS)).isEqualTo(500 * MS);
	}

	@Test
	void aLanesArrivalTimeMovesOnlyWhenAhead() {
		assertThat(Timeline.moved(300 * MS, 100 * MS, 0.5)).isEqualTo(200 * MS);
		assertThat(Timeline.moved(50 * MS, 100 * MS, 0.5)).isEqualTo(50 * MS);
	}

}
