package io.github.retryafter.pacing;

/**
 * What a request's admission reads of a paced gate, as one value: the adaptive rate and the slot book. They are one
 * value because they change together: a drop of the rate voids the slots booked (a new epoch), a rise within an epoch
 * moves them, and a reader without a lock must see a rate and the slots booked at it. Immutable; replaced whole under
 * the gate's lock.
 * @param rate the adaptive rate
 * @param lanes the slot book
 */
record Pace(Rate rate, Lanes lanes) {

	/** A new gate's: the rate limit off, both lanes at {@code nowNanos}. */
	static Pace initial(long nowNanos) {
		return new Pace(Rate.off(nowNanos), new Lanes(0, nowNanos, nowNanos, nowNanos, Timeline.NONE));
	}

	boolean engaged() {
		return this.rate.engaged();
	}

	double perSecond() {
		return this.rate.perSecond();
	}

	Pace with(Rate next) {
		return new Pace(next, this.lanes);
	}

	Pace with(Lanes next) {
		return new Pace(this.rate, next);
	}

	/** The rate moved to {@code next} within this epoch: slots booked ahead move with it, in their order. */
	Pace movedTo(double next, long nowNanos) {
		return new Pace(this.rate.movedTo(next), this.lanes.moved(nowNanos, perSecond() / next));
	}

	/** The rate, its curve and its quota multiplied by {@code by} within this epoch, the slots moved by {@code 1/by}. */
	Pace rerated(double by, long nowNanos) {
		return new Pace(this.rate.rerated(by), this.lanes.moved(nowNanos, 1 / by));
	}

}
