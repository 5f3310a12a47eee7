package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.internal.Saturating;

/**
 * One scope's gate: a cooldown and an adaptive admission rate shared by every request of that {@link Scope} (a whole
 * provider, or one origin of a provider that keeps its state per origin). A {@code Retry-After} closes it until the
 * latest instant named ({@link #closeUntil}), one probe goes when it ends, and throttles and successes steer a rate
 * whose slots pace the requests after ({@link #admit}); docs/pacing.md says how and why. Thread-safe: reads take no
 * lock (the success path of an unthrottled provider reads two fields and writes nothing), writers take one lock per
 * gate.
 */
public final class ProviderGate {

	private final Scope scope;

	private final PacingSettings settings;

	private final Ticker ticker;

	/*
	 * One lock per gate, shared by its parts: a probe's answer opens the cooldown and the lanes together, a probe's
	 * turn books a slot, and a change of the rate moves the slots. Readers take no lock: under contention on one
	 * paced provider a lock for writers beat a compare-and-set loop (docs/performance.md).
	 */
	private final Object lock = new Object();

	// the rate and the slot book, read without a lock on every request and replaced whole under the lock
	private final AtomicReference<Pace> state;

	private final AtomicInteger queued = new AtomicInteger();

	final GateShare share;

	final Cooldown cooldown;

	final AdaptiveRate rate;

	private final SlotBook book;

	private final FleetGate fleet;

	/**
	 * Creates an open gate with its rate limit off.
	 * @param provider the provider's configured name, for messages
	 * @param settings how to pace it
	 * @param ticker the monotonic clock every instant is read on
	 */
	public ProviderGate(String provider, PacingSettings settings, Ticker ticker) {
		this(Scope.provider(provider), settings, ticker);
	}

	/**
	 * Creates an open gate with its rate limit off.
	 * @param scope the provider, and the origin when the gate is one origin's, for messages and reports
	 * @param settings how to pace it
	 * @param ticker the monotonic clock every instant is read on
	 */
	public ProviderGate(Scope scope, PacingSettings settings, Ticker ticker) {
		this.scope = Objects.requireNonNull(scope, "scope");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		long now = ticker.read();
		this.state = new AtomicReference<>(Pace.initial(now));
		this.share = new GateShare(settings);
		this.fleet = new GateFleetSide(this);
		this.book = new SlotBook(scope, settings, this.share, this.state, this.lock, now);
		this.cooldown = new Cooldown(scope, settings, ticker, this.lock, now, this.book::startBy, this::paced, this.fleet);
		this.rate = new AdaptiveRate(settings, ticker, this.share, this.book, this.cooldown, this.state, this.queued,
				this.lock);
	}

	/**
	 * Returns the provider's name.
	 * @return the name
	 */
	public String provider() {
		return this.scope.provider();
	}

