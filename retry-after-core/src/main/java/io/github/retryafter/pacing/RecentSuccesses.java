package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The successes a gate saw lately, counted whether its rate is on or off, so that a refusal asking for a wait is
 * read against what the provider admitted over that wait, the successes before the rate turned on included: per
 * 100 ms bucket, the last {@link #BUCKETS} (6.4 s). Bounded: one fixed array per gate. Thread-safe and lock-free: a
 * count is one compare-and-set on its bucket's slot, which holds the bucket's number beside its count; a count that
 * arrives after its slot moved on to a later bucket is dropped, and a bucket's count saturates at 2<sup>24</sup> − 1.
 */
final class RecentSuccesses {

	/** The width of one bucket. */
	static final long BUCKET_NANOS = 100_000_000L;

	/** How many buckets are kept: 6.4 s. */
	static final int BUCKETS = 64;

	private static final int COUNT_BITS = 24;

	private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;

	// slot i: (bucket number << COUNT_BITS) | count, for the last bucket counted there (a ticker reading / 100 ms
	// fits in 37 bits, so the shifted number fits in a long); 0 for a slot never counted in
	private final AtomicLongArray slots = new AtomicLongArray(BUCKETS);

	/** Counts a success that arrived at {@code nowNanos}. */
	void add(long nowNanos) {
		long bucket = Math.floorDiv(nowNanos, BUCKET_NANOS);
		int slot = (int) Math.floorMod(bucket, (long) BUCKETS);
		long tag = bucket << COUNT_BITS;
		while (true) {
			long seen = this.slots.get(slot);
			long next;
			if (seen != 0 && (seen & ~COUNT_MASK) == tag) {
				next = ((seen & COUNT_MASK) == COUNT_MASK) ? seen : seen + 1;
			}
			else if (seen != 0 && (seen >> COUNT_BITS) - bucket > 0) {
				// the slot already counts a later bucket: this success is older than anything it could still add to
				return;
			}
			else {
				next = tag | 1;
			}
			if (next == seen || this.slots.compareAndSet(slot, seen, next)) {
				return;
			}
		}
	}

	/**
	 * The successes per second over the last {@code spanNanos} before {@code nowNanos}, counted from the start of
	 * the bucket holding the span's beginning (at most 6.4 s back); 0 when there were none.
	 */
	double perSecond(long nowNanos, long spanNanos) {
		long bucket = Math.floorDiv(nowNanos, BUCKET_NANOS);
		int buckets = (int) Math.max(1,
				Math.min(BUCKETS, bucket - Math.floorDiv(nowNanos - spanNanos, BUCKET_NANOS) + 1));
		long first = bucket - buckets + 1;
		long admitted = 0;
		for (long b = first; b - bucket <= 0; b++) {
			long seen = this.slots.get((int) Math.floorMod(b, (long) BUCKETS));
			if (seen != 0 && (seen >> COUNT_BITS) == b) {
				admitted += seen & COUNT_MASK;
			}
		}
		return admitted * NANOS_PER_SECOND / Math.max(1, nowNanos - first * BUCKET_NANOS);
	}

}
