package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;
import static io.github.retryafter.pacing.Ticks.later;

import java.util.Arrays;

/**
 * What a provider that admits some requests and refuses others with a wait longer than a second ({@code Retry-After}
 * or a vendor's wait field) is known to admit, such as a window (sliding or fixed) that admits its share at once and
 * asks every refused request to come back after a wait as long as the window or longer. Such a refusal caps the rate
 * at what the provider admitted over that wait ({@link #cap}); a whole cycle of the window, from the first success
 * after such refusals to the first success of a request sent after the next, measures it ({@link #admitted}); and the
 * rate does not grow for a while after either ({@link #holdUntilNanos}): above what the window admits, every request
 * sent buys a refusal that costs it the whole wait. docs/pacing.md has the figures. Not thread-safe: guarded by the
 * gate's lock.
 */
final class HintedRefusals {

	/** The width of one bucket of the recent successes' count. */
	static final long BUCKET_NANOS = 100_000_000L;

	/** How many buckets the recent successes' count keeps: 6.4 s. */
	static final int BUCKETS = 64;

	/** How many of its waits a window's measured cycle holds the rate's growth for. */
	static final int CYCLE_HOLD = 4;

	// per gate, made on the first success while the rate is on: successes per 100 ms, the last 64 (a ring by bucket)
	private int[] recent;

	private long recentBucket;

	// the rate's last change the count below started at, and the successes that arrived since
	private long changeNanos;

	private int sinceChange;

	// the cycle: its first success, the successes since, and whether (and when first) a hinted refusal came since
	private long cycleStartNanos;

	private int cycleAdmitted;

	private boolean cycleRefused;

	private long cycleRefusedNanos;

	// the last wait a refusal asked for, the floor a cap sets for the measurement it starts (0 when none), and until when
	// the rate does not grow
	private long waitNanos;

	private double floor;

	private long holdUntilNanos;

	HintedRefusals(long nowNanos) {
		this.holdUntilNanos = nowNanos;
		this.changeNanos = nowNanos;
		this.cycleStartNanos = nowNanos;
	}

	/**
	 * The longest wait a refusal may ask for and still be read as the shortest the field can say (one second, in
	 * {@code Retry-After}'s whole seconds): such a refusal only lowers the rate, as any refusal of a provider that is
	 * admitting does, and the measurement it starts sets it. A longer wait is the window's.
	 */
	static final long SHORT_WAIT_NANOS = 1_000_000_000L;

	/** Whether a refusal asked for a wait longer than {@link #SHORT_WAIT_NANOS}. */
	static boolean hinted(long waitNanos) {
		return waitNanos > SHORT_WAIT_NANOS;
	}

	/**
	 * Counts a success that arrived at {@code nowNanos} of a request sent at {@code sentAtNanos}, the rate having
	 * last changed at {@code changeNanos}; a success that ends a cycle returns the cycle's successes per second.
	 * @param openSinceNanos when the gate last opened: a cycle that spanned a cooldown measures nothing, and the first
	 * success after it starts one
	 * @return the successes per second of the cycle this success ended, {@code NaN} when it ended none
	 */
	double admitted(long sentAtNanos, long nowNanos, long changeNanos, long openSinceNanos) {
		if (changeNanos != this.changeNanos) {
			this.changeNanos = changeNanos;
			this.sinceChange = 0;
		}
		if (nowNanos - changeNanos >= 0) {
			this.sinceChange++;
		}
		long bucket = Math.floorDiv(nowNanos, BUCKET_NANOS);
		if (this.recent == null) {
			this.recent = new int[BUCKETS];
			this.recentBucket = bucket;
		}
		advance(bucket);
		this.recent[(int) Math.floorMod(bucket, (long) BUCKETS)]++;
		return cycle(sentAtNanos, nowNanos, openSinceNanos);
	}

	/**
	 * A refusal that asked for {@code waitNanos}, arriving at {@code nowNanos} from a provider that is admitting: one
	 * with a wait longer than a second ends the cycle in progress at the next success of a request sent after it.
	 */
	void refused(long nowNanos, long waitNanos) {
		if (!hinted(waitNanos)) {
			return;
		}
		this.waitNanos = waitNanos;
		if (!this.cycleRefused) {
			this.cycleRefused = true;
			this.cycleRefusedNanos = nowNanos;
		}
	}

