package io.github.retryafter.generated;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TriesTests {

	private static final long SEED = 0x5eed_0005L;

	@Test
	void drawsStayInTheirRangeAndReachItsEdgesZeroAndBothSides() {
		Set<Long> seen = new HashSet<>();
		Set<Long> wide = new HashSet<>();
		List<Long> big = new ArrayList<>();
		Tries.check(SEED, 1000, (draw) -> new long[] { draw.longs(-50, 70), draw.anyLong(), draw.longs(0, Long.MAX_VALUE) },
				(values) -> {
					assertThat(values[0]).isBetween(-50L, 70L);
					assertThat(values[2]).isNotNegative();
					seen.add(values[0]);
					wide.add(values[1]);
					big.add(values[2]);
				});
		assertThat(seen).contains(-50L, -49L, -1L, 0L, 1L, 69L, 70L);
		assertThat(wide).contains(Long.MIN_VALUE, Long.MAX_VALUE, 0L);
		assertThat(big).contains(Long.MAX_VALUE, Long.MAX_VALUE - 1, 0L, 1L);
		assertThat(big).anyMatch((value) -> value > 0 && value < 1_000_000);
		assertThat(big).anyMatch((value) -> value > Long.MAX_VALUE / 4);
	}

	@Test
	void stringsReachEmptyTheLongestAndEveryLengthBetween() {
		Set<Integer> lengths = new HashSet<>();
		Set<Double> units = new HashSet<>();
		Tries.check(SEED, 1000, (draw) -> new Object[] { draw.string(40), draw.digits(1, 30), draw.unit() }, (values) -> {
			String text = (String) values[0];
			assertThat(text).hasSizeLessThanOrEqualTo(40);
			assertThat((String) values[1]).hasSizeBetween(1, 30).containsOnlyDigits();
			assertThat((double) values[2]).isGreaterThanOrEqualTo(0).isLessThan(1);
			lengths.add(text.length());
			units.add((double) values[2]);
		});
		assertThat(lengths).hasSize(41);
		assertThat(units).contains(0.0, Math.nextDown(1.0));
	}

	@Test
	void theSameSeedDrawsTheSameInputs() {
		List<String> first = new ArrayList<>();
		List<String> second = new ArrayList<>();
		Tries.check(SEED, 100, (draw) -> draw.string(20) + draw.anyLong(), first::add);
		Tries.check(SEED, 100, (draw) -> draw.string(20) + draw.anyLong(), second::add);
		assertThat(second).isEqualTo(first);
		assertThat(new HashSet<>(first)).as("past the edge tries, inputs differ").hasSizeGreaterThan(80);
	}

	@Test
	void aFailureNamesTheSeedTheTryAndTheInput() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> Tries.check(SEED, 100, (draw) -> draw.longs(0, 10),
					(value) -> assertThat(value).isLessThan(10)))
			.withMessageContaining("with seed 0x5eed0005")
			.withMessageContaining(" of 100 ")
			.withMessageContaining("failed on 10");
	}

}
