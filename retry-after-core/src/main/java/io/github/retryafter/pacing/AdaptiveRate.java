package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.NANOS_PER_SECOND;
import static io.github.retryafter.pacing.Ticks.later;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Ticker;
import io.github.retryafter.internal.Saturating;

/**
 * A gate's adaptive rate: turned on by a throttle or an announced quota, lowered by refusals in proportion to the
 * overshoot a measurement finds, grown by successes (doubling, or CUBIC around a measured capacity), and let go at
 * {@code maxRate}. How and why is in docs/pacing.md. Thread-safe with its gate: its {@link Rate} lives in the gate's
 * {@link Pace}, read without a lock; every change is made under the gate's lock, and a change of the rate moves the
 * slot book's lanes in the same step.
 */
final class AdaptiveRate {

	/** Responses a measurement of the provider's admissions needs, unless it spans {@link #SAMPLE_SPAN} first. */
	static final int SAMPLE_RESPONSES = 32;

	/** The fewest responses a measurement of a gate with a small share needs. */
	static final int MIN_SAMPLE_RESPONSES = 4;

	/** The longest a measurement of the provider's admissions runs before it concludes on what it has. */
	static final Duration SAMPLE_SPAN = Duration.ofSeconds(1);

	/** The share of a measured capacity the rate is set to, leaving the provider room for jitter in arrivals. */
	static final double HEADROOM = 0.95;

	private final PacingSettings settings;

	private final Ticker ticker;

	private final GateShare share;

	private final SlotBook book;

	private final Cooldown cooldown;

	private final AtomicReference<Pace> state;

	private final AtomicInteger queued;

	private final Object lock;

	// what the provider admitted lately and of the first throttle's burst, guarded by lock
	private final AdmissionCounts counts = new AdmissionCounts();

	// the successes lately, counted on every success without a lock (the rate on or off)
	private final RecentSuccesses recent = new RecentSuccesses();

	// what a provider refusing with a wait while it admits others admits, guarded by lock
	private final HintedRefusals hinted;

	AdaptiveRate(PacingSettings settings, Ticker ticker, GateShare share, SlotBook book, Cooldown cooldown,
			AtomicReference<Pace> state, AtomicInteger queued, Object lock) {
		this.settings = settings;
		this.ticker = ticker;
		this.share = share;
		this.book = book;
		this.cooldown = cooldown;
		this.state = state;
		this.queued = queued;
		this.lock = lock;
		this.hinted = new HintedRefusals(this.recent, state.get().rate().lastDecreaseNanos());
	}

	/** See {@link ProviderGate#absorbs}: reads without a lock. */
	boolean absorbs(int status, Optional<Duration> floor) {
		Rate current = this.state.get().rate();
		return status == 429 && current.admitting() && this.cooldown.until() - this.ticker.read() <= 0;
	}

	/** See {@link ProviderGate#onThrottle(long, long)}. */
	void onThrottle(long sentAtNanos, long nowNanos) {
		onThrottle(sentAtNanos, nowNanos, 0);
	}

	/** See {@link ProviderGate#onThrottle(long, long, Optional)}: {@code waitNanos} 0 without a hint. */
	void onThrottle(long sentAtNanos, long nowNanos, long waitNanos) {
		synchronized (this.lock) {
			Pace current = this.state.get();
			Rate rate = current.rate();
			if (rate.engaged() && sentAtNanos - rate.lastDecreaseNanos() <= 0) {
				if (rate.sample() != null && sentAtNanos - rate.sample().countFromNanos() < 0) {
					recount(current, rate.sample(), sentAtNanos, nowNanos);
				}
				return;
			}
			boolean open = this.cooldown.until() - nowNanos <= 0;
			if (rate.admitting() && open) {
				onRefusal(current, sentAtNanos, nowNanos, waitNanos);
				return;
			}
			if (rate.engaged() && !rate.admittedSinceDecrease()) {
				return;
			}
			if (!rate.engaged()) {
				// the rate turns on: count what the provider admits of the requests already on their way
				this.counts.startBurst(nowNanos);
			}
			this.state.set(decreased(current, nowNanos));
		}
	}