	/**
	 * Returns whose gate this is.
	 * @return the provider, and the origin when the gate is one origin's
	 */
	public Scope scope() {
		return this.scope;
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public PacingSettings settings() {
		return this.settings;
	}

	/**
	 * Returns what a fleet store sees of this gate: its shared cooldown, its share of the provider and the fleet's
	 * probe.
	 * @return this gate's fleet side, the same object on every call
	 */
	public FleetGate fleet() {
		return this.fleet;
	}

	/**
	 * Closes the gate until {@code instantNanos}, but no longer than {@link PacingSettings#maxCooldown()} from now,
	 * unless it is already closed until later; a later instant extends it, an earlier one never shortens it, and one
	 * that has passed changes nothing. The earliest instant named since the provider last refused is kept for the
	 * early probe. Takes the gate's lock (a throttle, never a success).
	 * @param instantNanos the instant a {@code Retry-After} named, on the gate's ticker
	 */
	public void closeUntil(long instantNanos) {
		this.cooldown.closeUntil(instantNanos);
	}

	/**
	 * Opens the gate now: ends the cooldown, forgets any probe and turns the rate limit off (an operator's escape
	 * hatch, for a provider known to be back). Requests held at the gate go when they next ask.
	 */
	public void reset() {
		synchronized (this.lock) {
			long now = this.ticker.read();
			this.cooldown.reset(now);
			Pace current = this.state.get();
			// the rate limit off and nothing measured: as a new gate, in a new epoch so held slots are void
			this.state.set(new Pace(Rate.off(now), new Lanes(current.lanes().epoch() + 1, now, now, now, Timeline.NONE)));
		}
	}

	/**
	 * Reports that the request admitted as a {@link Admission.Probe probe} has its answer, or none because its
	 * operation ended: the requests held behind it go when they next ask. Only a probe the provider {@code admitted}
	 * (a success) opens the gate before the cooldown's end; any other answer keeps the cooldown to the latest instant
	 * named: the next probe goes at the instant a hint that came with the answer named, or else at the cooldown's end.
	 * @param admitted whether the provider admitted the probe (it succeeded)
	 */
	public void probeAnswered(boolean admitted) {
		this.cooldown.probeAnswered(admitted);
	}

	/**
	 * Reports that the request admitted as a {@link Admission.Probe probe} was not sent (the retry budget held it
	 * back): the probe is still to come, and the next request the gate admits goes as the probe instead.
	 */
	public void probeWithdrawn() {
		this.cooldown.probeWithdrawn();
	}

	/**
	 * Returns whether the gate waits for a probe's answer after a cooldown (its own probe, or the fleet's): the first
	 * request admitted after the cooldown probes, or the probe is out.
	 * @return whether a probe is still to be answered
	 */
	public boolean probePending() {
		return this.cooldown.probePending();
	}

	/**
	 * Returns whether a probe is out and the gate's other requests wait for its answer.
	 * @return whether a probe is in flight
	 */
	public boolean probing() {
		return this.cooldown.probing();
	}

	/**
	 * Returns whether a refusal with this hint is a rate signal the adaptive rate absorbs, rather than a cooldown that
	 * holds every request: a {@code 429}, whatever its {@code Retry-After}, while the rate limit is on, the gate open
	 * and the provider admitting (it admitted a request since the rate's last decrease, or a measurement is under way
	 * and the last one found it admitting). A provider that admits some requests and refuses others is limiting a
	 * rate: its hint tells the refused request when to come back, not the others. The refused request still waits for
	 * its own hint; a {@code 503}, or a {@code 429} from a provider that admitted nothing since, closes the gate. Reads
	 * without a lock.
	 * @param status the response's status
	 * @param floor the hint's skew-free wait, empty without a usable hint
	 * @return {@code true} if the caller should not close the gate for this hint
	 */
	public boolean absorbs(int status, Optional<Duration> floor) {
		return this.rate.absorbs(status, floor);
	}

	/**
	 * Records a throttle (a 429 or 503) of a request sent at {@code sentAtNanos}. While the provider is admitting (the
	 * rate is on, the gate open, and it admitted a request since the last decrease or a measurement is under way) it
	 * is a refusal that measures the overshoot; otherwise it turns the rate limit on at {@code decreaseFactor ×
	 * maxRate}, or lowers it by {@code decreaseFactor} once the provider admitted a request since the last decrease,
	 * or keeps a rate an announced quota set. When the rate drops, slots reserved so far become void.
	 * @param sentAtNanos when the throttled request was sent
	 * @param nowNanos when the throttle arrived
	 */
	public void onThrottle(long sentAtNanos, long nowNanos) {
		this.rate.onThrottle(sentAtNanos, nowNanos, 0);
	}

	/**
	 * Records a throttle (a 429 or 503) of a request sent at {@code sentAtNanos} that asked it to wait {@code wait}, as
	 * {@link #onThrottle(long, long)}; and when the provider is admitting and the wait is longer than a second, the rate
	 * drops no higher than {@code 0.95 ×} what the provider admitted over that wait (since the rate last changed, or
	 * just past), a whole cycle of refusals measures what it admits, and the rate holds there a while: a window that
	 * admits its share at once and asks the rest to wait is paced at what it admits, not refused again and again
	 * (docs/pacing.md). Takes the gate's lock.
	 * @param sentAtNanos when the throttled request was sent
	 * @param nowNanos when the throttle arrived
	 * @param wait the hint's skew-free wait, empty without a usable hint
	 */
	public void onThrottle(long sentAtNanos, long nowNanos, Optional<Duration> wait) {
		this.rate.onThrottle(sentAtNanos, nowNanos, wait.map(Saturating::toNanos).orElse(0L));
	}

	/**
	 * Records a success of a request sent at {@code sentAtNanos}: while the rate limit is on, counts it in a
	 * measurement under way, and otherwise grows the rate (along the cubic curve around a measured capacity, doubling
	 * while the provider never refused at this rate) while the rate is what limits the sending; pacing lets go once
	 * the rate reaches {@code maxRate} and the backlog fits in a burst. With the rate off this reads one field, takes
	 * no lock and writes nothing.
	 * @param sentAtNanos when the request was sent
	 * @param nowNanos when the success arrived
	 */
	public void onSuccess(long sentAtNanos, long nowNanos) {
		this.rate.onSuccess(sentAtNanos, nowNanos);
	}

	/**
	 * Records a success that arrived at {@code nowNanos}, as if its request had been sent then.
	 * @param nowNanos when the success arrived
	 * @see #onSuccess(long, long)
	 */
	public void onSuccess(long nowNanos) {
		onSuccess(nowNanos, nowNanos);
	}

	/**
	 * Records what a provider's {@link io.github.retryafter.hint.RateLimitFields rate-limit fields} announced: its quota allows
	 * {@code perSecond} requests a second, and it has {@code remaining} left. {@code 0.95} × the quota caps the
	 * rate's growth; once no more than {@code burst} requests are left it sets the rate, turning it on if it was off,
	 * and lowering it if it was above; a rate the quota turned on lets go when a response shows more than
	 * {@code 4 × burst} left. A value that is not a positive finite rate is ignored. Reads without a lock when nothing
	 * changes.
	 * @param perSecond the quota's rate, requests per second
	 * @param remaining the requests left in the provider's window
	 * @param nowNanos when the response arrived
	 */
	public void onQuota(double perSecond, long remaining, long nowNanos) {
		this.rate.onQuota(perSecond, remaining, nowNanos);
	}

	/**
	 * Records what a vendor's request and token windows announced: {@code remaining} requests (already scaled by the
	 * scarcest token window) may go in the rest of the window, {@code perSecond} being that spread evenly over it. As
	 * {@link #onQuota}, except that a rate the windows turned on follows them up and down and is not let go while
	 * the provider shows room: the gate cannot see the retries on their way back to it, and sending faster than the
	 * window's remaining over its reset is what exhausts it (docs/vendor-fields.md). Reads without a lock when
	 * nothing changes.
	 * @param perSecond the window's remaining over its reset, requests per second
	 * @param remaining the requests the windows leave
	 * @param nowNanos when the response arrived
	 */
	public void onWindows(double perSecond, long remaining, long nowNanos) {
		this.rate.onQuota(perSecond, remaining, nowNanos, false);
	}

	/**
	 * Asks whether a request may be sent now.
	 * @param fresh whether it is an operation's first attempt (fresh requests may use their reserved share)
	 * @param nowNanos now, on the gate's ticker
	 * @param latestStartNanos the last instant at which the request could still start a useful attempt
	 * @param held the slot this request was told to wait for, or {@code null}
	 * @return go, hold until an instant (then ask again, passing the hold back), or refuse
	 */
	public Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
		return admit(fresh, nowNanos, latestStartNanos, held, Saturating.toNanos(PacingSettings.DEFAULT_MAX_COOLDOWN));
	}

