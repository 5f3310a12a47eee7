package io.github.retryafter.internal;

import java.time.Duration;
import java.util.Locale;

import io.github.retryafter.generated.Tries;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SecondsTests {

	private static final long SEED = 0x5eed_0003L;

	@Test
	void threeDecimalsWithTheMillisecondRoundedHalfUp() {
		assertThat(Seconds.format(0)).isEqualTo("0.000 s");
		assertThat(Seconds.format(250_000_000)).isEqualTo("0.250 s");
		assertThat(Seconds.format(1_000_500_000)).isEqualTo("1.001 s");
		assertThat(Seconds.format(1_000_499_999)).isEqualTo("1.000 s");
		assertThat(Seconds.format(999_999_999)).isEqualTo("1.000 s");
		assertThat(Seconds.format(-1_500_000_000L)).isEqualTo("-1.500 s");
		assertThat(Seconds.format(-1)).isEqualTo("-0.000 s");
		assertThat(Seconds.format(Duration.ofMillis(30_000))).isEqualTo("30.000 s");
	}

	@Test
	void durationsPastALongOfNanosAreFormattedNotOverflowed() {
		assertThat(Seconds.format(Saturating.MAX_DURATION)).isEqualTo(Long.MAX_VALUE + ".999 s");
		assertThat(Seconds.format(Duration.ofMillis(Long.MAX_VALUE))).isEqualTo("9223372036854775.807 s");
		assertThat(Seconds.format(Saturating.MIN_DURATION)).isEqualTo("-" + Long.MAX_VALUE + ".999 s");
		assertThat(Seconds.format(Long.MIN_VALUE)).isEqualTo("-9223372036.855 s");
	}

	@Test
	void agreesWithStringFormatForDurationsOfAWeek() {
		Tries.check(SEED, 2000, (draw) -> draw.longs(-604_800_000_000_000L, 604_800_000_000_000L),
				SecondsTests::agreesWithStringFormatForDurationsOfAWeek);
	}

	private static void agreesWithStringFormatForDurationsOfAWeek(long nanos) {
		assertThat(Seconds.format(nanos)).isEqualTo(String.format(Locale.ROOT, "%.3f s", nanos / 1e9));
		assertThat(Seconds.format(Duration.ofNanos(nanos))).isEqualTo(Seconds.format(nanos));
	}

}
