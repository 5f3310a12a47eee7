package io.github.retryafter.internal;

import java.time.Duration;
import java.util.Locale;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SecondsTests {

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

	@Property(tries = 2000)
	void agreesWithStringFormatForDurationsOfAWeek(@ForAll @LongRange(min = -604_800_000_000_000L,
			max = 604_800_000_000_000L) long nanos) {
		assertThat(Seconds.format(nanos)).isEqualTo(String.format(Locale.ROOT, "%.3f s", nanos / 1e9));
		assertThat(Seconds.format(Duration.ofNanos(nanos))).isEqualTo(Seconds.format(nanos));
	}

}