	/**
	 * A throttle from a provider that is down or while a cooldown is in force: the rate turns on at
	 * {@code decreaseFactor × maxRate}, or drops by {@code decreaseFactor} (unless a quota set it), and both lanes
	 * restart at the cooldown's end in a new epoch.
	 */
	private Pace decreased(Pace current, long nowNanos) {
		Rate rate = current.rate();
		double before = rate.engaged() ? rate.perSecond() : this.share.maxRate();
		boolean quotaPaced = rate.engaged() && rate.quotaPaced();
		double next = quotaPaced ? before : Math.max(this.share.minRate(), before * this.settings.decreaseFactor());
		long restart = later(nowNanos, this.cooldown.until());
		Curve curve = new Curve(next, before, next, rate.curve().measured(), nowNanos);
		return new Pace(new Rate(true, curve, nowNanos, false, null, rate.quota(), quotaPaced),
				current.lanes().next(restart, restart));
	}

	/**
	 * A throttle while the provider is admitting: start a measurement, count a refusal, or set the measured rate. A
	 * first refusal that asked for a wait longer than a second also caps the rate at what the provider admitted over
	 * that wait ({@link HintedRefusals#cap}), unless the rate sits at a measured capacity.
	 */
	private void onRefusal(Pace current, long sentAtNanos, long nowNanos, long waitNanos) {
		long wait = Math.min(waitNanos, Saturating.toNanos(this.settings.maxCooldown()));
		this.hinted.refused(sentAtNanos, nowNanos, wait);
		Rate rate = current.rate();
		Sample sample = rate.sample();
		if (sample == null) {
			Sample started = Sample.startingAt(nowNanos);
			boolean atCapacity = rate.curve().measured() && rate.perSecond() <= rate.curve().target();
			double next = atCapacity ? rate.perSecond() : rate.perSecond() * this.settings.decreaseFactor();
			// at a measured capacity (a window's cycle measured it) a refusal is the spacing's jitter: the measurement
			// it starts trims the rate by the share refused
			double cap = atCapacity ? Double.POSITIVE_INFINITY
					: this.hinted.cap(rate.lastDecreaseNanos(), nowNanos, wait);
			if (cap < next) {
				double capped = Math.max(this.share.minRate(), cap);
				this.hinted.capped(capped, nowNanos, wait);
				this.state.set(restarted(current, capped, capped, true, nowNanos, started));
				return;
			}
			this.hinted.forgetFloor();
			this.state.set(atCapacity ? current.with(rate.measuring(started, nowNanos))
					: restarted(current, Math.max(this.share.minRate(), next), rate.perSecond(),
							rate.curve().measured(), nowNanos, started));
			return;
		}
		if (sentAtNanos - sample.countFromNanos() < 0) {
			recount(current, sample, sentAtNanos, nowNanos);
			return;
		}
		Sample counted = sample.refused(sentAtNanos);
		if (!counted.complete(this.share.sampleResponses())) {
			this.state.set(current.with(rate.withSample(counted)));
			return;
		}
		this.state.set(concluded(current, counted, nowNanos));
	}

	/**
	 * A response to a request sent before the measurement counts from arrived during it: that request took what the
	 * provider had to give while the counted ones were on their way, so the count starts again from now (under the
	 * lock). The measurement still ends within {@link #SAMPLE_SPAN} of its start.
	 */
	private void recount(Pace current, Sample sample, long sentAtNanos, long nowNanos) {
		// only a request sent before the measurement started: one sent since, before the count's start, is not counted
		if (sentAtNanos - sample.startNanos() < 0) {
			this.state.set(current.with(current.rate().withSample(sample.recountFrom(nowNanos))));
		}
	}