	/**
	 * The rate a first refusal that asked for {@code waitNanos} caps a rate that last changed at {@code changeNanos}
	 * at: {@link AdaptiveRate#HEADROOM} × the most successes per second the provider admitted since that change, over
	 * at least the wait, or over the wait just past; infinite for a wait of a second or less.
	 */
	double cap(long changeNanos, long nowNanos, long waitNanos) {
		if (!hinted(waitNanos)) {
			return Double.POSITIVE_INFINITY;
		}
		int sinceChange = (changeNanos == this.changeNanos) ? this.sinceChange : 0;
		double overChange = sinceChange * NANOS_PER_SECOND / Math.max(1, Math.max(waitNanos, nowNanos - changeNanos));
		return AdaptiveRate.HEADROOM * Math.max(overChange, lately(nowNanos, waitNanos));
	}

	/**
	 * The rate was capped at {@code rate} now: the measurement the cap starts concludes no lower, and the rate does not
	 * grow while the refused request waits.
	 */
	void capped(double rate, long nowNanos, long waitNanos) {
		this.floor = rate;
		this.holdUntilNanos = later(this.holdUntilNanos, nowNanos + waitNanos);
	}

	/**
	 * The rate was raised to {@code rate} by a cycle: a measurement under way concludes no lower, and the rate does
	 * not grow for {@link #CYCLE_HOLD} of the last wait a refusal asked for.
	 */
	void cycled(double rate, long nowNanos) {
		if (this.floor > 0) {
			this.floor = Math.max(this.floor, rate);
		}
		this.holdUntilNanos = later(this.holdUntilNanos, nowNanos + CYCLE_HOLD * this.waitNanos);
	}

	/** The floor the measurement a cap started concludes at, once (0 without one); the measurement is over. */
	double concludeFloor() {
		double floor = this.floor;
		this.floor = 0;
		return floor;
	}

	/** Another decrease replaced a cap's: its measurement keeps no floor. */
	void forgetFloor() {
		this.floor = 0;
	}

	/** Until when the rate does not grow. */
	long holdUntilNanos() {
		return this.holdUntilNanos;
	}

	private double cycle(long sentAtNanos, long nowNanos, long openSinceNanos) {
		boolean spannedCooldown = openSinceNanos - this.cycleStartNanos > 0;
		if (!spannedCooldown && (!this.cycleRefused || sentAtNanos - this.cycleRefusedNanos <= 0)) {
			this.cycleAdmitted++;
			return Double.NaN;
		}
		double admitted = (this.cycleRefused && !spannedCooldown && this.cycleAdmitted >= 2
				&& nowNanos - this.cycleStartNanos > 0)
				? this.cycleAdmitted * NANOS_PER_SECOND / (nowNanos - this.cycleStartNanos) : Double.NaN;
		this.cycleStartNanos = nowNanos;
		this.cycleAdmitted = 1;
		this.cycleRefused = false;
		return admitted;
	}

	/**
	 * The successes per second the provider admitted over the last {@code waitNanos}, from the start of the bucket
	 * holding its beginning (at most 6.4 s back).
	 */
	private double lately(long nowNanos, long waitNanos) {
		if (this.recent == null) {
			return 0;
		}
		long bucket = Math.floorDiv(nowNanos, BUCKET_NANOS);
		advance(bucket);
		int buckets = (int) Math.min(BUCKETS, bucket - Math.floorDiv(nowNanos - waitNanos, BUCKET_NANOS) + 1);
		long admitted = 0;
		for (int i = 0; i < buckets; i++) {
			admitted += this.recent[(int) Math.floorMod(bucket - i, (long) BUCKETS)];
		}
		return admitted * NANOS_PER_SECOND / Math.max(1, nowNanos - (bucket - buckets + 1) * BUCKET_NANOS);
	}

	/** Clears the buckets that passed since the last count, up to {@code bucket}. */
	private void advance(long bucket) {
		if (bucket - this.recentBucket >= BUCKETS) {
			Arrays.fill(this.recent, 0);
		}
		else {
			for (long b = this.recentBucket + 1; b - bucket <= 0; b++) {
				this.recent[(int) Math.floorMod(b, (long) BUCKETS)] = 0;
			}
		}
		if (bucket - this.recentBucket > 0) {
			this.recentBucket = bucket;
		}
	}

}
