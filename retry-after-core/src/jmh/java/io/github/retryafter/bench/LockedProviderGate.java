package io.github.retryafter.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.hint.RateLimitFields;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.internal.Seconds;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.pacing.ProviderGate.Admission;

/**
 * Benchmark-only: {@link ProviderGate} with its whole state in plain fields guarded by the gate's own monitor (one lock
 * per provider, never a global one), reads included, instead of an {@code AtomicLong} cooldown and an immutable rate
 * state read without a lock and replaced under a writers' lock; a booked slot updates the state in place rather than
 * allocating a new one. Derived from the shipped gate line for line, so {@link SameBehaviour} can check them call for
 * call and {@link GateContentionBenchmark} can compare the two designs under contention. Re-derive it whenever
 * {@link ProviderGate} changes.
 */
final class LockedProviderGate {

	/** The longest {@code Retry-After} on a 429 that {@link #absorbs} treats as a rate signal: one second. */
	static final Duration RATE_REFUSAL_HINT = Duration.ofSeconds(1);

	/** Responses a measurement of the provider's admissions needs, unless it spans {@link #SAMPLE_SPAN} first. */
	static final int SAMPLE_RESPONSES = 32;

	/** The longest a measurement of the provider's admissions runs before it concludes on what it has. */
	static final Duration SAMPLE_SPAN = Duration.ofSeconds(1);

	/** The share of a measured capacity the rate is set to, leaving the provider room for jitter in arrivals. */
	static final double HEADROOM = 0.95;

	/** The window the provider's admitted successes per second are counted over, to cap the rate's growth. */
	static final Duration METER_WINDOW = Duration.ofMillis(250);

	/** How long, at the most, a request holding a slot waits without asking again, unless its slot is nearer. */
	private static final Duration RATE_POLL = Duration.ofMillis(100);

	/** How long a fresh request's slot keeps retries to their share of the rate. */
	static final Duration FRESH_ACTIVITY = Duration.ofSeconds(1);

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	/** How often, at the least, requests held behind a probe ask again. */
	private static final long MIN_PROBE_POLL_NANOS = 10_000_000L;

	private final Scope scope;

	private final PacingSettings settings;

	private final Ticker ticker;

	private long cooldownUntil;

	/**
	 * The rate state, read without a lock on every request. Writers (a throttle, a success while paced, a booked
	 * slot) take the gate's monitor: under contention on one paced provider a lock beat a compare-and-set loop
	 * about 2x in {@code GateContentionBenchmark}, while the unpaced path, which only reads, stays lock-free.
	 */
	private RateState state;


	/**
	 * The successes per second the provider admitted in the last completed {@link #METER_WINDOW}, {@code NaN} before
	 * one completed; with {@link #meterStart} and {@link #meterCount}, per gate, three numbers, read and written only
	 * under the gate's monitor by successes while the rate is on.
	 */
	private double meterRate = Double.NaN;

	private long meterStart;

	private int meterCount;

	private long sendTat;

	// how the slots booked in epoch timelineEpoch moved since (ProviderGate keeps it in its rate state)
	private Timeline timeline = Timeline.NONE;

	private long timelineEpoch = -1;

	// the burst the first throttle cut short (see burstCapped), guarded by this
	private boolean burstCounting;

	private long burstSince;

	private int burstAdmitted;

	private long burstLastNanos;

	private final AtomicInteger queued = new AtomicInteger();

	// whether the next request admitted after the cooldown is a probe; read without a lock on every admission
	private boolean probePending;

	// the earliest instant a hint named since the provider last refused after it: the early probe may go from then
	private long probeFrom;

	// whether a hint came while the probe was out
	private boolean probeRefused;

	// the probe in flight, guarded by the monitor: when it was sent, and when it stops counting
	private boolean probeInFlight;

	private long probeSentNanos;

	private long probeExpiresNanos;

	/**
	 * Creates an open gate with its rate limit off.
	 * @param provider the provider's configured name, for messages
	 * @param settings how to pace it
	 * @param ticker the monotonic clock every instant is read on
	 */
	LockedProviderGate(String provider, PacingSettings settings, Ticker ticker) {
		this(Scope.provider(provider), settings, ticker);
	}

	/**
	 * Creates an open gate with its rate limit off.
	 * @param scope the provider, and the origin when the gate is one origin's, for messages and reports
	 * @param settings how to pace it
	 * @param ticker the monotonic clock every instant is read on
	 */
	LockedProviderGate(Scope scope, PacingSettings settings, Ticker ticker) {
		this.scope = Objects.requireNonNull(scope, "scope");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		long now = ticker.read();
		this.cooldownUntil = now;
		this.probeFrom = now;
		this.sendTat = now;
		this.state = new RateState(false, 0, 0, 0, false, now, now, false, null, 0, now, now, now, 0, false);
	}

	/**
	 * Returns the provider's name.
	 * @return the name
	 */
	String provider() {
		return this.scope.provider();
	}

