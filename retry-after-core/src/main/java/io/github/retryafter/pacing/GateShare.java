package io.github.retryafter.pacing;

/**
 * The share of its provider's capacity a gate paces for ({@code 1} alone, {@code 1/N} as one of a fleet's N
 * instances), and the settings that scale with it. Thread-safe: one volatile field, read without a lock and written
 * under the gate's lock.
 */
final class GateShare {

	private final PacingSettings settings;

	private volatile double share = 1.0;

	GateShare(PacingSettings settings) {
		this.settings = settings;
	}

	double get() {
		return this.share;
	}

	void set(double share) {
		this.share = share;
	}

	/** The most a quota may set and the base of the first throttle's rate. */
	double maxRate() {
		return this.settings.maxRate() * this.share;
	}

	/** The lowest rate. */
	double minRate() {
		return this.settings.minRate() * this.share;
	}

	/** The burst: at least one request. */
	long burst() {
		return Math.max(1, Math.round(this.settings.burst() * this.share));
	}

	/** The responses a measurement needs: at least {@link AdaptiveRate#MIN_SAMPLE_RESPONSES}. */
	int sampleResponses() {
		return (int) Math.max(AdaptiveRate.MIN_SAMPLE_RESPONSES, Math.round(AdaptiveRate.SAMPLE_RESPONSES * this.share));
	}

}