	/**
	 * A measurement that is complete: a refused share within the headroom trims the rate by that share (now a
	 * measured capacity); a larger one sets it to {@code HEADROOM ×} the admitted successes per second; none at all
	 * keeps the rate, as the new start of its growth. Under the lock: a trim moves the send lane too.
	 */
	private Pace concluded(Pace current, Sample sample, long nowNanos) {
		Rate rate = current.rate();
		double floor = this.hinted.concludeFloor();
		if (sample.refused() == 0) {
			return current.with(rate.afterSample(rate.perSecond(), rate.curve().measured(), nowNanos));
		}
		double refusedShare = sample.refused() / (double) sample.responses();
		if (refusedShare <= 1.0 - HEADROOM) {
			// within the headroom the rate is a measured capacity, less the share the provider refused
			double at = Math.max(this.share.minRate(), rate.perSecond() * (1 - refusedShare));
			if (at >= rate.perSecond()) {
				return current.with(rate.afterSample(rate.perSecond(), true, nowNanos));
			}
			this.book.moveSendLane(nowNanos, rate.perSecond() / at);
			Pace moved = current.movedTo(at, nowNanos);
			return moved.with(moved.rate().afterSample(at, true, nowNanos));
		}
		double measured = sample.admittedPerSecond() * HEADROOM;
		boolean fewResponses = this.share.get() < 1 && sample.responses() < SAMPLE_RESPONSES;
		// requests sent at less than half the rate: the demand, not the provider, set what was admitted
		boolean demandLimited = sample.sentPerSecond() < rate.perSecond() / 2;
		if (fewResponses || demandLimited) {
			// either conclusion lowers the rate by decreaseFactor at most, and a refusal after it measures again
			measured = Math.max(measured, rate.perSecond() * this.settings.decreaseFactor());
		}
		double next = Math.max(this.share.minRate(), Math.min(rate.perSecond(), measured));
		// a cap is what the provider admitted over its wait: a window still full when it was set lowers it no further
		next = Math.max(next, floor);
		Pace restarted = restarted(current, next, next, true, nowNanos, null);
		// a measurement the provider admitted nothing of: it is not admitting, so its next refusal closes the gate
		return (sample.admitted() > 0) ? restarted : restarted.with(restarted.rate().refusedSinceDecrease());
	}

	/**
	 * A new epoch at {@code rate} after a refusal from a provider that is admitting (so its refusals stay rate
	 * signals): held slots are void and both lanes restart now without a burst.
	 */
	private Pace restarted(Pace current, double rate, double target, boolean measured, long nowNanos, Sample sample) {
		Rate next = new Rate(true, Curve.at(rate, target, measured, nowNanos), nowNanos, true, sample,
				current.rate().quota(), false);
		return new Pace(next, this.book.restarted(current.lanes(), rate, nowNanos));
	}

	/** See {@link ProviderGate#onSuccess(long, long)}. */
	void onSuccess(long sentAtNanos, long nowNanos) {
		this.recent.add(nowNanos);
		if (!this.state.get().engaged()) {
			return;
		}
		synchronized (this.lock) {
			Pace current = this.state.get();
			if (!current.engaged()) {
				return;
			}
			this.counts.meter(nowNanos);
			double cycle = this.hinted.admitted(sentAtNanos, nowNanos, current.rate().lastDecreaseNanos(),
					this.cooldown.closedAt());
			if (cycle * HEADROOM > current.perSecond()) {
				current = cycled(current, cycle * HEADROOM, nowNanos);
			}
			if (this.counts.burstComplete(sentAtNanos, nowNanos)) {
				Pace capped = burstCapped(current, nowNanos);
				if (capped != null) {
					this.state.set(capped);
					return;
				}
			}
			Sample sample = current.rate().sample();
			if (sample != null) {
				measure(current, sample, sentAtNanos, nowNanos);
			}
			else if (!current.rate().admittedSinceDecrease()) {
				this.state.set(current.with(current.rate().admitted(nowNanos)));
			}
			else {
				grow(current, nowNanos);
			}
		}
	}

	/**
	 * The rate raised to what a window that refuses with a wait admitted over its last whole cycle, from the
	 * first success after such refusals to the first after the next (under the lock): sent faster than it admits, a
	 * window admits its count per cycle, which a count over the refusal's wait reads low when the window is shorter
	 * than the wait. Slots ahead move with it; a measurement under way concludes no lower.
	 */
	private Pace cycled(Pace current, double admitted, long nowNanos) {
		double next = Math.min(this.share.maxRate(), admitted);
		this.book.moveSendLane(nowNanos, current.perSecond() / next);
		Pace moved = current.movedTo(next, nowNanos);
		moved = moved.with(new Rate(true, Curve.at(next, next, true, nowNanos), moved.rate().lastDecreaseNanos(),
				moved.rate().admittedSinceDecrease(), moved.rate().sample(), moved.rate().quota(), moved.rate().quotaPaced()));
		this.hinted.cycled(next, nowNanos);
		this.state.set(moved);
		return moved;
	}