	/**
	 * Asks whether a request may be sent now.
	 * @param fresh whether it is an operation's first attempt (fresh requests may use their reserved share)
	 * @param nowNanos now, on the gate's ticker
	 * @param latestStartNanos the last instant at which the request could still start a useful attempt
	 * @param held the slot this request was told to wait for, or {@code null}
	 * @param attemptTimeoutNanos how long the request's attempt may take: a probe stops counting after it
	 * @return go, go as the probe after a cooldown, hold until an instant (then ask again, passing the hold back), or
	 * refuse
	 */
	public Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		Admission cooling = this.cooldown.admit(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
		return (cooling != null) ? cooling : paced(fresh, nowNanos, latestStartNanos, held);
	}

	/** The rate's answer: go while it is off, the slot already held (where the rate's changes moved it), or a new one. */
	private Admission paced(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
		Pace current = this.state.get();
		if (!current.engaged()) {
			return Admission.GO;
		}
		if (held != null && held.reason() == GateHold.RATE && held.epoch() == current.lanes().epoch()) {
			return this.book.kept(current, held, nowNanos, latestStartNanos);
		}
		return this.book.reserve(fresh, nowNanos, latestStartNanos);
	}

	/**
	 * Counts a request that starts waiting at this gate, unless {@link PacingSettings#maxQueued()} requests already
	 * wait: the bound on what one provider's backlog holds in memory.
	 * @return whether the request was counted; {@code false}: the gate is full and the request must not wait
	 */
	public boolean tryEnqueue() {
		int max = this.settings.maxQueued();
		while (true) {
			int now = this.queued.get();
			if (now >= max) {
				return false;
			}
			if (this.queued.compareAndSet(now, now + 1)) {
				return true;
			}
		}
	}

