package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Ticker;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.internal.Seconds;

/**
 * One provider's gate: a cooldown and an adaptive admission rate shared by every request to that provider.
 * <p>
 * <b>Cooldown.</b> {@link #closeUntil(long)} closes the gate until the instant a {@code Retry-After} named; the gate
 * opens at the latest instant any hint named: a later instant extends it, an earlier one never shortens it. While it
 * is closed, {@link #admit} holds every request, fresh or retry, until it opens ({@link PacingMode#HOLD}), or refuses
 * it ({@link PacingMode#FAIL_FAST}, or when the request could not start a useful attempt by then).
 * <p>
 * <b>Rate.</b> The first throttle ({@link #onThrottle}) turns on a rate limit of {@code decreaseFactor × maxRate}; each
 * throttle of a request sent after the previous decrease multiplies it
 * by {@code decreaseFactor} again, and successes ({@link #onSuccess}) grow it back along a cubic curve until it reaches
 * {@code maxRate}, where the limit lets go (see {@link PacingSettings}). A throttle only lowers the rate again once the
 * provider has admitted a request since the last decrease: a provider answering nothing but 503s is down, and its
 * cooldowns already pace the probes. While it is on, each request reserves a slot
 * (generic cell rate algorithm: theoretical arrival times, no timer and no queue) in one of two lanes: retries in a lane
 * paced at {@code rate × (1 − freshShare)}, fresh requests in a lane paced at {@code rate × freshShare} or in the retry
 * lane, whichever slot comes first. So a backlog drains at about the provider's rate, in the order requests became
 * eligible, and fresh requests always have a share of their own. A throttle starts a new epoch: slots reserved before
 * it are void, and their holders reserve again when they wake, at the lower rate and after the cooldown.
 * <p>
 * Every instant is a reading of the gate's {@link Ticker}, compared by difference like {@link System#nanoTime()}, so a
 * ticker that wraps around the end of {@code long} is fine; durations (the spacing of slots, the burst tolerance)
 * saturate, so no setting or reading makes the gate throw. Thread-safe: the cooldown is an {@link AtomicLong} raised
 * by compare-and-set; the rate and both lanes are one immutable state, read without a lock and replaced under a
 * per-gate lock (a contention benchmark chose the lock for writers), so the success path of an unthrottled provider
 * reads two fields, takes no lock and writes nothing.
 */
public final class ProviderGate {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	private final String provider;

	private final PacingSettings settings;

	private final Ticker ticker;

	private final AtomicLong cooldownUntil;

	/**
	 * The rate state, read without a lock on every request. Writers (a throttle, a success while paced, a booked
	 * slot) take {@link #rateWriteLock}: under contention on one paced provider a lock beat a compare-and-set loop
	 * about 2x in {@code GateContentionBenchmark}, while the unpaced path, which only reads, stays lock-free.
	 */
	private final AtomicReference<RateState> state;

	private final Object rateWriteLock = new Object();

	private final AtomicInteger queued = new AtomicInteger();

	/**
	 * Creates an open gate with its rate limit off.
	 * @param provider the provider's configured name, for messages
	 * @param settings how to pace it
	 * @param ticker the monotonic clock every instant is read on
	 */
	public ProviderGate(String provider, PacingSettings settings, Ticker ticker) {
		this.provider = Objects.requireNonNull(provider, "provider");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		long now = ticker.read();
		this.cooldownUntil = new AtomicLong(now);
		this.state = new AtomicReference<>(new RateState(false, 0, 0, now, false, 0, now, now));
	}