	/** A success during a measurement (under the lock): counted, or a count restarted. */
	private void measure(Pace current, Sample sample, long sentAtNanos, long nowNanos) {
		if (sentAtNanos - sample.countFromNanos() < 0) {
			recount(current, sample, sentAtNanos, nowNanos);
			return;
		}
		Sample counted = sample.admitted(sentAtNanos);
		this.state.set(counted.complete(this.share.sampleResponses()) ? concluded(current, counted, nowNanos)
				: current.with(current.rate().withSample(counted).admitted(nowNanos)));
	}

	/**
	 * A success that grows the rate along its curve (under the lock), while the rate is what limits the sending;
	 * capped by a quota and by twice the successes per second lately admitted; let go at {@code maxRate} once the
	 * backlog fits in a burst.
	 */
	private void grow(Pace current, long nowNanos) {
		Rate rate = current.rate();
		if (!this.book.limited(current, nowNanos)) {
			// application-limited (RFC 7661): the rate is not in use, so it is no evidence of room above it
			if (grown(rate, nowNanos) > rate.perSecond() * 1.01) {
				this.state.set(current.with(rate.regrowFrom(nowNanos)));
			}
			return;
		}
		double grown = grown(rate, nowNanos);
		if (rate.quota() > 0) {
			grown = Math.min(grown, rate.quota());
		}
		double admitted = this.counts.meterRate();
		if (!Double.isNaN(admitted)) {
			grown = Math.min(grown, Math.max(rate.perSecond(), 2 * admitted));
		}
		if (grown >= this.settings.maxRate() && backlogFits()) {
			this.state.set(off(current, nowNanos));
			return;
		}
		// a backlog larger than a burst drains at the ceiling, not all at once into the client's pool
		grown = Math.min(grown, this.settings.maxRate());
		if (grown > rate.perSecond() * 1.01) {
			this.book.moveSendLane(nowNanos, rate.perSecond() / grown);
			this.state.set(current.movedTo(grown, nowNanos));
		}
	}

	/**
	 * The rate along its curve since the first success after the last change, or the end of a cooldown since (the
	 * rate does not grow while the gate is closed), or the end of the hold after a hinted refusal; never below the floor.
	 */
	private double grown(Rate rate, long nowNanos) {
		long from = later(later(rate.curve().growthStartNanos(), this.cooldown.until()),
				this.hinted.holdUntilNanos());
		return Math.max(this.share.minRate(), rate.curve().grown(this.settings.growthScale(), from, nowNanos));
	}

	/**
	 * The rate the first throttle turned on capped at {@link #HEADROOM} × what the provider admitted of the burst
	 * that throttle cut short (see docs/pacing.md); {@code null} to keep it: a quota or a measurement set it, the
	 * count is too small, or it admitted more than the rate.
	 */
	private Pace burstCapped(Pace current, long nowNanos) {
		Rate rate = current.rate();
		if (rate.quotaPaced() || rate.curve().measured() || rate.sample() != null) {
			return null;
		}
		double admitted = this.counts.burstRate(HEADROOM);
		if (Double.isNaN(admitted) || admitted >= rate.perSecond()) {
			return null;
		}
		double capped = Math.max(this.share.minRate(), admitted);
		Lanes lanes = current.lanes();
		return new Pace(new Rate(true, Curve.at(capped, capped, false, nowNanos), nowNanos, true, null, rate.quota(), false),
				lanes.next(later(lanes.retryTat(), nowNanos), later(lanes.freshTat(), nowNanos)));
	}

	/** The rate limit off: every request goes, until the next throttle or quota. */
	private static Pace off(Pace current, long nowNanos) {
		Rate rate = current.rate();
		return new Pace(new Rate(false, Curve.none(nowNanos), rate.lastDecreaseNanos(), false, null, rate.quota(), false),
				current.lanes().next(nowNanos, nowNanos));
	}

