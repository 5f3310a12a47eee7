package io.github.retryafter.pacing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The adaptive rate's growth curve: doubling without a measured capacity, CUBIC around one.
 */
class CurveTests {

	private static final long S = 1_000_000_000L;

	private static final double SCALE = 0.4;

	@Test
	void withoutAMeasuredCapacityTheRateDoublesEverySecond() {
		Curve curve = Curve.at(10, 20, false, 0);
		assertThat(curve.grown(SCALE, 0, 0)).isCloseTo(10, within(1e-9));
		assertThat(curve.grown(SCALE, 0, S)).isCloseTo(20, within(1e-9));
		assertThat(curve.grown(SCALE, 0, 3 * S)).isCloseTo(80, within(1e-9));
	}

	@Test
	void aroundAMeasuredCapacityTheRateFlattensAtItThenProbesAbove() {
		Curve curve = Curve.at(10, 20, true, 0);
		double k = Math.cbrt((20 - 10) / SCALE);
		assertThat(curve.grown(SCALE, 0, 0)).isCloseTo(10, within(1e-9));
		assertThat(curve.grown(SCALE, 0, Math.round(k * S))).isCloseTo(20, within(1e-6));
		assertThat(curve.grown(SCALE, 0, Math.round((k + 1) * S))).isCloseTo(20 + SCALE, within(1e-6));
	}

	@Test
	void theGrowthClockStartsAtItsStartAndNeverRunsBackwards() {
		Curve curve = Curve.at(10, 10, false, 0);
		assertThat(curve.grown(SCALE, 2 * S, S)).isCloseTo(10, within(1e-9));
	}

	@Test
	void aCurveRestartedWhileTheRateIsNotInUseKeepsAMeasuredCapacityOnly() {
		assertThat(new Curve(15, 20, 10, false, 0).regrownFrom(S)).isEqualTo(new Curve(15, 15, 15, false, S));
		assertThat(new Curve(15, 20, 10, true, 0).regrownFrom(S)).isEqualTo(new Curve(15, 20, 15, true, S));
	}

	@Test
	void aScaledCurveKeepsItsShapeAndItsClock() {
		assertThat(new Curve(10, 20, 5, true, S).scaled(0.5)).isEqualTo(new Curve(5, 10, 2.5, true, S));
	}

}