	/**
	 * Returns the provider's name.
	 * @return the name
	 */
	public String provider() {
		return this.provider;
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public PacingSettings settings() {
		return this.settings;
	}

	/**
	 * Closes the gate until {@code instantNanos}, unless it is already closed until later.
	 * @param instantNanos the instant a {@code Retry-After} named, on the gate's ticker
	 */
	public void closeUntil(long instantNanos) {
		this.cooldownUntil.accumulateAndGet(instantNanos, (current, next) -> (next - current > 0) ? next : current);
	}

	/**
	 * Records a throttle (a 429 or 503) of a request sent at {@code sentAtNanos}: turns the rate limit on, or lowers
	 * it if the request was sent after the previous decrease (the responses to a burst sent before a decrease say
	 * nothing new) and the provider admitted a request since (a provider that admits nothing is down, not rate
	 * limiting: its cooldowns pace the probes, and compounding decreases would leave the rate far below what it admits
	 * once it is back). When the rate changes, slots reserved so far become void and both lanes restart at the end of
	 * the cooldown.
	 * @param sentAtNanos when the throttled request was sent
	 * @param nowNanos when the throttle arrived
	 */
	public void onThrottle(long sentAtNanos, long nowNanos) {
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (current.engaged()
					&& (sentAtNanos - current.lastDecreaseNanos() <= 0 || !current.admittedSinceDecrease())) {
				return;
			}
			double before = current.engaged() ? current.rate() : this.settings.maxRate();
			double rate = Math.max(this.settings.minRate(), before * this.settings.decreaseFactor());
			long restart = later(nowNanos, this.cooldownUntil.get());
			this.state.set(new RateState(true, rate, before, nowNanos, false, current.epoch() + 1, restart, restart));
		}
	}