	/**
	 * Returns whose gate this is.
	 * @return the provider, and the origin when the gate is one origin's
	 */
	Scope scope() {
		return this.scope;
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	PacingSettings settings() {
		return this.settings;
	}

	/**
	 * Closes the gate until {@code instantNanos}, but no longer than {@link PacingSettings#maxCooldown()} from now,
	 * unless it is already closed until later. An instant that has passed changes nothing.
	 * @param instantNanos the instant a {@code Retry-After} named, on the gate's ticker
	 */
	synchronized void closeUntil(long instantNanos) {
		long now = this.ticker.read();
		// a quarter of long's range: instants stay comparable by difference
		long cap = now + Math.min(Saturating.toNanos(this.settings.maxCooldown()), Long.MAX_VALUE / 4);
		long until = (instantNanos - cap > 0) ? cap : instantNanos;
		if (until - now <= 0) {
			return;
		}
		if ((this.cooldownUntil - now <= 0 && !this.probePending) || this.probeFrom - now <= 0) {
			this.probeFrom = until;
		}
		else if (until - this.probeFrom < 0) {
			this.probeFrom = until;
		}
		if (this.probeInFlight) {
			this.probeRefused = true;
		}
		this.cooldownUntil = later(until, this.cooldownUntil);
		this.probePending = true;
	}

	private boolean probesEarly(long nowNanos) {
		return this.probeFrom - nowNanos <= 0 && this.settings.mode() == PacingMode.HOLD;
	}

	/**
	 * Opens the gate now: ends the cooldown, forgets any probe and turns the rate limit off (an operator's escape
	 * hatch, for a provider known to be back). Requests held at the gate go when they next ask.
	 */
	synchronized void reset() {
		synchronized (this) {
			long now = this.ticker.read();
			this.cooldownUntil = now;
			this.probeFrom = now;
			this.probePending = false;
			this.probeRefused = false;
			this.probeInFlight = false;
			RateState current = this.state;
			// the rate limit off and nothing measured: as a new gate, in a new epoch so held slots are void
			this.state = new RateState(false, 0, 0, 0, false, now, now, false, null, current.epoch() + 1, now, now, now,
					0, false);
		}
	}

	/**
	 * Reports that the request admitted as a {@link Admission.Probe probe} has its answer (any answer, or none because
	 * its operation ended): the requests held behind it go when they next ask, unless the answer closed the gate
	 * again, in which case the first request after the new cooldown probes again.
	 */
	synchronized void probeAnswered() {
		synchronized (this) {
			long now = this.ticker.read();
			if (this.probeInFlight && !this.probeRefused && this.cooldownUntil - now > 0) {
				this.cooldownUntil = now;
				startLanesBy(now);
			}
			this.probeInFlight = false;
			this.probeRefused = false;
			if (this.cooldownUntil - now <= 0) {
				this.probePending = false;
			}
		}
	}

	/**
	 * Returns whether a probe is out and the gate's other requests wait for its answer.
	 * @return whether a probe is in flight
	 */
	synchronized boolean probing() {
		synchronized (this) {
			return this.probeInFlight && this.probeExpiresNanos - this.ticker.read() > 0;
		}
	}

	/**
	 * Returns whether a refusal with this hint is a rate signal the adaptive rate absorbs, rather than a cooldown that
	 * holds every request: a {@code 429} whose {@code Retry-After} asks for at most {@link #RATE_REFUSAL_HINT} (one
	 * second, the shortest wait the field can express, so it says "you sent one too many", not "stay away"), or none,
	 * while the rate limit is on, the gate open and the provider admitting (it admitted a request since the rate's last
	 * decrease, or a measurement is under way). The refused request still waits for its own hint; everyone else is paced
	 * by the rate, which such a refusal lowers in proportion to the measured overshoot ({@link #onThrottle}). Reads
	 * without a lock.
	 * @param status the response's status
	 * @param floor the hint's skew-free wait, empty without a usable hint
	 * @return {@code true} if the caller should not close the gate for this hint
	 */
	synchronized boolean absorbs(int status, Optional<Duration> floor) {
		RateState current = this.state;
		return status == 429 && current.engaged() && (current.admittedSinceDecrease() || current.sample() != null)
				&& this.cooldownUntil - this.ticker.read() <= 0
				&& floor.map((wait) -> wait.compareTo(RATE_REFUSAL_HINT) <= 0).orElse(true);
	}

	/**
	 * Records a throttle (a 429 or 503) of a request sent at {@code sentAtNanos}.
	 * <p>
	 * While the provider is admitting (the rate is on, the gate open, and the provider admitted a request since the
	 * last decrease or a measurement is under way), a throttle is a <em>refusal</em> and measures the overshoot: the
	 * first one (the provider's bucket is empty now) starts a measurement of what the provider admits, lowering the rate
	 * by {@code decreaseFactor} unless it is already at or below a measured capacity; once the measurement has
	 * {@link #SAMPLE_RESPONSES} responses or spans {@link #SAMPLE_SPAN}, a refusal sets the rate to
	 * {@link #HEADROOM} × the successes per second of requests sent since it started, when more than
	 * {@code 1 − HEADROOM} of them were refused (a smaller share is within the headroom, and the rate stays).
	 * <p>
	 * Otherwise (a provider that is down, or a cooldown in force) it keeps a rate the provider's announced quota set
	 * (the cooldown, not the rate, answers the refusal; see {@link #onQuota}), or turns the rate limit on at
	 * {@code decreaseFactor × maxRate}, or lowers it by {@code decreaseFactor} if the request was sent after the previous
	 * decrease (the responses to a burst sent before a decrease say nothing new) and the provider admitted a request
	 * since (a provider that admits nothing is down: its cooldowns pace the probes, and compounding decreases would leave
	 * the rate far below what it admits once it is back).
	 * <p>
	 * When the rate drops, slots reserved so far become void and both lanes restart: at the end of the cooldown, or now,
	 * without a burst, after a refusal (the provider has no burst left to give).
	 * @param sentAtNanos when the throttled request was sent
	 * @param nowNanos when the throttle arrived
	 */
	synchronized void onThrottle(long sentAtNanos, long nowNanos) {
		synchronized (this) {
			RateState current = this.state;
			if (current.engaged() && sentAtNanos - current.lastDecreaseNanos() <= 0) {
				if (current.sample() != null && sentAtNanos - current.sample().countFromNanos() < 0) {
					recount(current, current.sample(), sentAtNanos, nowNanos);
				}
				return;
			}
			boolean open = this.cooldownUntil - nowNanos <= 0;
			if (current.engaged() && open && (current.admittedSinceDecrease() || current.sample() != null)) {
				onRefusal(current, sentAtNanos, nowNanos);
				return;
			}
			if (current.engaged() && !current.admittedSinceDecrease()) {
				return;
			}
			if (!current.engaged()) {
				this.burstCounting = true;
				this.burstSince = nowNanos;
				this.burstAdmitted = 0;
				this.burstLastNanos = nowNanos;
			}
			double before = current.engaged() ? current.rate() : this.settings.maxRate();
			boolean quotaPaced = current.engaged() && current.quotaPaced();
			double rate = quotaPaced ? before : Math.max(this.settings.minRate(), before * this.settings.decreaseFactor());
			long restart = later(nowNanos, this.cooldownUntil);
			this.state = new RateState(true, rate, before, rate, current.measured(), nowNanos, nowNanos, false, null,
					current.epoch() + 1, restart, restart, current.freshUntil(), current.quota(), quotaPaced);
		}
	}

	/** A throttle while the provider is admitting: start a measurement, count a refusal, or set the measured rate. */
	private void onRefusal(RateState current, long sentAtNanos, long nowNanos) {
		Sample sample = current.sample();
		if (sample == null) {
			Sample started = new Sample(nowNanos, 0, 0, nowNanos, nowNanos, nowNanos);
			boolean atCapacity = current.measured() && current.rate() <= current.target();
			this.state = atCapacity ? current.measuring(started, nowNanos)
					: restarted(current, Math.max(this.settings.minRate(), current.rate() * this.settings.decreaseFactor()),
							current.rate(), current.measured(), nowNanos, started);
			return;
		}
		if (sentAtNanos - sample.countFromNanos() < 0) {
			recount(current, sample, sentAtNanos, nowNanos);
			return;
		}
		Sample counted = sample.refused(sentAtNanos);
		if (!counted.complete()) {
			this.state = current.withSample(counted);
			return;
		}
		this.state = concluded(current, counted, nowNanos);
	}

	private void recount(RateState current, Sample sample, long sentAtNanos, long nowNanos) {
		if (sentAtNanos - sample.startNanos() < 0) {
			this.state = current.withSample(sample.recountFrom(nowNanos));
		}
	}

	/**
	 * A measurement that is complete: a refused share within the headroom keeps the rate (now a measured capacity, so
	 * it grows along the cubic curve); a larger one sets it to {@code HEADROOM ×} the admitted successes per second;
	 * none at all means the provider admits more than the rate, which grows fast, unless the rate already sits at a
	 * measured capacity (the refusal was a stray one), where it keeps growing along the cubic curve.
	 */
	private RateState concluded(RateState current, Sample sample, long nowNanos) {
		if (sample.refused() == 0) {
			return current.afterSample(current.rate(), current.measured(), nowNanos);
		}
		double refusedShare = sample.refused() / (double) (sample.admitted() + sample.refused());
		if (refusedShare <= 1.0 - HEADROOM) {
			double at = Math.max(this.settings.minRate(), current.rate() * (1 - refusedShare));
			if (at >= current.rate()) {
				return current.afterSample(current.rate(), true, nowNanos);
			}
			double factor = current.rate() / at;
			this.timeline = timeline(current).then(nowNanos, factor);
			this.timelineEpoch = current.epoch();
			this.sendTat = Timeline.moved(this.sendTat, nowNanos, factor);
			return current.withRetryTat(Timeline.moved(current.retryTat(), nowNanos, factor))
				.withFreshTat(Timeline.moved(current.freshTat(), nowNanos, factor))
				.afterSample(at, true, nowNanos);
		}
		double measured = sample.admittedPerSecond() * HEADROOM;
		if (sample.sentPerSecond() < current.rate() / 2) {
			measured = Math.max(measured, current.rate() * this.settings.decreaseFactor());
		}
		double rate = Math.max(this.settings.minRate(), Math.min(current.rate(), measured));
		return restarted(current, rate, rate, true, nowNanos, null);
	}

	/**
	 * A new epoch at {@code rate} after a refusal from a provider that is admitting (so its refusals stay rate
	 * signals): held slots are void and both lanes restart now without a burst (the provider has none left to give).
	 */
	private RateState restarted(RateState current, double rate, double target, boolean measured, long nowNanos,
			Sample sample) {
		double share = this.settings.freshShare();
		long retryTat = spent(nowNanos, interval(rate * ((current.freshUntil() - nowNanos > 0) ? 1.0 - share : 1.0)));
		long freshTat = (share > 0) ? spent(nowNanos, interval(rate * share)) : nowNanos;
		return new RateState(true, rate, target, rate, measured, nowNanos, nowNanos, true, sample, current.epoch() + 1,
				retryTat, freshTat, current.freshUntil(), current.quota(), false);
	}

	/**
	 * Records a success of a request sent at {@code sentAtNanos}: while the rate limit is on, counts it in a
	 * measurement under way, and otherwise grows the rate: along the cubic curve around a measured capacity, doubling
	 * every second while the provider has never refused at this rate; pacing lets go once the rate reaches
	 * {@code maxRate}. The growth's clock starts at the first success after a decrease, and the rate grows only while
	 * it is what limits the sending (a request reserving now would wait): while demand stays below it, the curve
	 * restarts from the current rate, as TCP does for an application-limited window (RFC 7661), so a trickle of
	 * successes never lets pacing go just before a backlog arrives. With the rate off this reads one field, takes no
	 * lock and writes nothing. Growth is also capped at twice the successes per second the provider admitted in the
	 * last {@link #METER_WINDOW} (the AWS SDKs cap at twice their measured send rate), so a client slower than its
	 * slots (a connection pool, a busy scheduler) does not talk pacing into letting go.
	 * @param sentAtNanos when the request was sent
	 * @param nowNanos when the success arrived
	 */
	synchronized void onSuccess(long sentAtNanos, long nowNanos) {
		if (!this.state.engaged()) {
			return;
		}
		synchronized (this) {
			RateState current = this.state;
			if (!current.engaged()) {
				return;
			}
			meter(nowNanos);
			if (this.burstCounting) {
				if (sentAtNanos - this.burstSince < 0) {
					if (nowNanos - this.burstSince <= SAMPLE_SPAN.toNanos()) {
						this.burstAdmitted++;
						this.burstLastNanos = nowNanos;
					}
				}
				else if (this.burstAdmitted >= 4 || nowNanos - this.burstSince > SAMPLE_SPAN.toNanos()) {
					this.burstCounting = false;
					RateState capped = burstCapped(current, nowNanos);
					if (capped != null) {
						this.state = capped;
						return;
					}
				}
			}
			Sample sample = current.sample();
			if (sample != null) {
				if (sentAtNanos - sample.countFromNanos() < 0) {
					recount(current, sample, sentAtNanos, nowNanos);
				}
				else {
					Sample counted = sample.admitted(sentAtNanos);
					this.state = counted.complete() ? concluded(current, counted, nowNanos)
							: current.withSample(counted).admitted(nowNanos);
				}
				return;
			}
			if (!current.admittedSinceDecrease()) {
				this.state = current.admitted(nowNanos);
				return;
			}
			if (!limited(current, nowNanos)) {
				// application-limited (RFC 7661): the rate is not in use, so it is no evidence of room above it
				if (grown(current, nowNanos) > current.rate() * 1.01) {
					this.state = current.regrowFrom(nowNanos);
				}
				return;
			}
			double grown = grown(current, nowNanos);
			if (current.quota() > 0) {
				grown = Math.min(grown, current.quota());
			}
			if (!Double.isNaN(this.meterRate)) {
				grown = Math.min(grown, Math.max(current.rate(), 2 * this.meterRate));
			}
			if (grown >= this.settings.maxRate()) {
				this.state = off(current, nowNanos);
			}
			else if (grown > current.rate() * 1.01) {
				double factor = current.rate() / grown;
				this.timeline = timeline(current).then(nowNanos, factor);
				this.timelineEpoch = current.epoch();
				this.sendTat = Timeline.moved(this.sendTat, nowNanos, factor);
				this.state = current.withRate(grown)
					.withRetryTat(Timeline.moved(current.retryTat(), nowNanos, factor))
					.withFreshTat(Timeline.moved(current.freshTat(), nowNanos, factor));
			}
		}
	}

	/**
	 * Records what a provider's {@link RateLimitFields rate-limit fields} announced: its quota allows
	 * {@code perSecond} requests a second, and it has {@code remaining} left. {@link #HEADROOM} × the quota (so the
	 * provider's bucket fills instead of hovering at empty) caps the rate's growth; once
	 * no more than {@code burst} requests are left it sets the rate, turning it on if it was off (lanes start with their
	 * burst, which the remaining requests cover), and lowering it if it was above; a rate the quota turned on lets go
	 * when a response shows more than {@code 4 × burst} left (a new window). A rate below the quota, measured from
	 * refusals, is kept: the provider's quota may be shared. A value that is not a positive finite rate is ignored.
	 * Reads without a lock when nothing changes.
	 * @param perSecond the quota's rate, requests per second
	 * @param remaining the requests left in the provider's window
	 * @param nowNanos when the response arrived
	 */
	synchronized void onQuota(double perSecond, long remaining, long nowNanos) {
		if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
			return;
		}
		double quota = Math.max(this.settings.minRate(), Math.min(this.settings.maxRate(), perSecond * HEADROOM));
		long burst = this.settings.burst();
		boolean low = remaining <= burst;
		boolean roomy = remaining > 4 * burst;
		RateState seen = this.state;
		if (seen.engaged() ? (seen.quota() == quota && seen.rate() <= quota && !(seen.quotaPaced() && roomy)) : !low) {
			return;
		}
		synchronized (this) {
			RateState current = this.state;
			if (!current.engaged()) {
				if (low) {
					this.state = new RateState(true, quota, quota, quota, true, nowNanos, nowNanos, true, null,
							current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), quota, true);
				}
				return;
			}
			if (current.quotaPaced() && roomy) {
				this.state = off(current, nowNanos);
			}
			else if (current.rate() > quota && (low || current.quotaPaced())) {
				this.state = new RateState(true, quota, quota, quota, true, nowNanos, nowNanos, true, null,
						current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), quota, true);
			}
			else {
				this.state = current.withQuota(quota);
			}
		}
	}

	/** As the shipped gate's: the first throttle's rate capped at what the provider admitted of its burst. */
	private RateState burstCapped(RateState current, long nowNanos) {
		long span = this.burstLastNanos - this.burstSince;
		if (current.quotaPaced() || current.measured() || current.sample() != null || this.burstAdmitted < 4
				|| span <= 0) {
			return null;
		}
		double admitted = HEADROOM * this.burstAdmitted * 1_000_000_000.0 / span;
		if (admitted >= current.rate()) {
			return null;
		}
		double rate = Math.max(this.settings.minRate(), admitted);
		return new RateState(true, rate, rate, rate, false, nowNanos, nowNanos, true, null, current.epoch() + 1,
				later(current.retryTat(), nowNanos), later(current.freshTat(), nowNanos), current.freshUntil(),
				current.quota(), false);
	}

	/** The rate limit off: every request goes, until the next throttle or quota. */
	private static RateState off(RateState current, long nowNanos) {
		return new RateState(false, 0, 0, 0, false, current.lastDecreaseNanos(), nowNanos, false, null,
				current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), current.quota(), false);
	}

	/**
	 * Records a success that arrived at {@code nowNanos}, as if its request had been sent then.
	 * @param nowNanos when the success arrived
	 * @see #onSuccess(long, long)
	 */
	synchronized void onSuccess(long nowNanos) {
		onSuccess(nowNanos, nowNanos);
	}

	/**
	 * Asks whether a request may be sent now.
	 * @param fresh whether it is an operation's first attempt (fresh requests may use their reserved share)
	 * @param nowNanos now, on the gate's ticker
	 * @param latestStartNanos the last instant at which the request could still start a useful attempt
	 * @param held the slot this request was told to wait for, or {@code null}
	 * @return go, hold until an instant (then ask again, passing the hold back), or refuse
	 */
	synchronized Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
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
	synchronized Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		long cooldown = this.cooldownUntil;
		if (cooldown - nowNanos > 0) {
			if (!this.probePending || !probesEarly(nowNanos)) {
				return duringCooldown(cooldown, nowNanos, latestStartNanos);
			}
			Admission turn = probeTurn(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
			return (turn != null) ? turn : duringCooldown(cooldown, nowNanos, latestStartNanos);
		}
		if (this.probePending) {
			Admission turn = probeTurn(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
			if (turn != null) {
				return turn;
			}
		}
		return paced(fresh, nowNanos, latestStartNanos, held);
	}

	/** The rate's answer: go while it is off, the slot already held, or a new slot. */
	private Admission paced(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
		RateState current = this.state;
		if (!current.engaged()) {
			return Admission.GO;
		}
		if (held != null && held.reason() == GateHold.RATE && held.epoch() == current.epoch()) {
			long slot = timeline(current).slot(held.slotNanos());
			if (slot - nowNanos > 0) {
				if (slot - latestStartNanos > 0) {
					return new Admission.Refuse("provider '" + this.scope + "' is paced at "
							+ String.format(Locale.ROOT, "%.1f", current.rate()) + " requests/s and this request's slot "
							+ "moved to " + seconds(slot - nowNanos) + " away as the rate fell (its fleet's share shrank), past "
							+ "the last instant (" + seconds(latestStartNanos - nowNanos)
							+ " from now) a useful attempt could start");
				}
				return (slot == held.untilNanos()) ? held : hold(slot, nowNanos, current.epoch(), held.slotNanos());
			}
			return send(current, nowNanos, latestStartNanos, held.epoch());
		}
		return reserveSlot(fresh, nowNanos, latestStartNanos);
	}

	/** As ProviderGate's: until the slot, or half-way while it is more than RATE_POLL away. */
	private static Admission.Hold hold(long slotNanos, long nowNanos, long epoch, long bookedNanos) {
		long wait = slotNanos - nowNanos;
		long until = (wait <= RATE_POLL.toNanos()) ? slotNanos : nowNanos + Math.max(RATE_POLL.toNanos(), wait / 2);
		return new Admission.Hold(until, GateHold.RATE, epoch, bookedNanos);
	}

	/** The timeline of the epoch {@code current} is in: {@link Timeline#NONE} until its rate changed within it. */
	private Timeline timeline(RateState current) {
		return (current.epoch() == this.timelineEpoch) ? this.timeline : Timeline.NONE;
	}

	/**
	 * After a cooldown, before its probe's answer: the first request the rate lets go goes as the probe; the others
	 * are held (each hold as long as the probe has been out, at least 10 ms, never past the probe's expiry or the
	 * request's last useful start) or, once their last useful start has come, refused. {@code null} once the probe
	 * has its answer.
	 */
	private Admission probeTurn(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		synchronized (this) {
			if (!this.probePending) {
				return null;
			}
			if (this.probeInFlight && this.probeExpiresNanos - nowNanos > 0) {
				if (nowNanos - latestStartNanos >= 0) {
					return new Admission.Refuse("provider '" + this.scope + "' ended its cooldown and its probe request "
							+ "has had no answer for " + seconds(nowNanos - this.probeSentNanos)
							+ ", up to the last instant a useful attempt could start");
				}
				long age = nowNanos - later(this.probeSentNanos, earlier(this.cooldownUntil, this.probeFrom));
				long poll = Math.min(100_000_000L, Math.max(MIN_PROBE_POLL_NANOS, age));
				long until = earlier(earlier(nowNanos + poll, this.probeExpiresNanos), latestStartNanos);
				return new Admission.Hold(until, GateHold.COOLDOWN, -1);
			}
			if (this.cooldownUntil - nowNanos > 0) {
				if (!probesEarly(nowNanos)) {
					return duringCooldown(this.cooldownUntil, nowNanos, latestStartNanos);
				}
				startLanesBy(nowNanos);
			}
			Admission paced = paced(fresh, nowNanos, latestStartNanos, held);
			if (paced != Admission.GO) {
				return paced;
			}
			this.probeRefused = false;
			this.probeInFlight = true;
			this.probeSentNanos = nowNanos;
			this.probeExpiresNanos = nowNanos + Math.max(1, Math.min(attemptTimeoutNanos, Long.MAX_VALUE / 4));
			return Admission.PROBE;
		}
	}

	/** While the gate is closed: refuse (fail-fast, or past the last useful start), or hold until it opens. */
	private Admission duringCooldown(long cooldown, long nowNanos, long latestStartNanos) {
		if (this.settings.mode() == PacingMode.FAIL_FAST) {
			return new Admission.Refuse("provider '" + this.scope + "' is cooling down for another "
					+ seconds(cooldown - nowNanos) + " as its Retry-After asked, and pacing is fail-fast");
		}
		long opens = earlier(cooldown, this.probeFrom);
		if (opens - latestStartNanos > 0) {
			return new Admission.Refuse("provider '" + this.scope + "' is cooling down for another "
					+ seconds(opens - nowNanos) + " as its Retry-After asked, past the last instant ("
					+ seconds(latestStartNanos - nowNanos) + " from now) a useful attempt could start");
		}
		return new Admission.Hold(opens, GateHold.COOLDOWN, -1);
	}

	private Admission send(RateState current, long nowNanos, long latestStartNanos, long epoch) {
		if (!current.engaged()) {
			return Admission.GO;
		}
		long interval = interval(current.rate());
		long tolerance = Saturating.multiply(2 * this.settings.burst() - 1, interval);
		long turn = later(this.sendTat - tolerance, nowNanos);
		if (turn - nowNanos > 0 && turn - latestStartNanos <= 0) {
			return new Admission.Hold(turn, GateHold.RATE, epoch, timeline(current).booked(turn));
		}
		this.sendTat = Saturating.add(later(this.sendTat, nowNanos), interval);
		return Admission.GO;
	}

	private void startLanesBy(long nowNanos) {
		RateState current = this.state;
		if (current.engaged() && (current.retryTat() - nowNanos > 0 || current.freshTat() - nowNanos > 0)) {
			this.state = current.withRetryTat(earlier(current.retryTat(), nowNanos))
				.withFreshTat(earlier(current.freshTat(), nowNanos));
		}
	}

	/**
	 * While the rate limit is on: books the earliest slot of the request's lanes (fresh requests may take the fresh
	 * lane's when it comes first), or refuses when it comes after the last useful start. Retries are paced at the whole
	 * rate unless a fresh request took a slot within the last {@link #FRESH_ACTIVITY}, and at
	 * {@code rate × (1 − freshShare)} while one did: the fresh share is kept for fresh requests when they come, and
	 * lent to the backlog when they do not.
	 */
	private Admission reserveSlot(boolean fresh, long nowNanos, long latestStartNanos) {
		synchronized (this) {
			RateState current = this.state;
			if (!current.engaged()) {
				return Admission.GO;
			}
			double share = this.settings.freshShare();
			boolean freshActive = current.freshUntil() - nowNanos > 0;
			long retryInterval = interval(current.rate() * ((fresh || freshActive) ? 1.0 - share : 1.0));
			long slot = slot(current.retryTat(), retryInterval, nowNanos);
			long freshInterval = (fresh && share > 0) ? interval(current.rate() * share) : 0;
			long freshSlot = (freshInterval > 0) ? slot(current.freshTat(), freshInterval, nowNanos) : slot;
			boolean freshLane = freshSlot - slot < 0;
			if (freshLane) {
				slot = freshSlot;
			}
			if (slot - latestStartNanos > 0) {
				return new Admission.Refuse("provider '" + this.scope + "' is paced at "
						+ String.format(Locale.ROOT, "%.1f", current.rate()) + " requests/s and its next slot is "
						+ seconds(slot - nowNanos) + " away, past the last instant (" + seconds(latestStartNanos - nowNanos)
						+ " from now) a useful attempt could start");
			}
			RateState booked = freshLane ? current.withFreshTat(later(current.freshTat(), slot) + freshInterval)
					: current.withRetryTat(later(current.retryTat(), slot) + retryInterval);
			this.state = fresh ? booked.withFreshUntil(Saturating.add(slot, FRESH_ACTIVITY.toNanos())) : booked;
			return (slot - nowNanos <= 0) ? send(this.state, nowNanos, latestStartNanos, current.epoch())
					: hold(slot, nowNanos, current.epoch(), timeline(current).booked(slot));
		}
	}

	/** Counts a request that starts waiting at this gate. */
	void enqueue() {
		this.queued.incrementAndGet();
	}

	/** Counts a request that stopped waiting at this gate. */
	void dequeue() {
		this.queued.decrementAndGet();
	}

	/**
	 * Returns how many requests are waiting at this gate.
	 * @return the count
	 */
	int queued() {
		return this.queued.get();
	}

	/**
	 * Returns the rate limit in force.
	 * @return requests per second, empty while the rate limit is off
	 */
	synchronized OptionalDouble rate() {
		RateState current = this.state;
		return current.engaged() ? OptionalDouble.of(current.rate()) : OptionalDouble.empty();
	}

	/**
	 * Returns how long the gate stays closed, read now on the gate's ticker.
	 * @return the remaining cooldown, zero when open
	 */
	synchronized Duration cooldownRemaining() {
		long remaining = this.cooldownUntil - this.ticker.read();
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	/**
	 * Returns the instant the gate opens.
	 * @return a reading of the gate's ticker, in the past when the gate is open
	 */
	synchronized long cooldownUntilNanos() {
		return this.cooldownUntil;
	}

	@Override
	public String toString() {
		return "ProviderGate[" + this.scope + ", mode=" + this.settings.mode() + ", rate="
				+ (rate().isPresent() ? String.format(Locale.ROOT, "%.1f/s", rate().getAsDouble()) : "off")
				+ ", cooldown=" + cooldownRemaining() + ", queued=" + queued() + "]";
	}

	/**
	 * The rate {@code t} seconds after the first success since the last change (or the end of a cooldown since, so
	 * the rate does not grow while the gate is closed): around a measured capacity, CUBIC's
	 * {@code growthScale × (t − K)³ + target}, {@code K = ∛((target − base) / growthScale)} (flat near the capacity,
	 * then probing above it ever faster); without one, {@code base × 2^t}, never below the cubic curve.
	 */
	private double grown(RateState state, long nowNanos) {
		double c = this.settings.growthScale();
		double k = Math.cbrt(Math.max(0, state.target() - state.base()) / c);
		double t = Math.max(0, nowNanos - later(state.growthStartNanos(), this.cooldownUntil)) / NANOS_PER_SECOND;
		double x = t - k;
		double cubic = c * x * x * x + state.target();
		double rate = state.measured() ? cubic : Math.max(cubic, state.base() * Math.pow(2, Math.min(t, 64)));
		return Math.max(this.settings.minRate(), rate);
	}

	/** Counts a success in the admission meter (under the gate's monitor), closing its window when it is over. */
	private void meter(long nowNanos) {
		long elapsed = nowNanos - this.meterStart;
		if (this.meterCount == 0 && Double.isNaN(this.meterRate) || elapsed < 0) {
			this.meterStart = nowNanos;
		}
		else if (elapsed >= METER_WINDOW.toNanos()) {
			this.meterRate = this.meterCount * NANOS_PER_SECOND / elapsed;
			this.meterStart = nowNanos;
			this.meterCount = 0;
		}
		this.meterCount++;
	}

	/** Whether a request reserving now would have to wait: the rate, not the demand, is what limits the sending. */
	private boolean limited(RateState current, long nowNanos) {
		double share = this.settings.freshShare();
		long retryInterval = interval(current.rate() * ((current.freshUntil() - nowNanos > 0) ? 1.0 - share : 1.0));
		return slot(current.retryTat(), retryInterval, nowNanos) - nowNanos > 0
				|| (share > 0 && slot(current.freshTat(), interval(current.rate() * share), nowNanos) - nowNanos > 0);
	}

	/** A lane's arrival time that has used up its burst tolerance: its next slot is {@code nowNanos}, then spaced. */
	private long spent(long nowNanos, long interval) {
		return Saturating.add(nowNanos, Saturating.multiply(this.settings.burst() - 1, interval));
	}

	private long slot(long tat, long interval, long nowNanos) {
		long tolerance = Saturating.multiply(this.settings.burst() - 1, interval);
		return later(tat - tolerance, nowNanos);
	}

	/** The later of two ticker readings, compared by their difference like {@link System#nanoTime()}. */
	private static long later(long a, long b) {
		return (a - b > 0) ? a : b;
	}

	/** The earlier of two ticker readings, compared by their difference. */
	private static long earlier(long a, long b) {
		return (a - b < 0) ? a : b;
	}

	private static long interval(double rate) {
		return Math.max(1, (long) Math.ceil(NANOS_PER_SECOND / rate));
	}

	private static String seconds(long nanos) {
		return Seconds.format(nanos);
	}

	/**
	 * The rate limit, its growth curve, a measurement under way, both lanes' theoretical arrival times and until when
	 * fresh requests are about: one immutable value, replaced whole under the gate's monitor.
	 * @param engaged whether the rate limit is on
	 * @param rate requests per second
	 * @param target the rate the growth curve flattens at (a measured capacity, or the rate before the last decrease)
	 * @param base the rate right after the last change, where growth starts
	 * @param measured whether {@code target} was measured (cubic growth) or not (doubling)
	 * @param lastDecreaseNanos the last change: throttles of requests sent before it are stale
	 * @param growthStartNanos the first success since the last change, where the growth's clock starts
	 * @param admittedSinceDecrease whether the provider admitted a request since the last change
	 * @param sample the measurement under way, or {@code null}
	 * @param epoch the number of changes that voided reserved slots
	 * @param retryTat the retry lane's theoretical arrival time
	 * @param freshTat the fresh lane's theoretical arrival time
	 * @param freshUntil until when retries keep to their share because a fresh request took a slot
	 * @param quota the rate the provider's announced quota allows, capping growth; 0 when none was announced
	 * @param quotaPaced whether the quota turned the rate on (then a quota with room to spare lets it go)
	 */
	private static final class RateState {

		private boolean engaged;

		private double rate;

		private double target;

		private double base;

		private boolean measured;

		private long lastDecreaseNanos;

		private long growthStartNanos;

		private boolean admittedSinceDecrease;

		private Sample sample;

		private long epoch;

		private long retryTat;

		private long freshTat;

		private long freshUntil;

		private double quota;

		private boolean quotaPaced;

		RateState(boolean engaged, double rate, double target, double base, boolean measured, long lastDecreaseNanos, long growthStartNanos, boolean admittedSinceDecrease, Sample sample, long epoch, long retryTat, long freshTat, long freshUntil, double quota, boolean quotaPaced) {
			this.engaged = engaged;
			this.rate = rate;
			this.target = target;
			this.base = base;
			this.measured = measured;
			this.lastDecreaseNanos = lastDecreaseNanos;
			this.growthStartNanos = growthStartNanos;
			this.admittedSinceDecrease = admittedSinceDecrease;
			this.sample = sample;
			this.epoch = epoch;
			this.retryTat = retryTat;
			this.freshTat = freshTat;
			this.freshUntil = freshUntil;
			this.quota = quota;
			this.quotaPaced = quotaPaced;
		}

		boolean engaged() {
			return this.engaged;
		}

		double rate() {
			return this.rate;
		}

		double target() {
			return this.target;
		}

		double base() {
			return this.base;
		}

		boolean measured() {
			return this.measured;
		}

		long lastDecreaseNanos() {
			return this.lastDecreaseNanos;
		}

		long growthStartNanos() {
			return this.growthStartNanos;
		}

		boolean admittedSinceDecrease() {
			return this.admittedSinceDecrease;
		}

		Sample sample() {
			return this.sample;
		}

		long epoch() {
			return this.epoch;
		}

		long retryTat() {
			return this.retryTat;
		}

		long freshTat() {
			return this.freshTat;
		}

		long freshUntil() {
			return this.freshUntil;
		}

		double quota() {
			return this.quota;
		}

		boolean quotaPaced() {
			return this.quotaPaced;
		}



		/** In place: a booked slot allocates nothing. */
		RateState withRetryTat(long tat) {
			this.retryTat = tat;
			return this;
		}

		/** In place: a booked slot allocates nothing. */
		RateState withFreshTat(long tat) {
			this.freshTat = tat;
			return this;
		}

		/** In place: a booked slot allocates nothing. */
		RateState withFreshUntil(long until) {
			this.freshUntil = until;
			return this;
		}

		RateState withRate(double grown) {
			return new RateState(this.engaged, grown, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch, this.retryTat,
					this.freshTat, this.freshUntil, this.quota, this.quotaPaced);
		}

		RateState withSample(Sample next) {
			return new RateState(this.engaged, this.rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, next, this.epoch, this.retryTat, this.freshTat,
					this.freshUntil, this.quota, this.quotaPaced);
		}

		RateState withQuota(double perSecond) {
			return new RateState(this.engaged, Math.min(this.rate, perSecond), this.target, this.base, this.measured,
					this.lastDecreaseNanos, this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch,
					this.retryTat, this.freshTat, this.freshUntil, perSecond, this.quotaPaced);
		}

		/** The first success since the last change starts the growth's clock. */
		RateState admitted(long nowNanos) {
			return this.admittedSinceDecrease ? this
					: new RateState(this.engaged, this.rate, this.target, this.base, this.measured,
							this.lastDecreaseNanos, nowNanos, true, this.sample, this.epoch, this.retryTat, this.freshTat,
							this.freshUntil, this.quota, this.quotaPaced);
		}

		/** The growth curve restarted at the current rate now, while the rate is not in use. */
		RateState regrowFrom(long nowNanos) {
			return new RateState(this.engaged, this.rate, this.measured ? this.target : this.rate, this.rate,
					this.measured, this.lastDecreaseNanos, nowNanos, true, this.sample, this.epoch, this.retryTat,
					this.freshTat, this.freshUntil, this.quota, this.quotaPaced);
		}

		/** A measurement under way at the same rate: reserved slots stand. */
		RateState measuring(Sample started, long nowNanos) {
			return new RateState(true, this.rate, this.target, this.base, this.measured, nowNanos, this.growthStartNanos,
					true, started, this.epoch, this.retryTat, this.freshTat, this.freshUntil, this.quota, false);
		}

		/** A measurement that leaves the rate where it is, as the new start of its growth. */
		RateState afterSample(double at, boolean capacity, long nowNanos) {
			return new RateState(true, at, at, at, capacity, nowNanos, nowNanos, true, null, this.epoch, this.retryTat,
					this.freshTat, this.freshUntil, this.quota, this.quotaPaced);
		}

	}

	/**
	 * A measurement of what the provider admits, started by a refusal (so its bucket was empty): the responses to
	 * requests sent since {@code startNanos}.
	 * @param startNanos when it started
	 * @param admitted successes counted
	 * @param refused refusals counted
	 * @param lastSentNanos the latest send among them
	 */
	private record Sample(long startNanos, int admitted, int refused, long lastSentNanos, long firstSentNanos,
			long countFromNanos) {

		Sample admitted(long sentAtNanos) {
			return new Sample(this.startNanos, this.admitted + 1, this.refused, later(this.lastSentNanos, sentAtNanos),
					firstSent(sentAtNanos), this.countFromNanos);
		}

		Sample refused(long sentAtNanos) {
			return new Sample(this.startNanos, this.admitted, this.refused + 1, later(this.lastSentNanos, sentAtNanos),
					firstSent(sentAtNanos), this.countFromNanos);
		}

		Sample recountFrom(long nowNanos) {
			return new Sample(this.startNanos, 0, 0, later(this.lastSentNanos, nowNanos), nowNanos, nowNanos);
		}

		private long firstSent(long sentAtNanos) {
			return (this.admitted + this.refused == 0) ? sentAtNanos : earlier(this.firstSentNanos, sentAtNanos);
		}

		/**
		 * The successes per second the provider admitted, over the span of the counted requests' sends, from the first
		 * to the last (a span from the sample's start also counted the wait before the first send: on loopback it
		 * underestimated the provider by 10-25%, and the rate stayed there); from the start when fewer than two sends
		 * or no time separate them.
		 */
		double admittedPerSecond() {
			return this.admitted * NANOS_PER_SECOND / sendSpanNanos();
		}

		/** The requests per second the counted requests were sent at, over the span {@link #admittedPerSecond} uses. */
		double sentPerSecond() {
			return (this.admitted + this.refused) * NANOS_PER_SECOND / sendSpanNanos();
		}

		private long sendSpanNanos() {
			long sendSpan = this.lastSentNanos - this.firstSentNanos;
			return (this.admitted + this.refused < 2 || sendSpan <= 0) ? Math.max(1, this.lastSentNanos - this.countFromNanos)
					: sendSpan;
		}

		long spanNanos() {
			return this.lastSentNanos - this.startNanos;
		}

		boolean complete() {
			return this.admitted + this.refused >= SAMPLE_RESPONSES || spanNanos() >= SAMPLE_SPAN.toNanos();
		}

	}

	/** ProviderGate's timeline of one epoch's booked slots, copied. */
	private record Timeline(long originNanos, double scale, double shiftNanos) {

		static final Timeline NONE = new Timeline(0, 1, 0);

		long slot(long bookedNanos) {
			return (this == NONE) ? bookedNanos
					: this.originNanos + Math.round((bookedNanos - this.originNanos) * this.scale + this.shiftNanos);
		}

		long booked(long slotNanos) {
			return (this == NONE) ? slotNanos
					: this.originNanos + Math.round((slotNanos - this.originNanos - this.shiftNanos) / this.scale);
		}

		Timeline then(long nowNanos, double factor) {
			long origin = (this == NONE) ? nowNanos : this.originNanos;
			double shift = this.shiftNanos * factor + (nowNanos - origin) * (1 - factor);
			return new Timeline(origin, this.scale * factor, shift);
		}

		static long moved(long tatNanos, long nowNanos, double factor) {
			return (tatNanos - nowNanos > 0) ? nowNanos + Math.round((tatNanos - nowNanos) * factor) : tatNanos;
		}

	}

}
