package io.github.retryafter.pacing;

/**
 * The adaptive rate's state: whether the rate limit is on, its curve, what the provider said since the last change,
 * a measurement under way and an announced quota. Immutable.
 * @param engaged whether the rate limit is on
 * @param curve the rate and the curve it grows along
 * @param lastDecreaseNanos the last change: throttles of requests sent before it are stale
 * @param admittedSinceDecrease whether the provider admitted a request since the last change
 * @param sample the measurement under way, or {@code null}
 * @param quota the rate the provider's announced quota allows, capping growth; 0 when none was announced
 * @param quotaPaced whether the quota turned the rate on (then a quota with room to spare lets it go)
 */
record Rate(boolean engaged, Curve curve, long lastDecreaseNanos, boolean admittedSinceDecrease, Sample sample,
		double quota, boolean quotaPaced) {

	/** The rate limit off, with nothing measured: a new gate's. */
	static Rate off(long nowNanos) {
		return new Rate(false, Curve.none(nowNanos), nowNanos, false, null, 0, false);
	}

	/** Requests per second while {@link #engaged}. */
	double perSecond() {
		return this.curve.rate();
	}

	/** Whether a throttle now is a refusal from a provider that admits requests (rather than one that is down). */
	boolean admitting() {
		return this.engaged && (this.admittedSinceDecrease || this.sample != null);
	}

	Rate withSample(Sample next) {
		return new Rate(this.engaged, this.curve, this.lastDecreaseNanos, this.admittedSinceDecrease, next, this.quota,
				this.quotaPaced);
	}

	/** No success since the last change: a throttle now is from a provider that is not admitting. */
	Rate refusedSinceDecrease() {
		return new Rate(this.engaged, this.curve, this.lastDecreaseNanos, false, this.sample, this.quota,
				this.quotaPaced);
	}

	/** The first success since the last change starts the growth's clock. */
	Rate admitted(long nowNanos) {
		return this.admittedSinceDecrease ? this : new Rate(this.engaged, this.curve.startingAt(nowNanos),
				this.lastDecreaseNanos, true, this.sample, this.quota, this.quotaPaced);
	}

	/** The growth curve restarted at the current rate now, while the rate is not in use. */
	Rate regrowFrom(long nowNanos) {
		return new Rate(this.engaged, this.curve.regrownFrom(nowNanos), this.lastDecreaseNanos, true, this.sample,
				this.quota, this.quotaPaced);
	}

	/** A measurement under way at the same rate. */
	Rate measuring(Sample started, long nowNanos) {
		return new Rate(true, this.curve, nowNanos, true, started, this.quota, false);
	}

	/** A measurement that leaves the rate at {@code at}, as the new start of its growth. */
	Rate afterSample(double at, boolean capacity, long nowNanos) {
		return new Rate(true, new Curve(at, at, at, capacity, nowNanos), nowNanos, true, null, this.quota,
				this.quotaPaced);
	}

	/** An announced quota: it caps the rate and its growth. */
	Rate withQuota(double perSecond) {
		return new Rate(this.engaged, this.curve.movedTo(Math.min(perSecond(), perSecond)), this.lastDecreaseNanos,
				this.admittedSinceDecrease, this.sample, perSecond, this.quotaPaced);
	}

	/** The rate, its curve and its quota multiplied by {@code by}. */
	Rate rerated(double by) {
		return new Rate(this.engaged, this.curve.scaled(by), this.lastDecreaseNanos, this.admittedSinceDecrease,
				this.sample, this.quota * by, this.quotaPaced);
	}

	/** The rate moved to {@code rate}, its curve kept. */
	Rate movedTo(double rate) {
		return new Rate(this.engaged, this.curve.movedTo(rate), this.lastDecreaseNanos, this.admittedSinceDecrease,
				this.sample, this.quota, this.quotaPaced);
	}

}
