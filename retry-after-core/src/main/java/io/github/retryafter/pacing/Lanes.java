package io.github.retryafter.pacing;

/**
 * The slot book's state: the epoch slots are booked in, both lanes' theoretical arrival times, until when fresh
 * requests are about, and how the slots booked in this epoch moved since. Immutable.
 * @param epoch the number of changes that voided reserved slots
 * @param retryTat the retry lane's theoretical arrival time
 * @param freshTat the fresh lane's theoretical arrival time
 * @param freshUntil until when retries keep to their share because a fresh request took a slot
 * @param timeline how the slots booked in this epoch moved since, as the rate changed within it
 */
record Lanes(long epoch, long retryTat, long freshTat, long freshUntil, Timeline timeline) {

	/** The next epoch: slots booked so far are void, and both lanes start at the instants given. */
	Lanes next(long retryTat, long freshTat) {
		return new Lanes(this.epoch + 1, retryTat, freshTat, this.freshUntil, Timeline.NONE);
	}

	Lanes withRetryTat(long tat) {
		return new Lanes(this.epoch, tat, this.freshTat, this.freshUntil, this.timeline);
	}

	Lanes withFreshTat(long tat) {
		return new Lanes(this.epoch, this.retryTat, tat, this.freshUntil, this.timeline);
	}

	Lanes withFreshUntil(long until) {
		return new Lanes(this.epoch, this.retryTat, this.freshTat, until, this.timeline);
	}

	/**
	 * The lanes' arrival times and every slot booked ahead of {@code nowNanos} moved by {@code factor} (the old rate
	 * over the new) within this epoch, so the holders keep their order.
	 */
	Lanes moved(long nowNanos, double factor) {
		return new Lanes(this.epoch, Timeline.moved(this.retryTat, nowNanos, factor),
				Timeline.moved(this.freshTat, nowNanos, factor), this.freshUntil, this.timeline.then(nowNanos, factor));
	}

}
