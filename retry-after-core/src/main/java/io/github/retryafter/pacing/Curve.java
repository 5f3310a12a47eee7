package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;

/**
 * The adaptive rate's growth curve: the rate in force and the curve it grows along from {@code growthStartNanos}
 * (CUBIC around a measured capacity, doubling without one). Immutable.
 * @param rate requests per second
 * @param target the rate the curve flattens at (a measured capacity, or the rate before the last decrease)
 * @param base the rate right after the last change, where growth starts
 * @param measured whether {@code target} was measured (cubic growth) or not (doubling)
 * @param growthStartNanos the first success since the last change, where the growth's clock starts
 */
record Curve(double rate, double target, double base, boolean measured, long growthStartNanos) {

	/** No rate: the rate limit is off. */
	static Curve none(long nowNanos) {
		return new Curve(0, 0, 0, false, nowNanos);
	}

	/** A curve that starts at {@code rate} now, flattening at {@code target}. */
	static Curve at(double rate, double target, boolean measured, long nowNanos) {
		return new Curve(rate, target, rate, measured, nowNanos);
	}

	/**
	 * The rate {@code t} seconds after {@code fromNanos}: around a measured capacity, CUBIC's
	 * {@code growthScale × (t − K)³ + target}, {@code K = ∛((target − base) / growthScale)} (flat near the capacity,
	 * then probing above it ever faster); without one, {@code base × 2^t}, never below the cubic curve.
	 */
	double grown(double growthScale, long fromNanos, long nowNanos) {
		double k = Math.cbrt(Math.max(0, this.target - this.base) / growthScale);
		double t = Math.max(0, nowNanos - fromNanos) / NANOS_PER_SECOND;
		double x = t - k;
		double cubic = growthScale * x * x * x + this.target;
		return this.measured ? cubic : Math.max(cubic, this.base * Math.pow(2, Math.min(t, 64)));
	}

	/** The curve restarted at the current rate now, while the rate is not in use. */
	Curve regrownFrom(long nowNanos) {
		return new Curve(this.rate, this.measured ? this.target : this.rate, this.rate, this.measured, nowNanos);
	}

	/** The first success since the last change starts the growth's clock. */
	Curve startingAt(long nowNanos) {
		return new Curve(this.rate, this.target, this.base, this.measured, nowNanos);
	}

	/** The rate moved to {@code rate}, its curve kept. */
	Curve movedTo(double rate) {
		return new Curve(rate, this.target, this.base, this.measured, this.growthStartNanos);
	}

	/** The rate and its curve multiplied by {@code by}. */
	Curve scaled(double by) {
		return new Curve(this.rate * by, this.target * by, this.base * by, this.measured, this.growthStartNanos);
	}

}