	/** Counts a request that stopped waiting at this gate. */
	public void dequeue() {
		this.queued.decrementAndGet();
	}

	/**
	 * Returns how many requests are waiting at this gate.
	 * @return the count
	 */
	public int queued() {
		return this.queued.get();
	}

	/**
	 * Returns the rate limit in force.
	 * @return requests per second, empty while the rate limit is off
	 */
	public OptionalDouble rate() {
		Pace current = this.state.get();
		return current.engaged() ? OptionalDouble.of(current.perSecond()) : OptionalDouble.empty();
	}

	/**
	 * Returns how long the gate stays closed, read now on the gate's ticker.
	 * @return the remaining cooldown, zero when open
	 */
	public Duration cooldownRemaining() {
		long remaining = this.cooldown.until() - this.ticker.read();
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	/**
	 * Returns the instant the gate opens.
	 * @return a reading of the gate's ticker, in the past when the gate is open
	 */
	public long cooldownUntilNanos() {
		return this.cooldown.until();
	}

	@Override
	public String toString() {
		return "ProviderGate[" + this.scope + ", mode=" + this.settings.mode() + ", rate="
				+ (rate().isPresent() ? String.format(Locale.ROOT, "%.1f/s", rate().getAsDouble()) : "off")
				+ ", cooldown=" + cooldownRemaining() + ", queued=" + queued() + "]";
	}

	/**
	 * The gate's answer to {@link #admit}.
	 */
	public sealed interface Admission {

		/** Send now. */
		Admission GO = new Go();

		/**
		 * Send now, as the probe after a cooldown: report its answer with {@link ProviderGate#probeAnswered(boolean)}.
		 */
		Admission PROBE = new Probe();

		/** Send now. */
		record Go() implements Admission {
		}

		/** Send now, as the one request that probes the provider after a cooldown. */
		record Probe() implements Admission {
		}

		/**
		 * Wait until {@code untilNanos}, then ask again, passing this hold back. A {@link GateHold#RATE} hold keeps a
		 * slot: it may ask before the slot comes (a rate that rose since brings the slot forward), and is told to
		 * wait again, never to lose its place.
		 * @param untilNanos the instant to wait for, on the gate's ticker
		 * @param reason why
		 * @param epoch the rate epoch a {@link GateHold#RATE} slot was reserved in, {@code -1} for a cooldown
		 * @param slotNanos the slot kept, as booked: where it comes on the gate's ticker when the rate has not changed
		 * since; {@code untilNanos} for a cooldown
		 */
		record Hold(long untilNanos, GateHold reason, long epoch, long slotNanos) implements Admission {

			/**
			 * Checks the arguments.
			 * @param untilNanos the instant to wait for, on the gate's ticker
			 * @param reason why
			 * @param epoch the rate epoch a {@link GateHold#RATE} slot was reserved in, {@code -1} for a cooldown
			 * @param slotNanos the slot kept, as booked
			 */
			public Hold {
				Objects.requireNonNull(reason, "reason");
			}

			/**
			 * A hold until {@code untilNanos} that keeps the slot there.
			 * @param untilNanos the instant to wait for, on the gate's ticker
			 * @param reason why
			 * @param epoch the rate epoch a {@link GateHold#RATE} slot was reserved in, {@code -1} for a cooldown
			 */
			public Hold(long untilNanos, GateHold reason, long epoch) {
				this(untilNanos, reason, epoch, untilNanos);
			}

		}

		/**
		 * Do not send: the request cannot be admitted in time, or the gate is closed and pacing is fail-fast.
		 * @param reason a sentence with the numbers
		 */
		record Refuse(String reason) implements Admission {

			/**
			 * Checks the arguments.
			 * @param reason a sentence with the numbers
			 */
			public Refuse {
				Objects.requireNonNull(reason, "reason");
			}

		}

	}

}
