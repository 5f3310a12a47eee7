package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;

import java.time.Duration;

/**
 * What a paced provider admitted lately, counted from its successes: the successes per second of the last completed
 * {@link #METER_WINDOW} (a cap on the rate's growth), and how many of the burst the first throttle cut short it
 * admitted within {@link AdaptiveRate#SAMPLE_SPAN} of that throttle. Not thread-safe: guarded by the gate's lock.
 */
final class AdmissionCounts {

	/** The window the provider's admitted successes per second are counted over, to cap the rate's growth. */
	static final Duration METER_WINDOW = Duration.ofMillis(250);

	// the successes per second of the last completed window, NaN before one completed; the current window
	private double meterRate = Double.NaN;

	private long meterStart;

	private int meterCount;

	// whether the burst's successes are being counted, when its throttle came, how many, when the last answered
	private boolean burstCounting;

	private long burstSince;

	private int burstAdmitted;

	private long burstLastNanos;

	/** The successes per second the provider admitted in the last completed window, {@code NaN} before one. */
	double meterRate() {
		return this.meterRate;
	}

	/** Counts a success in the meter, closing its window when it is over. */
	void meter(long nowNanos) {
		long elapsed = nowNanos - this.meterStart;
		if (this.meterCount == 0 && Double.isNaN(this.meterRate) || elapsed < 0) {
			this.meterStart = nowNanos;
		}
		else if (elapsed >= METER_WINDOW.toNanos()) {
			this.meterRate = this.meterCount * NANOS_PER_SECOND / elapsed;
			this.meterStart = nowNanos;
			this.meterCount = 0;
		}
		this.meterCount++;
	}

	/** The rate turned on at {@code nowNanos}: count what the provider admits of the requests already on their way. */
	void startBurst(long nowNanos) {
		this.burstCounting = true;
		this.burstSince = nowNanos;
		this.burstAdmitted = 0;
		this.burstLastNanos = nowNanos;
	}

	/**
	 * Counts a success in the burst's count, and returns whether it completed the count: a request sent since the
	 * throttle succeeded once the count has {@link AdaptiveRate#MIN_SAMPLE_RESPONSES} or its span has passed.
	 */
	boolean burstComplete(long sentAtNanos, long nowNanos) {
		if (!this.burstCounting) {
			return false;
		}
		long span = AdaptiveRate.SAMPLE_SPAN.toNanos();
		if (sentAtNanos - this.burstSince < 0) {
			if (nowNanos - this.burstSince <= span) {
				this.burstAdmitted++;
				this.burstLastNanos = nowNanos;
			}
			return false;
		}
		if (this.burstAdmitted >= AdaptiveRate.MIN_SAMPLE_RESPONSES || nowNanos - this.burstSince > span) {
			this.burstCounting = false;
			return true;
		}
		return false;
	}

	/**
	 * {@code headroom} × the successes per second the provider admitted of the burst, from the throttle to the last
	 * of them; {@code NaN} when fewer than {@link AdaptiveRate#MIN_SAMPLE_RESPONSES} or no time separate them.
	 */
	double burstRate(double headroom) {
		long span = this.burstLastNanos - this.burstSince;
		if (this.burstAdmitted < AdaptiveRate.MIN_SAMPLE_RESPONSES || span <= 0) {
			return Double.NaN;
		}
		return headroom * this.burstAdmitted * NANOS_PER_SECOND / span;
	}

}
