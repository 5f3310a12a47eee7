package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;
import static io.github.retryafter.pacing.Ticks.earlier;
import static io.github.retryafter.pacing.Ticks.later;

/**
 * A measurement of what the provider admits, started by a refusal (so its bucket was empty): the responses to
 * requests sent since {@code startNanos}. Immutable.
 * @param startNanos when it started
 * @param admitted successes counted
 * @param refused refusals counted
 * @param lastSentNanos the latest send among them
 * @param firstSentNanos the earliest send among them ({@code countFromNanos} before the first)
 * @param countFromNanos requests sent from then on are counted: the start, or the last arrival of a response to a
 * request sent before it
 */
record Sample(long startNanos, int admitted, int refused, long lastSentNanos, long firstSentNanos, long countFromNanos) {

	/** A measurement that starts now, with nothing counted. */
	static Sample startingAt(long nowNanos) {
		return new Sample(nowNanos, 0, 0, nowNanos, nowNanos, nowNanos);
	}

	Sample admitted(long sentAtNanos) {
		return new Sample(this.startNanos, this.admitted + 1, this.refused, later(this.lastSentNanos, sentAtNanos),
				firstSent(sentAtNanos), this.countFromNanos);
	}

	Sample refused(long sentAtNanos) {
		return new Sample(this.startNanos, this.admitted, this.refused + 1, later(this.lastSentNanos, sentAtNanos),
				firstSent(sentAtNanos), this.countFromNanos);
	}

	/** The counts start again from {@code nowNanos}, within the same span. */
	Sample recountFrom(long nowNanos) {
		return new Sample(this.startNanos, 0, 0, later(this.lastSentNanos, nowNanos), nowNanos, nowNanos);
	}

	private long firstSent(long sentAtNanos) {
		return (this.admitted + this.refused == 0) ? sentAtNanos : earlier(this.firstSentNanos, sentAtNanos);
	}

	/** The responses counted. */
	int responses() {
		return this.admitted + this.refused;
	}

	/**
	 * The successes per second the provider admitted, over the span of the counted requests' sends, from the first
	 * to the last (see docs/pacing.md); from the count's start when fewer than two sends or no time separate them.
	 */
	double admittedPerSecond() {
		return this.admitted * NANOS_PER_SECOND / sendSpanNanos();
	}

	/** The requests per second the counted requests were sent at, over the span {@link #admittedPerSecond} uses. */
	double sentPerSecond() {
		return responses() * NANOS_PER_SECOND / sendSpanNanos();
	}

	private long sendSpanNanos() {
		long sendSpan = this.lastSentNanos - this.firstSentNanos;
		return (responses() < 2 || sendSpan <= 0) ? Math.max(1, this.lastSentNanos - this.countFromNanos) : sendSpan;
	}

	long spanNanos() {
		return this.lastSentNanos - this.startNanos;
	}

	boolean complete(int responses) {
		return responses() >= responses || spanNanos() >= AdaptiveRate.SAMPLE_SPAN.toNanos();
	}

}