	/**
	 * Records a success: while the rate limit is on, grows the rate along the cubic curve from the last decrease, and
	 * lets go once it reaches {@code maxRate}.
	 * @param nowNanos when the success arrived
	 */
	public void onSuccess(long nowNanos) {
		if (!this.state.get().engaged()) {
			return;
		}
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (!current.engaged()) {
				return;
			}
			double grown = cubic(current, nowNanos);
			RateState next;
			if (grown >= this.settings.maxRate()) {
				next = new RateState(false, 0, 0, current.lastDecreaseNanos(), false, current.epoch() + 1, nowNanos,
						nowNanos);
			}
			else if (grown > current.rate() * 1.01 || !current.admittedSinceDecrease()) {
				next = new RateState(true, Math.max(grown, current.rate()), current.rateBeforeDecrease(),
						current.lastDecreaseNanos(), true, current.epoch(), current.retryTat(), current.freshTat());
			}
			else {
				return;
			}
			this.state.set(next);
		}
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
		long cooldown = this.cooldownUntil.get();
		if (cooldown - nowNanos > 0) {
			return duringCooldown(cooldown, nowNanos, latestStartNanos);
		}
		RateState current = this.state.get();
		if (!current.engaged()) {
			return Admission.GO;
		}
		if (held != null && held.reason() == GateHold.RATE && held.epoch() == current.epoch()) {
			return (held.untilNanos() - nowNanos > 0) ? held : Admission.GO;
		}
		return reserveSlot(fresh, nowNanos, latestStartNanos);
	}

	/** While the gate is closed: refuse (fail-fast, or past the last useful start), or hold until it opens. */
	private Admission duringCooldown(long cooldown, long nowNanos, long latestStartNanos) {
		if (this.settings.mode() == PacingMode.FAIL_FAST) {
			return new Admission.Refuse("provider '" + this.provider + "' is cooling down for another "
					+ seconds(cooldown - nowNanos) + " as its Retry-After asked, and pacing is fail-fast");
		}
		if (cooldown - latestStartNanos > 0) {
			return new Admission.Refuse("provider '" + this.provider + "' is cooling down for another "
					+ seconds(cooldown - nowNanos) + " as its Retry-After asked, past the last instant ("
					+ seconds(latestStartNanos - nowNanos) + " from now) a useful attempt could start");
		}
		return new Admission.Hold(cooldown, GateHold.COOLDOWN, -1);
	}

	/**
	 * While the rate limit is on: books the earliest slot of the request's lanes (fresh requests may take the fresh
	 * lane's when it comes first), or refuses when it comes after the last useful start.
	 */
	private Admission reserveSlot(boolean fresh, long nowNanos, long latestStartNanos) {
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (!current.engaged()) {
				return Admission.GO;
			}
			double share = this.settings.freshShare();
			long retryInterval = interval(current.rate() * (1.0 - share));
			long slot = slot(current.retryTat(), retryInterval, nowNanos);
			long freshInterval = (fresh && share > 0) ? interval(current.rate() * share) : 0;
			long freshSlot = (freshInterval > 0) ? slot(current.freshTat(), freshInterval, nowNanos) : slot;
			boolean freshLane = freshSlot - slot < 0;
			if (freshLane) {
				slot = freshSlot;
			}
			if (slot - latestStartNanos > 0) {
				return new Admission.Refuse("provider '" + this.provider + "' is paced at "
						+ String.format(Locale.ROOT, "%.1f", current.rate()) + " requests/s and its next slot is "
						+ seconds(slot - nowNanos) + " away, past the last instant (" + seconds(latestStartNanos - nowNanos)
						+ " from now) a useful attempt could start");
			}
			this.state.set(freshLane ? current.withFreshTat(later(current.freshTat(), slot) + freshInterval)
					: current.withRetryTat(later(current.retryTat(), slot) + retryInterval));
			return (slot - nowNanos <= 0) ? Admission.GO : new Admission.Hold(slot, GateHold.RATE, current.epoch());
		}
	}

	/** Counts a request that starts waiting at this gate. */
	public void enqueue() {
		this.queued.incrementAndGet();
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
		RateState current = this.state.get();
		return current.engaged() ? OptionalDouble.of(current.rate()) : OptionalDouble.empty();
	}

	/**
	 * Returns how long the gate stays closed, read now on the gate's ticker.
	 * @return the remaining cooldown, zero when open
	 */
	public Duration cooldownRemaining() {
		long remaining = this.cooldownUntil.get() - this.ticker.read();
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	/**
	 * Returns the instant the gate opens.
	 * @return a reading of the gate's ticker, in the past when the gate is open
	 */
	public long cooldownUntilNanos() {
		return this.cooldownUntil.get();
	}

	@Override
	public String toString() {
		return "ProviderGate[" + this.provider + ", mode=" + this.settings.mode() + ", rate="
				+ (rate().isPresent() ? String.format(Locale.ROOT, "%.1f/s", rate().getAsDouble()) : "off")
				+ ", cooldown=" + cooldownRemaining() + ", queued=" + queued() + "]";
	}

	private double cubic(RateState state, long nowNanos) {
		double w = state.rateBeforeDecrease();
		double c = this.settings.growthScale();
		double k = Math.cbrt(w * (1.0 - this.settings.decreaseFactor()) / c);
		double t = Math.max(0, nowNanos - state.lastDecreaseNanos()) / NANOS_PER_SECOND;
		double x = t - k;
		return Math.max(this.settings.minRate(), c * x * x * x + w);
	}

	private long slot(long tat, long interval, long nowNanos) {
		long tolerance = Saturating.multiply(this.settings.burst() - 1, interval);
		return later(tat - tolerance, nowNanos);
	}

	/** The later of two ticker readings, compared by their difference like {@link System#nanoTime()}. */
	private static long later(long a, long b) {
		return (a - b > 0) ? a : b;
	}

	private static long interval(double rate) {
		return Math.max(1, (long) Math.ceil(NANOS_PER_SECOND / rate));
	}

	private static String seconds(long nanos) {
		return Seconds.format(nanos);
	}

	/**
	 * The rate limit and both lanes' theoretical arrival times, swapped whole by compare-and-set.
	 */
	private record RateState(boolean engaged, double rate, double rateBeforeDecrease, long lastDecreaseNanos,
			boolean admittedSinceDecrease, long epoch, long retryTat, long freshTat) {

		RateState withRetryTat(long tat) {
			return new RateState(this.engaged, this.rate, this.rateBeforeDecrease, this.lastDecreaseNanos,
					this.admittedSinceDecrease, this.epoch, tat, this.freshTat);
		}

		RateState withFreshTat(long tat) {
			return new RateState(this.engaged, this.rate, this.rateBeforeDecrease, this.lastDecreaseNanos,
					this.admittedSinceDecrease, this.epoch, this.retryTat, tat);
		}

	}

	/**
	 * The gate's answer to {@link #admit}.
	 */
	public sealed interface Admission {

		/** Send now. */
		Admission GO = new Go();

		/** Send now. */
		record Go() implements Admission {
		}

		/**
		 * Wait until {@code untilNanos}, then ask again, passing this hold back.
		 * @param untilNanos the instant to wait for, on the gate's ticker
		 * @param reason why
		 * @param epoch the rate epoch a {@link GateHold#RATE} slot was reserved in, {@code -1} for a cooldown
		 */
		record Hold(long untilNanos, GateHold reason, long epoch) implements Admission {

			/**
			 * Checks the arguments.
			 * @param untilNanos the instant to wait for, on the gate's ticker
			 * @param reason why
			 * @param epoch the rate epoch a {@link GateHold#RATE} slot was reserved in, {@code -1} for a cooldown
			 */
			public Hold {
				Objects.requireNonNull(reason, "reason");
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
