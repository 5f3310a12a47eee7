package io.github.retryafter.internal;

import java.time.Duration;
import java.time.Instant;

import io.github.retryafter.generated.Tries;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SaturatingTests {

	private static final long SEED = 0x5eed_0004L;

	private static final Duration MAX = Saturating.MAX_DURATION;

	private static final Duration MIN = Saturating.MIN_DURATION;

	@Test
	void longArithmeticSticksAtTheEndsOfTheRange() {
		assertThat(Saturating.add(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.add(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.add(Long.MAX_VALUE, Long.MIN_VALUE)).isEqualTo(-1);
		assertThat(Saturating.subtract(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.subtract(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.subtract(0, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.multiply(Long.MAX_VALUE, 1000)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.multiply(Long.MIN_VALUE, 2)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.multiply(-Long.MAX_VALUE, 2)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.multiply(Long.MIN_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.multiply(-3, 1_000_000)).isEqualTo(-3_000_000);
	}

	@Test
	void durationsBeyondALongOfNanosOrMillisSaturate() {
		assertThat(Saturating.toNanos(MAX)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.toNanos(MIN)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.toNanos(Duration.ofNanos(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.toNanos(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1))).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.toMillis(MAX)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.toMillis(MIN)).isEqualTo(Long.MIN_VALUE);
		assertThat(Saturating.toMillis(Duration.ofNanos(-1))).isZero();
		assertThat(Saturating.toEpochMilli(Instant.MAX)).isEqualTo(Long.MAX_VALUE);
		assertThat(Saturating.toEpochMilli(Instant.MIN)).isEqualTo(Long.MIN_VALUE);
	}

	@Test
	void durationAndInstantSumsSaturateAtTheirRanges() {
		assertThat(Saturating.plus(MAX, Duration.ofNanos(1))).isEqualTo(MAX);
		assertThat(Saturating.plus(MAX, MAX)).isEqualTo(MAX);
		assertThat(Saturating.plus(MIN, MIN)).isEqualTo(MIN);
		assertThat(Saturating.plus(Duration.ofSeconds(Long.MAX_VALUE, 500_000_000), Duration.ofMillis(600))).isEqualTo(MAX);
		assertThat(Saturating.minus(MIN, Duration.ofNanos(1))).isEqualTo(MIN);
		assertThat(Saturating.minus(Duration.ZERO, MIN)).isEqualTo(MAX);
		assertThat(Saturating.minus(MAX, MAX)).isZero();
		assertThat(Saturating.plus(Instant.MAX, MAX)).isEqualTo(Instant.MAX);
		assertThat(Saturating.plus(Instant.MIN, MIN)).isEqualTo(Instant.MIN);
		assertThat(Saturating.plus(Instant.MAX, Duration.ofNanos(1))).isEqualTo(Instant.MAX);
		assertThat(Saturating.plusNanos(Instant.MIN, -1)).isEqualTo(Instant.MIN);
		assertThat(Saturating.plusNanos(Instant.MAX, Long.MAX_VALUE)).isEqualTo(Instant.MAX);
	}

	@Test
	void withinRangeEveryConversionAgreesWithTheJdk() {
		Tries.check(SEED, 2000, (draw) -> new ThreeLongs(draw.anyLong(), draw.anyLong(), draw.anyLong()),
				(longs) -> withinRangeEveryConversionAgreesWithTheJdk(longs.seconds(), longs.nanos(), longs.other()));
	}

	record ThreeLongs(long seconds, long nanos, long other) {

	}

	private static void withinRangeEveryConversionAgreesWithTheJdk(long seconds, long nanos, long other) {
		Duration duration = Duration.ofSeconds(seconds % 9_000_000_000L, nanos % 1_000_000_000L);
		assertThat(Saturating.toNanos(duration)).isEqualTo(duration.toNanos());
		Duration wide = Duration.ofSeconds(seconds % 9_000_000_000_000_000L, nanos);
		assertThat(Saturating.toMillis(wide)).isEqualTo(wide.toMillis());
		Duration third = Duration.ofSeconds(seconds / 3, nanos);
		Duration otherThird = Duration.ofSeconds(other / 3, other);
		assertThat(Saturating.plus(third, otherThird)).isEqualTo(third.plus(otherThird));
		assertThat(Saturating.minus(third, otherThird)).isEqualTo(third.minus(otherThird));
		Instant instant = Instant.ofEpochSecond(seconds % 9_000_000_000_000_000L, nanos);
		assertThat(Saturating.toEpochMilli(instant)).isEqualTo(instant.toEpochMilli());
		Instant inRange = Instant.ofEpochSecond(seconds % 30_000_000_000_000_000L, other);
		assertThat(Saturating.plusNanos(inRange, nanos)).isEqualTo(inRange.plusNanos(nanos));
		Duration shortish = Duration.ofSeconds(other % 1_000_000_000_000_000L, nanos);
		assertThat(Saturating.plus(inRange, shortish)).isEqualTo(inRange.plus(shortish));
	}

}
