package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;
import static io.github.retryafter.pacing.Ticks.later;

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

	/** How many of its waits a window's measured cycle holds the rate's growth for. */
	static final int CYCLE_HOLD = 4;

	// the gate's successes lately, counted with the rate on or off (shared with the gate's success path)
	private final RecentSuccesses recent;

	// the rate's last change the count below started at, and the successes that arrived since
	private long changeNanos;

	private int sinceChange;

	// the cycle: when its first success was sent, the successes since, whether (and when first) a hinted refusal came
	// since, and when the last request refused since it started was sent
	private long cycleStartNanos;

	private int cycleAdmitted;

	private boolean cycleRefused;

	private long cycleRefusedNanos;

	private long lastRefusedSentNanos;

	// the last wait a refusal asked for, the floor a cap sets for the measurement it starts (0 when none), and until when
	// the rate does not grow
	private long waitNanos;

	private double floor;

	private long holdUntilNanos;

	HintedRefusals(RecentSuccesses recent, long nowNanos) {
		this.recent = recent;
		this.holdUntilNanos = nowNanos;
		this.changeNanos = nowNanos;
		this.cycleStartNanos = nowNanos;
		this.lastRefusedSentNanos = nowNanos;
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
	 * @param closedAtNanos when the gate's latest cooldown began: a cycle whose first request was sent before it
	 * spanned a cooldown and measures nothing, and the first success after it starts one
	 * @return the successes per second of the cycle this success ended, {@code NaN} when it ended none
	 */
	double admitted(long sentAtNanos, long nowNanos, long changeNanos, long closedAtNanos) {
		if (changeNanos != this.changeNanos) {
			this.changeNanos = changeNanos;
			this.sinceChange = 0;
		}
		if (nowNanos - changeNanos >= 0) {
			this.sinceChange++;
		}
		return cycle(sentAtNanos, nowNanos, closedAtNanos);
	}

	/**
	 * A refusal that asked for {@code waitNanos}, arriving at {@code nowNanos} for a request sent at
	 * {@code sentAtNanos}, from a provider that is admitting: one with a wait longer than a second ends the cycle in
	 * progress at the next success of a request sent after it, and the last request refused since the cycle started
	 * bounds the window's end from below.
	 */
	void refused(long sentAtNanos, long nowNanos, long waitNanos) {
		if (!hinted(waitNanos)) {
			return;
		}
		this.waitNanos = waitNanos;
		if (!this.cycleRefused) {
			this.cycleRefused = true;
			this.cycleRefusedNanos = nowNanos;
		}
		this.lastRefusedSentNanos = later(this.lastRefusedSentNanos, sentAtNanos);
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
		// a measurement under way concludes no lower, whether or not a cap started it (one that starts later sets or
		// forgets its own floor)
		this.floor = Math.max(this.floor, rate);
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

	/**
	 * Counts a success in the cycle in progress, or ends it. A cycle is timed by when its requests were sent, which
	 * is what a window sees (a model call's answer may take seconds to arrive): from its first success's sending to
	 * the window's end, which lies between the sending of the last request it refused and of the first it admitted
	 * again. Their midpoint is off by at most half the spacing of the requests either side; the first admitted alone
	 * reads the window long by up to a whole spacing, and the rate low by as much.
	 */
	private double cycle(long sentAtNanos, long nowNanos, long closedAtNanos) {
		// the gate closed after the cycle's first request was sent (a probe sent during the cooldown, and the requests
		// its answer releases, are one burst: the cooldown began before them)
		boolean spannedCooldown = closedAtNanos - this.cycleStartNanos > 0;
		if (!spannedCooldown && (!this.cycleRefused || sentAtNanos - this.cycleRefusedNanos <= 0)) {
			this.cycleAdmitted++;
			return Double.NaN;
		}
		long end = (this.lastRefusedSentNanos - this.cycleStartNanos > 0 && sentAtNanos - this.lastRefusedSentNanos > 0)
				? this.lastRefusedSentNanos + (sentAtNanos - this.lastRefusedSentNanos) / 2 : sentAtNanos;
		double admitted = Double.NaN;
		if (this.cycleRefused && !spannedCooldown && this.cycleAdmitted >= 2 && end - this.cycleStartNanos > 0) {
			admitted = this.cycleAdmitted * NANOS_PER_SECOND / (end - this.cycleStartNanos);
		}
		this.cycleStartNanos = sentAtNanos;
		this.lastRefusedSentNanos = sentAtNanos;
		this.cycleAdmitted = 1;
		this.cycleRefused = false;
		return admitted;
	}

	/** The successes per second the provider admitted over the last {@code waitNanos} (at most 6.4 s back). */
	private double lately(long nowNanos, long waitNanos) {
		return this.recent.perSecond(nowNanos, waitNanos);
	}

}
