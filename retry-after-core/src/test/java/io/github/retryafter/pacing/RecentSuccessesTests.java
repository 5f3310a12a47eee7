package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RecentSuccessesTests {

	private static final long MS = 1_000_000L;

	@Test
	void successesAreCountedOverTheSpanFromTheStartOfItsFirstBucket() {
		RecentSuccesses recent = new RecentSuccesses();
		for (int i = 0; i < 5; i++) {
			recent.add(1_010 * MS + i * MS);
		}
		for (int i = 0; i < 5; i++) {
			recent.add(3_020 * MS + i * MS);
		}
		// over the 2 s before 3.1 s: buckets from 1.1 s, so the first five (at 1.01 s) have left the span
		assertThat(recent.perSecond(3_100 * MS, 2_000 * MS)).isCloseTo(5 / 2.0, within(1e-9));
		// over the 2.1 s before it: from 1.0 s, all ten
		assertThat(recent.perSecond(3_100 * MS, 2_100 * MS)).isCloseTo(10 / 2.1, within(1e-9));
	}

	@Test
	void aBucketOlderThanTheRingIsNotCountedAgain() {
		RecentSuccesses recent = new RecentSuccesses();
		recent.add(50 * MS);
		// 6.4 s later the same slot holds a new bucket: the old count is gone, not added to it
		recent.add(6_450 * MS);
		// the span's first bucket starts at 0.1 s
		assertThat(recent.perSecond(6_499 * MS, 6_400 * MS)).isCloseTo(1 / 6.399, within(1e-9));
		// and a count that arrives late for a slot that moved on is dropped
		recent.add(60 * MS);
		assertThat(recent.perSecond(6_499 * MS, 100 * MS)).as("from 6.3 s").isCloseTo(1 / 0.199, within(1e-9));
	}

	@Test
	void noSuccessesReadAsNone() {
		assertThat(new RecentSuccesses().perSecond(5_000 * MS, 2_000 * MS)).isZero();
	}

	@Test
	void negativeTickerReadingsAreBucketedLikeAnyOther() {
		RecentSuccesses recent = new RecentSuccesses();
		recent.add(-150 * MS);
		recent.add(-120 * MS);
		assertThat(recent.perSecond(-101 * MS, 50 * MS)).isCloseTo(2 / 0.099, within(1e-9));
	}

}
