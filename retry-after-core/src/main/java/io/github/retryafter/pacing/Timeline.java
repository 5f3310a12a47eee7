package io.github.retryafter.pacing;

/**
 * How the slots booked in one epoch moved since, as the rate changed within it: a slot booked for {@code s} now
 * comes at {@code origin + (s − origin) × scale + shift}. Each change by a factor {@code f} (the old rate over the
 * new) moves every slot still ahead to {@code now + (slot − now) × f}, so a backlog that booked its slots at one
 * rate drains at the next, in the order it booked them. A new epoch starts again from {@link #NONE}. Immutable.
 * @param originNanos the instant the differences are taken from (the first change's, so a ticker reading far from
 * zero loses no precision)
 * @param scale how much the booked spacing shrank (below 1) or stretched (above 1)
 * @param shiftNanos how far the slots moved besides
 */
record Timeline(long originNanos, double scale, double shiftNanos) {

	static final Timeline NONE = new Timeline(0, 1, 0);

	/** Where a slot booked for {@code bookedNanos} comes now. */
	long slot(long bookedNanos) {
		return (this == NONE) ? bookedNanos
				: this.originNanos + Math.round((bookedNanos - this.originNanos) * this.scale + this.shiftNanos);
	}

	/** The booking a slot that comes at {@code slotNanos} now stands for: the inverse of {@link #slot}. */
	long booked(long slotNanos) {
		return (this == NONE) ? slotNanos
				: this.originNanos + Math.round((slotNanos - this.originNanos - this.shiftNanos) / this.scale);
	}

	/** This timeline, then every slot ahead of {@code nowNanos} moved to {@code now + (slot − now) × factor}. */
	Timeline then(long nowNanos, double factor) {
		long origin = (this == NONE) ? nowNanos : this.originNanos;
		double shift = this.shiftNanos * factor + (nowNanos - origin) * (1 - factor);
		return new Timeline(origin, this.scale * factor, shift);
	}

	/** Where a lane's arrival time ahead of {@code nowNanos} moves by a change of {@code factor}. */
	static long moved(long tatNanos, long nowNanos, double factor) {
		return (tatNanos - nowNanos > 0) ? nowNanos + Math.round((tatNanos - nowNanos) * factor) : tatNanos;
	}

}