	/** See {@link ProviderGate#onQuota}. */
	void onQuota(double perSecond, long remaining, long nowNanos) {
		onQuota(perSecond, remaining, nowNanos, true);
	}

	/** See {@link ProviderGate#onQuota} and {@link ProviderGate#onWindows}: {@code letGo} when roomy or not. */
	void onQuota(double perSecond, long remaining, long nowNanos, boolean letGo) {
		if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
			return;
		}
		double quota = Math.max(this.share.minRate(), Math.min(this.share.maxRate(), perSecond * this.share.get() * HEADROOM));
		long burst = this.settings.burst();
		boolean low = remaining <= burst;
		boolean roomy = letGo && remaining > 4 * burst;
		Rate seen = this.state.get().rate();
		if (seen.engaged() ? (seen.quota() == quota && seen.perSecond() <= quota
				&& !(seen.quotaPaced() && (roomy || (!letGo && seen.perSecond() < quota)))) : !low) {
			return;
		}
		synchronized (this.lock) {
			Pace current = this.state.get();
			Rate rate = current.rate();
			if (!rate.engaged()) {
				if (low) {
					this.state.set(quotaPaced(current, quota, nowNanos));
				}
				return;
			}
			if (!letGo && rate.quotaPaced()) {
				// windows: the rate they set follows them both ways within its epoch, slots kept in their order, and
				// no new burst (a new epoch per response would hand one out with every answer)
				this.book.moveSendLane(nowNanos, rate.perSecond() / quota);
				Pace moved = current.movedTo(quota, nowNanos);
				this.state.set(moved.with(moved.rate().withQuota(quota)));
			}
			else if (rate.quotaPaced() && roomy && backlogFits()) {
				this.state.set(off(current, nowNanos));
			}
			else if (rate.perSecond() > quota && (low || rate.quotaPaced())) {
				this.state.set(quotaPaced(current, quota, nowNanos));
			}
			else {
				this.state.set(current.with(rate.withQuota(quota)));
			}
		}
	}

	/** A new epoch paced at an announced quota: the lanes start now, with their burst. */
	private static Pace quotaPaced(Pace current, double quota, long nowNanos) {
		Rate rate = new Rate(true, Curve.at(quota, quota, true, nowNanos), nowNanos, true, null, quota, true);
		return new Pace(rate, current.lanes().next(nowNanos, nowNanos));
	}

	/** See {@link FleetGate#share(double)}. */
	void share(double share) {
		synchronized (this.lock) {
			double before = this.share.get();
			this.share.set(share);
			Pace current = this.state.get();
			if (current.engaged()) {
				long nowNanos = this.ticker.read();
				double rate = Math.max(this.share.minRate(), Math.min(this.share.maxRate(), current.perSecond() * (share / before)));
				rerate(current, rate, nowNanos);
			}
		}
	}

	/** See {@link FleetGate#paceAt(double, long)}. */
	void paceAt(double perSecond, long nowNanos) {
		if (!(perSecond > 0) || Double.isInfinite(perSecond) || !this.state.get().engaged()) {
			return;
		}
		synchronized (this.lock) {
			Pace current = this.state.get();
			Rate rate = current.rate();
			if (!rate.engaged() || rate.quotaPaced() || rate.sample() != null) {
				return;
			}
			double next = Math.max(this.share.minRate(), Math.min(this.share.maxRate(), perSecond));
			if (Math.abs(next / rate.perSecond() - 1) < 0.05) {
				return;
			}
			rerate(current, next, nowNanos);
		}
	}

	/** The rate, its curve, its quota, the lanes and the send lane moved to {@code rate} (under the lock). */
	private void rerate(Pace current, double rate, long nowNanos) {
		this.book.moveSendLane(nowNanos, current.perSecond() / rate);
		this.state.set(current.rerated(rate / current.perSecond(), nowNanos));
	}

	/** Whether the requests held here fit in one burst, so the rate limit may let go without releasing a flood. */
	private boolean backlogFits() {
		return this.queued.get() <= this.settings.burst();
	}

}
