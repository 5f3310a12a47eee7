package io.github.retryafter.boot.metrics;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.Ticker;

/**
 * Attempts and finished operations over a sliding window on a monotonic {@link Ticker}, and their ratio: the retry
 * amplification one instance sees for one provider.
 * <p>
 * The window is a ring of {@code buckets} buckets of {@code bucketWidth} each ({@link #standard(Ticker)}: 6 × 10 s).
 * A reading covers the bucket the ticker is in now plus the {@code buckets - 1} before it, so it spans between
 * {@code (buckets - 1) × bucketWidth} and {@code buckets × bucketWidth} of the most recent time (50 to 60 s for the
 * standard window). A count that arrives for a bucket that has already been recycled (a thread that read the ticker
 * just before a bucket boundary and recorded just after the ring wrapped around) is dropped.
 * <p>
 * Thread-safe and finely locked: each bucket has its own monitor, held only to add to or read its two counters, so
 * threads contend only when they record in the same bucket at the same moment.
 */
public final class AmplificationWindow {

	/** The standard bucket count. */
	public static final int STANDARD_BUCKETS = 6;

	/** The standard bucket width. */
	public static final Duration STANDARD_BUCKET_WIDTH = Duration.ofSeconds(10);

	private final Ticker ticker;

	private final long bucketNanos;

	private final Bucket[] ring;

	/**
	 * Creates a window.
	 * @param ticker the monotonic clock
	 * @param buckets how many buckets, at least 1
	 * @param bucketWidth the width of one bucket, positive
	 * @throws IllegalArgumentException if {@code buckets < 1} or the width is not positive
	 */
	public AmplificationWindow(Ticker ticker, int buckets, Duration bucketWidth) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		Objects.requireNonNull(bucketWidth, "bucketWidth");
		if (buckets < 1) {
			throw new IllegalArgumentException("buckets must be at least 1 but was " + buckets);
		}
		if (bucketWidth.isNegative() || bucketWidth.isZero()) {
			throw new IllegalArgumentException("bucketWidth must be positive but was " + bucketWidth);
		}
		this.bucketNanos = bucketWidth.toNanos();
		this.ring = new Bucket[buckets];
		for (int i = 0; i < buckets; i++) {
			this.ring[i] = new Bucket(Long.MIN_VALUE);
		}
	}

	/**
	 * Returns a window of {@value #STANDARD_BUCKETS} buckets of 10 seconds: the last 50 to 60 seconds.
	 * @param ticker the monotonic clock
	 * @return a new window
	 */
	public static AmplificationWindow standard(Ticker ticker) {
		return new AmplificationWindow(ticker, STANDARD_BUCKETS, STANDARD_BUCKET_WIDTH);
	}

	/**
	 * Returns the span the window covers at most.
	 * @return {@code buckets × bucketWidth}
	 */
	public Duration span() {
		return Duration.ofNanos(this.bucketNanos * this.ring.length);
	}

	/**
	 * Counts one attempt sent now.
	 */
	public void recordAttempt() {
		add(1, 0);
	}

	/**
	 * Counts one operation finished now.
	 */
	public void recordOperation() {
		add(0, 1);
	}

	/**
	 * Returns the attempts counted in the window.
	 * @return the attempts
	 */
	public long attempts() {
		return totals()[0];
	}

	/**
	 * Returns the operations counted in the window.
	 * @return the operations
	 */
	public long operations() {
		return totals()[1];
	}

	/**
	 * Returns the attempts sent divided by the operations finished in the window.
	 * @return the ratio, or {@link Double#NaN} when no operation finished in the window
	 */
	public double ratio() {
		long[] totals = totals();
		return (totals[1] > 0) ? (double) totals[0] / totals[1] : Double.NaN;
	}

	private void add(long attempts, long operations) {
		long slot = slot(this.ticker.read());
		Bucket bucket = this.ring[index(slot)];
		synchronized (bucket) {
			if (slot > bucket.slot) {
				bucket.slot = slot;
				bucket.attempts = 0;
				bucket.operations = 0;
			}
			if (slot == bucket.slot) {
				bucket.attempts += attempts;
				bucket.operations += operations;
			}
		}
	}

	private long[] totals() {
		long now = slot(this.ticker.read());
		long oldest = now - this.ring.length + 1;
		long attempts = 0;
		long operations = 0;
		for (Bucket bucket : this.ring) {
			synchronized (bucket) {
				if (bucket.slot >= oldest && bucket.slot <= now) {
					attempts += bucket.attempts;
					operations += bucket.operations;
				}
			}
		}
		return new long[] { attempts, operations };
	}

	private long slot(long nanos) {
		return Math.floorDiv(nanos, this.bucketNanos);
	}

	private int index(long slot) {
		return (int) Math.floorMod(slot, (long) this.ring.length);
	}

	@Override
	public String toString() {
		return "AmplificationWindow[" + this.ring.length + " x " + Duration.ofNanos(this.bucketNanos) + "]";
	}

	/** One bucket; guarded by its own monitor. */
	private static final class Bucket {

		private long slot;

		private long attempts;

		private long operations;

		Bucket(long slot) {
			this.slot = slot;
		}

	}

}
