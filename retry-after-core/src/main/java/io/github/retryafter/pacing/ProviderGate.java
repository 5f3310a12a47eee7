package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.internal.Seconds;

/**
 * One scope's gate: a cooldown and an adaptive admission rate shared by every request of that {@link Scope} (a whole
 * provider, or one origin of a provider that keeps its state per origin).
 * <p>
 * <b>Cooldown.</b> {@link #closeUntil(long)} closes the gate until the instant a {@code Retry-After} named, but never
 * for longer than {@link PacingSettings#maxCooldown()} from now; the gate opens at the latest instant any hint named: a
 * later instant extends it, an earlier one never shortens it. While it is closed, {@link #admit} holds every request,
 * fresh or retry, until it opens ({@link PacingMode#HOLD}), or refuses it ({@link PacingMode#FAIL_FAST}, or when the
 * request could not start a useful attempt by then). {@link #reset()} opens it at once.
 * <p>
 * <b>Probe.</b> When a cooldown ends, the first request admitted is a {@link Admission.Probe probe}: the others are held
 * until {@link #probeAnswered(boolean)} reports its answer (polling at intervals that double with the probe's age,
 * each at most its own last useful start), so a provider coming back meets one request, not a backlog. A refusal that closes
 * the gate again means another probe after the new cooldown; any other answer opens the gate to the paced rate. A
 * probe that never reports (its caller went away) stops counting once its attempt timeout has passed. A gate that
 * holds ({@link PacingMode#HOLD}) sends the probe early: from the earliest instant named since the provider last
 * refused, not the latest, because the hints of a burst in flight name instants spread over as long as the burst took
 * to answer. Its success opens the gate before the cooldown's end; a refusal, or any hint that arrives while it is
 * out, keeps the cooldown, and the next probe waits for that hint. A fleet's gate asks its {@link ProbeArbiter} as for
 * any probe, so the fleet sends one; its instances that follow it open at the fleet's cooldown's end, as before.
 * <p>
 * <b>Rate.</b> The first throttle ({@link #onThrottle}) turns on a rate limit of {@code decreaseFactor × maxRate},
 * capped once a request sent since succeeds at what the provider admitted of the burst that throttle cut short. From
 * then on the rate follows what the provider admits. Once the provider admits requests, a refusal (a 429 or 503 while
 * the gate is open) means its bucket is empty: the rate drops by {@code decreaseFactor} (unless it already sits at a
 * measured capacity) and the gate measures the successes per second of the requests sent since; when the measurement is
 * complete and more than {@code 1 − HEADROOM} of them were refused, the rate becomes {@link #HEADROOM} × that measured
 * capacity, a drop in proportion to the overshoot; with fewer refused, the rate less the share refused (a rate a hair
 * above the provider would cost a refusal or two in every measurement). A 429 asking for at most a second from such a
 * provider is a rate signal, not a cooldown ({@link #absorbs}): the engine leaves the gate open and only the refused
 * request waits for its hint. Successes ({@link #onSuccess}) grow the rate: doubling every second while the provider
 * has never refused at this rate, along CUBIC's curve around a measured capacity (flat near it, then probing above),
 * until it reaches {@code maxRate}, where the limit lets go (unless more than {@code burst} requests are held: the
 * backlog drains at {@code maxRate} first). A throttle that is not a refusal (the provider is down, or
 * a cooldown is in force) lowers the rate by {@code decreaseFactor}, and only once the provider has admitted a request
 * since the last decrease: a provider answering nothing but 503s is down, and its cooldowns already pace the probes.
 * While it is on, each request reserves a slot (generic cell rate algorithm: theoretical arrival times, no timer and no
 * queue) in one of two lanes: retries in a lane paced at the whole rate, or at {@code rate × (1 − freshShare)} while
 * fresh requests are about, fresh requests in a lane paced at {@code rate × freshShare} or in the retry lane, whichever
 * slot comes first. So a backlog drains at about the provider's rate, in the order requests became eligible, and fresh
 * requests always have a share of their own. A drop starts a new epoch: slots reserved before it are void, and their
 * holders reserve again when they wake, at the lower rate and after the cooldown; a rise within an epoch (the rate
 * grew, the fleet gave the gate a larger share) brings the slots already reserved forward, in their order, and a holder
 * more than 100 ms from its slot asks again half-way there, so a backlog booked at one rate drains at the next. A send
 * lane spaces the actual sends at the rate with a tolerance of two bursts, so holders woken late together by a client's
 * stall go spaced, not at once. A measurement during which the client sent less than half its rate measured the demand,
 * not the provider, and lowers the rate by {@code decreaseFactor} at most.
 * <p>
 * Every instant is a reading of the gate's {@link Ticker}, compared by difference like {@link System#nanoTime()}, so a
 * ticker that wraps around the end of {@code long} is fine; durations (the spacing of slots, the burst tolerance)
 * saturate, so no setting or reading makes the gate throw. Thread-safe: the cooldown is an {@link AtomicLong} read
 * without a lock and raised under a per-gate lock, with the early probe's instant; the rate and both lanes are one
 * immutable state, read without a lock and replaced under the same lock (a contention benchmark chose the lock for
 * writers), so the success path of an unthrottled provider reads two fields, takes no lock and writes nothing.
 */
public final class ProviderGate {

	/** The longest {@code Retry-After} on a 429 that {@link #absorbs} treats as a rate signal: one second. */
	public static final Duration RATE_REFUSAL_HINT = Duration.ofSeconds(1);

	/** Responses a measurement of the provider's admissions needs, unless it spans {@link #SAMPLE_SPAN} first. */
	static final int SAMPLE_RESPONSES = 32;

	/** The fewest responses a measurement of a gate with a small {@link #share(double) share} needs. */
	static final int MIN_SAMPLE_RESPONSES = 4;

	/** The longest a measurement of the provider's admissions runs before it concludes on what it has. */
	static final Duration SAMPLE_SPAN = Duration.ofSeconds(1);

	/** The share of a measured capacity the rate is set to, leaving the provider room for jitter in arrivals. */
	static final double HEADROOM = 0.95;

	/** The window the provider's admitted successes per second are counted over, to cap the rate's growth. */
	static final Duration METER_WINDOW = Duration.ofMillis(250);

	/** How long a fresh request's slot keeps retries to their share of the rate. */
	static final Duration FRESH_ACTIVITY = Duration.ofSeconds(1);

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	/** How long, at the most, a request holding a slot waits without asking again, unless its slot is nearer. */
	private static final Duration RATE_POLL = Duration.ofMillis(100);

	/** How often, at the least, requests held behind a probe ask again. */
	private static final long MIN_PROBE_POLL_NANOS = 10_000_000L;

	/** How long, at the most, requests held behind a probe wait before they ask again. */
	private static final long MAX_PROBE_POLL_NANOS = 100_000_000L;

	private final Scope scope;

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

	/**
	 * The successes per second the provider admitted in the last completed {@link #METER_WINDOW}, {@code NaN} before
	 * one completed; with {@link #meterStart} and {@link #meterCount}, per gate, three numbers, read and written only
	 * under {@link #rateWriteLock} by successes while the rate is on.
	 */
	private double meterRate = Double.NaN;

	private long meterStart;

	private int meterCount;

	// the send lane's theoretical arrival time (see send), guarded by rateWriteLock
	private long sendTat;

	/*
	 * The burst the first throttle cut short (see burstCapped), guarded by rateWriteLock: whether its successes are
	 * being counted, when the throttle turned the rate on, how many of its requests the provider admitted within
	 * SAMPLE_SPAN of it, and when the last of those answered.
	 */
	private boolean burstCounting;

	private long burstSince;

	private int burstAdmitted;

	private long burstLastNanos;

	private final AtomicInteger queued = new AtomicInteger();

	// the share of the provider's capacity this gate paces for: 1 alone, 1/N as one of a fleet's N instances
	private volatile double share = 1.0;

	// whether the next request admitted after the cooldown is a probe; read without a lock on every admission
	private volatile boolean probePending;

	/**
	 * The earliest instant a hint named since the provider last refused after it (guarded by {@link #rateWriteLock},
	 * read without it): from then on, while the cooldown runs to the latest instant, one request may go early as the
	 * probe, and its success opens the gate. Only while the gate holds ({@link PacingMode#HOLD}); a fleet's gate asks its
	 * {@link ProbeArbiter} for it.
	 */
	private volatile long probeFrom;

	// whether a hint came while this gate's own probe was out (its answer, or a straggler's), guarded by rateWriteLock
	private boolean probeRefused;

	// the probe in flight, guarded by rateWriteLock: when it was sent, and when it stops counting
	private boolean probeInFlight;

	private long probeSentNanos;

	private long probeExpiresNanos;

	// whether the probe in flight is another instance's (see followProbe), guarded by rateWriteLock
	private boolean probeRemote;

	// the fleet's arbiter of probes, if any; whether this gate asked it after the current cooldown and was granted
	private volatile ProbeArbiter arbiter;

	private boolean probeRequested;

	private boolean probeGranted;

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
		this.cooldownUntil = new AtomicLong(now);
		this.probeFrom = now;
		this.sendTat = now;
		this.state = new AtomicReference<>(new RateState(false, 0, 0, 0, false, now, now, false, null, 0, now, now, now, 0, false,
				Timeline.NONE));
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
	 * Sets the share of the provider's capacity this gate paces for: {@code 1} for a gate that alone sends to its
	 * provider, {@code 1/N} for one of N instances of a fleet that share the provider (the fleet store sets it from
	 * the instances it counts). The rate the first throttle turns on, the floor, the burst, an announced quota and
	 * the measurement's size scale with it, so N gates at {@code 1/N} together send what one gate would: after a
	 * cooldown the fleet starts at {@code decreaseFactor × maxRate}, not N times that, and learns the provider's
	 * capacity from about as many refusals as one gate would (a measurement from fewer responses than one gate's
	 * lowers the rate by {@code decreaseFactor} at most). An instance that carries more than its share of the traffic
	 * regains the rest as any gate grows its rate, and lets go at the whole {@code maxRate}, as one gate does. A rate
	 * in force moves with the share (twice the share, twice the rate, floor and ceiling kept), and so do the slots its
	 * holders booked: when half the fleet's instances have drained their backlog, the others drain theirs twice as
	 * fast, in the order they booked it. The same share again changes nothing and takes no lock.
	 * @param share a fraction in {@code (0, 1]}
	 * @throws IllegalArgumentException if {@code share} is not in {@code (0, 1]}
	 */
	public void share(double share) {
		if (!(share > 0 && share <= 1)) {
			throw new IllegalArgumentException("a gate's share of its provider must be in (0, 1] but was " + share);
		}
		if (share == this.share) {
			return;
		}
		synchronized (this.rateWriteLock) {
			double before = this.share;
			this.share = share;
			RateState current = this.state.get();
			if (current.engaged()) {
				long now = this.ticker.read();
				double by = share / before;
				double rate = Math.max(minRate(), Math.min(maxRate(), current.rate() * by));
				this.sendTat = Timeline.moved(this.sendTat, now, current.rate() / rate);
				this.state.set(current.rerated(rate / current.rate(), now));
			}
		}
	}

	/**
	 * Paces at {@code perSecond} from now, within this gate's floor and ceiling at its share, while the rate limit is
	 * on: a fleet store sets it to this instance's part of what the fleet's gates together pace at, in proportion to
	 * the backlog each holds, so the fleet's instances drain their backlogs together instead of each at a rate it
	 * measured alone. The rate's curve and the slots booked move with it, as for {@link #share(double)}. Ignored while
	 * the rate is off, follows an announced quota or is being measured, for a value that is not a positive finite
	 * rate, and for a change of less than 5%.
	 * @param perSecond the rate, requests per second
	 * @param nowNanos now, on the gate's ticker
	 */
	public void paceAt(double perSecond, long nowNanos) {
		if (!(perSecond > 0) || Double.isInfinite(perSecond) || !this.state.get().engaged()) {
			return;
		}
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (!current.engaged() || current.quotaPaced() || current.sample() != null) {
				return;
			}
			double rate = Math.max(minRate(), Math.min(maxRate(), perSecond));
			if (Math.abs(rate / current.rate() - 1) < 0.05) {
				return;
			}
			this.sendTat = Timeline.moved(this.sendTat, nowNanos, current.rate() / rate);
			this.state.set(current.rerated(rate / current.rate(), nowNanos));
		}
	}

	/**
	 * Returns the share of the provider's capacity this gate paces for.
	 * @return {@code 1} unless a fleet store set it (see {@link #share(double)})
	 */
	public double share() {
		return this.share;
	}

	/** The most a quota may set and the base of the first throttle's rate, scaled to this gate's share. */
	private double maxRate() {
		return this.settings.maxRate() * this.share;
	}

	/** The lowest rate, scaled to this gate's share. */
	private double minRate() {
		return this.settings.minRate() * this.share;
	}

	/** The burst, scaled to this gate's share: at least one request. */
	private long burst() {
		return Math.max(1, Math.round(this.settings.burst() * this.share));
	}

	/** The responses a measurement needs, scaled to this gate's share: at least {@link #MIN_SAMPLE_RESPONSES}. */
	private int sampleResponses() {
		return (int) Math.max(MIN_SAMPLE_RESPONSES, Math.round(SAMPLE_RESPONSES * this.share));
	}

	/**
	 * Closes the gate until {@code instantNanos}, but no longer than {@link PacingSettings#maxCooldown()} from now,
	 * unless it is already closed until later, and records it for the early probe: the earliest instant named since the
	 * provider last refused. An instant that has passed changes nothing. Takes the gate's lock (a throttle, never a
	 * success).
	 * @param instantNanos the instant a {@code Retry-After} named, on the gate's ticker
	 */
	public void closeUntil(long instantNanos) {
		long now = this.ticker.read();
		// a quarter of long's range: instants stay comparable by difference
		long cap = now + Math.min(Saturating.toNanos(this.settings.maxCooldown()), Long.MAX_VALUE / 4);
		long until = (instantNanos - cap > 0) ? cap : instantNanos;
		if (until - now <= 0) {
			return;
		}
		synchronized (this.rateWriteLock) {
			long before = this.cooldownUntil.get();
			if ((before - now <= 0 && !this.probePending) || this.probeFrom - now <= 0) {
				// a new cooldown, or a refusal since the earliest instant passed: the next probe waits for this hint
				this.probeFrom = until;
			}
			else if (until - this.probeFrom < 0) {
				this.probeFrom = until;
			}
			if (this.probeInFlight) {
				// a refusal while the probe is out (this gate's own, or the fleet's it follows): the probe opens nothing
				this.probeRefused = true;
			}
			if (until - before > 0) {
				this.cooldownUntil.set(until);
				if (this.arbiter != null) {
					// a later cooldown: the fleet decides anew who probes after it
					this.probeRequested = false;
					this.probeGranted = false;
				}
			}
			this.probePending = true;
		}
	}

	/**
	 * Whether one request may go as the probe before the cooldown's end: the earliest instant named since the last
	 * refusal has passed, and the gate holds rather than fails fast (a fleet's gate then asks its arbiter).
	 */
	private boolean probesEarly(long nowNanos) {
		return this.probeFrom - nowNanos <= 0 && this.settings.mode() == PacingMode.HOLD;
	}

	/**
	 * Sets the arbiter that decides which instance of a fleet probes after a cooldown the fleet shares (the fleet store
	 * sets it); without one the gate probes at once.
	 * @param arbiter the arbiter, or {@code null} for none
	 */
	public void arbiter(ProbeArbiter arbiter) {
		this.arbiter = arbiter;
	}

	/**
	 * Reports the {@link ProbeArbiter arbiter}'s answer that this gate sends the fleet's probe: its next request after
	 * the cooldown goes as the probe.
	 */
	public void probeGranted() {
		synchronized (this.rateWriteLock) {
			if (this.probePending) {
				this.probeGranted = true;
				if (this.probeRemote) {
					// it followed another instance's claim: the probe is now its own
					this.probeInFlight = false;
					this.probeRemote = false;
				}
			}
		}
	}

	/**
	 * Opens the gate now: ends the cooldown, forgets any probe and turns the rate limit off (an operator's escape
	 * hatch, for a provider known to be back). Requests held at the gate go when they next ask.
	 */
	public void reset() {
		synchronized (this.rateWriteLock) {
			long now = this.ticker.read();
			this.cooldownUntil.set(now);
			this.probeFrom = now;
			this.probePending = false;
			this.probeRefused = false;
			this.probeInFlight = false;
			this.probeRemote = false;
			this.probeRequested = false;
			this.probeGranted = false;
			RateState current = this.state.get();
			// the rate limit off and nothing measured: as a new gate, in a new epoch so held slots are void
			this.state.set(new RateState(false, 0, 0, 0, false, now, now, false, null, current.epoch() + 1, now, now, now,
					0, false, Timeline.NONE));
		}
	}

	/**
	 * Reports that the request admitted as a {@link Admission.Probe probe} has its answer, or none because its
	 * operation ended: the requests held behind it go when they next ask. Only a probe the provider {@code admitted}
	 * (a success) opens the gate before the cooldown's end; any other answer (a refusal, a failure without a hint, a
	 * timeout, a lost response, a cancelled operation) keeps the cooldown to the latest instant named: the next probe
	 * goes at the instant a hint that came with the answer named, or else at the cooldown's end.
	 * @param admitted whether the provider admitted the probe (it succeeded)
	 */
	public void probeAnswered(boolean admitted) {
		synchronized (this.rateWriteLock) {
			answer(admitted && !this.probeRemote);
		}
	}

	/**
	 * Ends the probe in flight (under {@link #rateWriteLock}); {@code admitted}: the provider admitted it, so a probe
	 * sent early, before the latest instant named, and not refused since, opens the gate now.
	 */
	private void answer(boolean admitted) {
		long now = this.ticker.read();
		if (admitted && this.probeInFlight && !this.probeRefused && this.cooldownUntil.get() - now > 0) {
			// the provider is back
			this.cooldownUntil.set(now);
			startLanesBy(now);
		}
		else if (!admitted && this.probeInFlight && !this.probeRemote && !this.probeRefused) {
			// an early probe of its own that failed without a hint: no other goes early, the next at the cooldown's end
			this.probeFrom = this.cooldownUntil.get();
		}
		this.probeInFlight = false;
		this.probeRemote = false;
		this.probeRefused = false;
		this.probeRequested = false;
		this.probeGranted = false;
		if (this.cooldownUntil.get() - now <= 0) {
			this.probePending = false;
		}
	}

	/**
	 * Reports that the request admitted as a {@link Admission.Probe probe} was not sent (the retry budget held it
	 * back): the probe is still to come, and the next request the gate admits goes as the probe instead.
	 */
	public void probeWithdrawn() {
		synchronized (this.rateWriteLock) {
			if (!this.probeRemote) {
				this.probeInFlight = false;
			}
		}
	}

	/**
	 * Returns whether the gate waits for a probe's answer after a cooldown (its own probe, or the fleet's): the first
	 * request admitted after the cooldown probes, or the probe is out.
	 * @return whether a probe is still to be answered
	 */
	public boolean probePending() {
		return this.probePending;
	}

	/**
	 * Reports that another instance of the fleet sends the probe after this gate's cooldown: this gate's requests are
	 * held after the cooldown, as behind a probe of its own, until {@link #probeAnswered(boolean)} reports the fleet's
	 * probe answered or {@code expiresNanos} passes (the other instance went away), when this gate probes for itself. Does
	 * nothing unless a cooldown ended or is in force and no probe of this gate's own is out; an instant that has passed
	 * lets this gate probe for itself.
	 * @param expiresNanos the last instant to wait for the fleet's probe, on the gate's ticker
	 * @return whether the gate now follows the fleet's probe (then report its answer with
	 * {@link #fleetProbeAnswered()})
	 */
	public boolean followProbe(long expiresNanos) {
		synchronized (this.rateWriteLock) {
			if (!this.probePending || (this.probeInFlight && !this.probeRemote)) {
				return false;
			}
			this.probeInFlight = true;
			this.probeRemote = true;
			this.probeRefused = false;
			this.probeSentNanos = later(this.cooldownUntil.get(), this.ticker.read() - 1);
			this.probeExpiresNanos = expiresNanos;
			return true;
		}
	}

	/**
	 * Reports that the fleet's probe this gate follows ({@link #followProbe}) has its answer: as
	 * {@link #probeAnswered(boolean)}, but only while the probe in flight is the fleet's, so a probe of this gate's own
	 * is never taken for answered.
	 */
	public void fleetProbeAnswered() {
		synchronized (this.rateWriteLock) {
			if (this.probeRemote) {
				answer(false);
			}
		}
	}

	/**
	 * Reports that the provider admitted the fleet's probe this gate follows ({@link #followProbe}): as
	 * {@link #fleetProbeAnswered()}, and the gate opens now, as after a probe of its own that succeeded, unless it
	 * learned of a refusal since it began to follow. Each request still waits for its own operation's hint.
	 */
	public void fleetProbeAdmitted() {
		synchronized (this.rateWriteLock) {
			if (this.probeRemote) {
				answer(true);
			}
		}
	}

	/**
	 * Returns whether a probe is out and the gate's other requests wait for its answer.
	 * @return whether a probe is in flight
	 */
	public boolean probing() {
		synchronized (this.rateWriteLock) {
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
	public boolean absorbs(int status, Optional<Duration> floor) {
		RateState current = this.state.get();
		return status == 429 && current.engaged() && (current.admittedSinceDecrease() || current.sample() != null)
				&& this.cooldownUntil.get() - this.ticker.read() <= 0
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
	public void onThrottle(long sentAtNanos, long nowNanos) {
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (current.engaged() && sentAtNanos - current.lastDecreaseNanos() <= 0) {
				if (current.sample() != null && sentAtNanos - current.sample().countFromNanos() < 0) {
					recount(current, current.sample(), sentAtNanos, nowNanos);
				}
				return;
			}
			boolean open = this.cooldownUntil.get() - nowNanos <= 0;
			if (current.engaged() && open && (current.admittedSinceDecrease() || current.sample() != null)) {
				onRefusal(current, sentAtNanos, nowNanos);
				return;
			}
			if (current.engaged() && !current.admittedSinceDecrease()) {
				return;
			}
			if (!current.engaged()) {
				// the rate turns on: count what the provider admits of the requests already on their way
				this.burstCounting = true;
				this.burstSince = nowNanos;
				this.burstAdmitted = 0;
				this.burstLastNanos = nowNanos;
			}
			double before = current.engaged() ? current.rate() : maxRate();
			boolean quotaPaced = current.engaged() && current.quotaPaced();
			double rate = quotaPaced ? before : Math.max(minRate(), before * this.settings.decreaseFactor());
			long restart = later(nowNanos, this.cooldownUntil.get());
			this.state.set(new RateState(true, rate, before, rate, current.measured(), nowNanos, nowNanos, false, null,
					current.epoch() + 1, restart, restart, current.freshUntil(), current.quota(), quotaPaced, Timeline.NONE));
		}
	}

	/** A throttle while the provider is admitting: start a measurement, count a refusal, or set the measured rate. */
	private void onRefusal(RateState current, long sentAtNanos, long nowNanos) {
		Sample sample = current.sample();
		if (sample == null) {
			Sample started = new Sample(nowNanos, 0, 0, nowNanos, nowNanos, nowNanos);
			boolean atCapacity = current.measured() && current.rate() <= current.target();
			this.state.set(atCapacity ? current.measuring(started, nowNanos)
					: restarted(current, Math.max(minRate(), current.rate() * this.settings.decreaseFactor()),
							current.rate(), current.measured(), nowNanos, started));
			return;
		}
		if (sentAtNanos - sample.countFromNanos() < 0) {
			recount(current, sample, sentAtNanos, nowNanos);
			return;
		}
		Sample counted = sample.refused(sentAtNanos);
		if (!counted.complete(sampleResponses())) {
			this.state.set(current.withSample(counted));
			return;
		}
		this.state.set(concluded(current, counted, nowNanos));
	}

	/**
	 * A response to a request sent before the measurement counts from arrived during it: that request took what the
	 * provider had to give while the counted ones were on their way, so the count starts again from now (under the
	 * lock). The measurement still ends within {@link #SAMPLE_SPAN} of its start.
	 */
	private void recount(RateState current, Sample sample, long sentAtNanos, long nowNanos) {
		// only a request sent before the measurement started: one sent since, before the count's start, is not counted
		if (sentAtNanos - sample.startNanos() < 0) {
			this.state.set(current.withSample(sample.recountFrom(nowNanos)));
		}
	}

	/**
	 * A measurement that is complete: a refused share within the headroom trims the rate by that share (now a
	 * measured capacity, so it grows along the cubic curve); a larger one sets it to {@code HEADROOM ×} the admitted
	 * successes per second; none at all means the provider admits more than the rate, which grows fast, unless the
	 * rate already sits at a measured capacity (the refusal was a stray one), where it keeps growing along the cubic
	 * curve. Under {@link #rateWriteLock}: a trim moves the send lane too.
	 */
	private RateState concluded(RateState current, Sample sample, long nowNanos) {
		if (sample.refused() == 0) {
			return current.afterSample(current.rate(), current.measured(), nowNanos);
		}
		double refusedShare = sample.refused() / (double) (sample.admitted() + sample.refused());
		if (refusedShare <= 1.0 - HEADROOM) {
			// within the headroom the rate is a measured capacity, less the share the provider refused: a rate a
			// little above the provider (a refusal or two in each measurement, each refused request waiting out its
			// hint) comes down to it, and a stray refusal moves it by as little as it weighs
			double at = Math.max(minRate(), current.rate() * (1 - refusedShare));
			if (at >= current.rate()) {
				return current.afterSample(current.rate(), true, nowNanos);
			}
			this.sendTat = Timeline.moved(this.sendTat, nowNanos, current.rate() / at);
			return current.movedTo(at, nowNanos).afterSample(at, true, nowNanos);
		}
		int responses = sample.admitted() + sample.refused();
		double measured = sample.admittedPerSecond() * HEADROOM;
		boolean fewResponses = this.share < 1 && responses < SAMPLE_RESPONSES;
		// requests sent at less than half the rate: the demand, not the provider, set what was admitted
		boolean demandLimited = sample.sentPerSecond() < current.rate() / 2;
		if (fewResponses || demandLimited) {
			// a fleet's gate measures its share from few responses, and a client that sent less than its rate measures
			// its own demand: either conclusion lowers the rate by decreaseFactor at most, and a refusal after it
			// measures again
			measured = Math.max(measured, current.rate() * this.settings.decreaseFactor());
		}
		double rate = Math.max(minRate(), Math.min(current.rate(), measured));
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
				retryTat, freshTat, current.freshUntil(), current.quota(), false, Timeline.NONE);
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
	public void onSuccess(long sentAtNanos, long nowNanos) {
		if (!this.state.get().engaged()) {
			return;
		}
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
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
				else if (this.burstAdmitted >= MIN_SAMPLE_RESPONSES
						|| nowNanos - this.burstSince > SAMPLE_SPAN.toNanos()) {
					// a request sent since succeeded: the count is complete (or too small to complete within its span)
					this.burstCounting = false;
					RateState capped = burstCapped(current, nowNanos);
					if (capped != null) {
						this.state.set(capped);
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
					this.state.set(counted.complete(sampleResponses()) ? concluded(current, counted, nowNanos)
							: current.withSample(counted).admitted(nowNanos));
				}
				return;
			}
			if (!current.admittedSinceDecrease()) {
				this.state.set(current.admitted(nowNanos));
				return;
			}
			if (!limited(current, nowNanos)) {
				// application-limited (RFC 7661): the rate is not in use, so it is no evidence of room above it
				if (grown(current, nowNanos) > current.rate() * 1.01) {
					this.state.set(current.regrowFrom(nowNanos));
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
			if (grown >= this.settings.maxRate() && backlogFits()) {
				this.state.set(off(current, nowNanos));
				return;
			}
			// a backlog larger than a burst drains at the ceiling, not all at once into the client's pool
			grown = Math.min(grown, this.settings.maxRate());
			if (grown > current.rate() * 1.01) {
				this.sendTat = Timeline.moved(this.sendTat, nowNanos, current.rate() / grown);
				this.state.set(current.movedTo(grown, nowNanos));
			}
		}
	}

	/**
	 * Records what a provider's {@link io.github.retryafter.hint.RateLimitFields rate-limit fields} announced: its quota allows
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
	public void onQuota(double perSecond, long remaining, long nowNanos) {
		if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
			return;
		}
		double quota = Math.max(minRate(), Math.min(maxRate(), perSecond * share() * HEADROOM));
		long burst = this.settings.burst();
		boolean low = remaining <= burst;
		boolean roomy = remaining > 4 * burst;
		RateState seen = this.state.get();
		if (seen.engaged() ? (seen.quota() == quota && seen.rate() <= quota && !(seen.quotaPaced() && roomy)) : !low) {
			return;
		}
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
			if (!current.engaged()) {
				if (low) {
					this.state.set(new RateState(true, quota, quota, quota, true, nowNanos, nowNanos, true, null,
							current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), quota, true, Timeline.NONE));
				}
				return;
			}
			if (current.quotaPaced() && roomy && backlogFits()) {
				this.state.set(off(current, nowNanos));
			}
			else if (current.rate() > quota && (low || current.quotaPaced())) {
				this.state.set(new RateState(true, quota, quota, quota, true, nowNanos, nowNanos, true, null,
						current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), quota, true, Timeline.NONE));
			}
			else {
				this.state.set(current.withQuota(quota));
			}
		}
	}

	/**
	 * The rate the first throttle turned on ({@code decreaseFactor × maxRate}, a guess) capped at what the provider
	 * admitted of the burst that throttle cut short (under {@link #rateWriteLock}); {@code null} to keep it. The
	 * provider refused the burst, so its bucket was empty, and the burst's requests still on their way took what it
	 * refilled: {@link #HEADROOM} × those successes per second, from the throttle to the last of them, is a measure of
	 * its rate the guess lacks. Applied at the first success of a request sent since, once the count has
	 * {@link #MIN_SAMPLE_RESPONSES} (a client still sending its burst may see one sooner) or its {@link #SAMPLE_SPAN}
	 * has passed; a rate measured meanwhile is kept. Without it, 200 requests sent together at a provider admitting 50
	 * a second came back after the cooldown at 490 a second, and most retries after the provider's burst were refused.
	 * The capped rate is not a measured capacity: it doubles every second while the provider admits it, and the next
	 * refusal measures it.
	 */
	private RateState burstCapped(RateState current, long nowNanos) {
		long span = this.burstLastNanos - this.burstSince;
		if (current.quotaPaced() || current.measured() || current.sample() != null
				|| this.burstAdmitted < MIN_SAMPLE_RESPONSES || span <= 0) {
			return null;
		}
		double admitted = HEADROOM * this.burstAdmitted * NANOS_PER_SECOND / span;
		if (admitted >= current.rate()) {
			return null;
		}
		double rate = Math.max(minRate(), admitted);
		return new RateState(true, rate, rate, rate, false, nowNanos, nowNanos, true, null, current.epoch() + 1,
				later(current.retryTat(), nowNanos), later(current.freshTat(), nowNanos), current.freshUntil(),
				current.quota(), false, Timeline.NONE);
	}

	/** The rate limit off: every request goes, until the next throttle or quota. */
	private static RateState off(RateState current, long nowNanos) {
		return new RateState(false, 0, 0, 0, false, current.lastDecreaseNanos(), nowNanos, false, null,
				current.epoch() + 1, nowNanos, nowNanos, current.freshUntil(), current.quota(), false, Timeline.NONE);
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
		long cooldown = this.cooldownUntil.get();
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

	/**
	 * The rate's answer: go while it is off, the slot already held (where the rate's changes since moved it), or a new
	 * slot. A slot that moved past the request's last useful start (its gate's share shrank) is refused.
	 */
	private Admission paced(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held) {
		RateState current = this.state.get();
		if (!current.engaged()) {
			return Admission.GO;
		}
		if (held != null && held.reason() == GateHold.RATE && held.epoch() == current.epoch()) {
			long slot = current.timeline().slot(held.slotNanos());
			if (slot - nowNanos > 0) {
				if (slot - latestStartNanos > 0) {
					return new Admission.Refuse("provider '" + this.scope + "' is paced at "
							+ String.format(Locale.ROOT, "%.1f", current.rate()) + " requests/s and this request's slot "
							+ "moved to " + seconds(slot - nowNanos) + " away as the rate fell (its fleet's share shrank), past "
							+ "the last instant (" + seconds(latestStartNanos - nowNanos)
							+ " from now) a useful attempt could start");
				}
				return (slot == held.untilNanos()) ? held : hold(slot, nowNanos, current, held.slotNanos());
			}
			synchronized (this.rateWriteLock) {
				return send(this.state.get(), nowNanos, latestStartNanos, held.epoch());
			}
		}
		return reserveSlot(fresh, nowNanos, latestStartNanos);
	}

	/**
	 * A hold of the slot at {@code slotNanos}, booked as {@code bookedNanos}: until the slot, or, while it is more than
	 * {@link #RATE_POLL} away, half-way there (at least {@code RATE_POLL}), so the holder asks again while a rate that
	 * rose (a share that grew) can still bring its slot forward. A wait of {@code w} asks about {@code log2(w /
	 * RATE_POLL)} times.
	 */
	private static Admission.Hold hold(long slotNanos, long nowNanos, RateState current, long bookedNanos) {
		long wait = slotNanos - nowNanos;
		long until = (wait <= RATE_POLL.toNanos()) ? slotNanos : nowNanos + Math.max(RATE_POLL.toNanos(), wait / 2);
		return new Admission.Hold(until, GateHold.RATE, current.epoch(), bookedNanos);
	}

	/**
	 * A request whose slot has come goes, unless the sends of the last moments already used the send lane's
	 * tolerance (under {@link #rateWriteLock}): slots are booked ahead, so a client that stalled (a collector's pause,
	 * starved threads) would wake every holder whose slot passed meanwhile at once, a burst that empties the
	 * provider's bucket. The send lane spaces actual sends at the rate with a tolerance of two bursts (both lanes'),
	 * so it binds only after such a stall; a request it holds keeps its slot's epoch and asks again at its turn. A
	 * request whose turn would come after the last instant it could usefully start goes now instead: its slot has
	 * come, and ending it for the spacing alone would lose an operation the rate admitted.
	 */
	private Admission send(RateState current, long nowNanos, long latestStartNanos, long epoch) {
		if (!current.engaged()) {
			return Admission.GO;
		}
		long interval = interval(current.rate());
		long tolerance = Saturating.multiply(2 * burst() - 1, interval);
		long turn = later(this.sendTat - tolerance, nowNanos);
		if (turn - nowNanos > 0 && turn - latestStartNanos <= 0) {
			return new Admission.Hold(turn, GateHold.RATE, epoch, current.timeline().booked(turn));
		}
		this.sendTat = Saturating.add(later(this.sendTat, nowNanos), interval);
		return Admission.GO;
	}

	/**
	 * After a cooldown, before its probe's answer: the first request the rate lets go goes as the probe; the others
	 * are held (each hold as long as the probe has been out, at least 10 ms, never past the probe's expiry or the
	 * request's last useful start) or, once their last useful start has come, refused. {@code null} once the probe
	 * has its answer.
	 */
	private Admission probeTurn(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		synchronized (this.rateWriteLock) {
			if (!this.probePending) {
				return null;
			}
			if (this.probeInFlight && this.probeExpiresNanos - nowNanos > 0) {
				if (nowNanos - latestStartNanos >= 0) {
					return new Admission.Refuse("provider '" + this.scope + "' ended its cooldown and its probe request "
							+ "has had no answer for " + seconds(nowNanos - this.probeSentNanos)
							+ ", up to the last instant a useful attempt could start");
				}
				// the age of the wait since the gate opened: a probe followed since an earlier cooldown does not count
				long age = nowNanos - later(this.probeSentNanos, earlier(this.cooldownUntil.get(), this.probeFrom));
				long poll = Math.min(MAX_PROBE_POLL_NANOS, Math.max(MIN_PROBE_POLL_NANOS, age));
				long until = earlier(earlier(nowNanos + poll, this.probeExpiresNanos), latestStartNanos);
				return new Admission.Hold(until, GateHold.COOLDOWN, -1);
			}
			if (this.cooldownUntil.get() - nowNanos > 0) {
				if (!probesEarly(nowNanos)) {
					return duringCooldown(this.cooldownUntil.get(), nowNanos, latestStartNanos);
				}
				// the probe goes before the cooldown's end: the lanes, which restart at that end, start now
				startLanesBy(nowNanos);
			}
			Admission paced = paced(fresh, nowNanos, latestStartNanos, held);
			if (paced != Admission.GO) {
				return paced;
			}
			if (this.probeInFlight && this.probeRemote) {
				// the fleet's probe this gate followed had no answer within its lease: this gate probes for itself
				this.probeInFlight = false;
				this.probeRemote = false;
				this.probeGranted = true;
			}
			ProbeArbiter arbiter = this.arbiter;
			if (arbiter != null && !this.probeGranted) {
				// the fleet decides who probes: hold this request until it has
				if (!this.probeRequested) {
					this.probeRequested = true;
					arbiter.request(this);
				}
				if (this.probeGranted) {
					return grantedProbe(nowNanos, attemptTimeoutNanos);
				}
				if (nowNanos - latestStartNanos >= 0) {
					return new Admission.Refuse("provider '" + this.scope + "' ended its cooldown and its fleet has not "
							+ "decided which instance probes it, up to the last instant a useful attempt could start");
				}
				return new Admission.Hold(earlier(nowNanos + MIN_PROBE_POLL_NANOS, latestStartNanos), GateHold.COOLDOWN,
						-1);
			}
			return grantedProbe(nowNanos, attemptTimeoutNanos);
		}
	}

	/** The request goes as the probe: the others wait for its answer (under {@link #rateWriteLock}). */
	private Admission grantedProbe(long nowNanos, long attemptTimeoutNanos) {
		this.probeRefused = false;
		this.probeGranted = false;
		this.probeRequested = false;
		this.probeInFlight = true;
		this.probeRemote = false;
		this.probeSentNanos = nowNanos;
		this.probeExpiresNanos = nowNanos + Math.max(1, Math.min(attemptTimeoutNanos, Long.MAX_VALUE / 4));
		return Admission.PROBE;
	}

	/** While the gate is closed: refuse (fail-fast, or past the last useful start), or hold until it opens. */
	private Admission duringCooldown(long cooldown, long nowNanos, long latestStartNanos) {
		if (this.settings.mode() == PacingMode.FAIL_FAST) {
			return new Admission.Refuse("provider '" + this.scope + "' is cooling down for another "
					+ seconds(cooldown - nowNanos) + " as its Retry-After asked, and pacing is fail-fast");
		}
		// a gate of its own may probe from the earliest instant named: hold until then
		long opens = earlier(cooldown, this.probeFrom);
		if (opens - latestStartNanos > 0) {
			return new Admission.Refuse("provider '" + this.scope + "' is cooling down for another "
					+ seconds(opens - nowNanos) + " as its Retry-After asked, past the last instant ("
					+ seconds(latestStartNanos - nowNanos) + " from now) a useful attempt could start");
		}
		return new Admission.Hold(opens, GateHold.COOLDOWN, -1);
	}

	/**
	 * Moves both lanes' arrival times, set to restart at the cooldown's end, back to {@code nowNanos} at the latest
	 * (under {@link #rateWriteLock}): a probe that goes early, and the requests after its success, are paced from now.
	 */
	private void startLanesBy(long nowNanos) {
		RateState current = this.state.get();
		if (current.engaged() && (current.retryTat() - nowNanos > 0 || current.freshTat() - nowNanos > 0)) {
			this.state.set(current.withRetryTat(earlier(current.retryTat(), nowNanos))
				.withFreshTat(earlier(current.freshTat(), nowNanos)));
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
		synchronized (this.rateWriteLock) {
			RateState current = this.state.get();
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
			this.state.set(fresh ? booked.withFreshUntil(Saturating.add(slot, FRESH_ACTIVITY.toNanos())) : booked);
			return (slot - nowNanos <= 0) ? send(this.state.get(), nowNanos, latestStartNanos, current.epoch())
					: hold(slot, nowNanos, current, current.timeline().booked(slot));
		}
	}

	/** Whether the requests held here fit in one burst, so the rate limit may let go without releasing a flood. */
	private boolean backlogFits() {
		return this.queued.get() <= this.settings.burst();
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
		double t = Math.max(0, nowNanos - later(state.growthStartNanos(), this.cooldownUntil.get())) / NANOS_PER_SECOND;
		double x = t - k;
		double cubic = c * x * x * x + state.target();
		double rate = state.measured() ? cubic : Math.max(cubic, state.base() * Math.pow(2, Math.min(t, 64)));
		return Math.max(minRate(), rate);
	}

	/** Counts a success in the admission meter (under {@link #rateWriteLock}), closing its window when it is over. */
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
		return Saturating.add(nowNanos, Saturating.multiply(burst() - 1, interval));
	}

	private long slot(long tat, long interval, long nowNanos) {
		long tolerance = Saturating.multiply(burst() - 1, interval);
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
	 * fresh requests are about: one immutable value, replaced whole under {@link #rateWriteLock}.
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
	 * @param timeline how the slots booked in this epoch moved since, as the rate changed within it
	 */
	private record RateState(boolean engaged, double rate, double target, double base, boolean measured,
			long lastDecreaseNanos, long growthStartNanos, boolean admittedSinceDecrease, Sample sample, long epoch,
			long retryTat, long freshTat, long freshUntil, double quota, boolean quotaPaced, Timeline timeline) {

		RateState withRetryTat(long tat) {
			return new RateState(this.engaged, this.rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch, tat, this.freshTat,
					this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		RateState withFreshTat(long tat) {
			return new RateState(this.engaged, this.rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch, this.retryTat, tat,
					this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		RateState withFreshUntil(long until) {
			return new RateState(this.engaged, this.rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch, this.retryTat,
					this.freshTat, until, this.quota, this.quotaPaced, this.timeline);
		}

		RateState withSample(Sample next) {
			return new RateState(this.engaged, this.rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, next, this.epoch, this.retryTat, this.freshTat,
					this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		RateState withQuota(double perSecond) {
			return new RateState(this.engaged, Math.min(this.rate, perSecond), this.target, this.base, this.measured,
					this.lastDecreaseNanos, this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch,
					this.retryTat, this.freshTat, this.freshUntil, perSecond, this.quotaPaced, this.timeline);
		}

		/** The first success since the last change starts the growth's clock. */
		RateState admitted(long nowNanos) {
			return this.admittedSinceDecrease ? this
					: new RateState(this.engaged, this.rate, this.target, this.base, this.measured,
							this.lastDecreaseNanos, nowNanos, true, this.sample, this.epoch, this.retryTat, this.freshTat,
							this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		/** The growth curve restarted at the current rate now, while the rate is not in use. */
		RateState regrowFrom(long nowNanos) {
			return new RateState(this.engaged, this.rate, this.measured ? this.target : this.rate, this.rate,
					this.measured, this.lastDecreaseNanos, nowNanos, true, this.sample, this.epoch, this.retryTat,
					this.freshTat, this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		/** A measurement under way at the same rate: reserved slots stand. */
		RateState measuring(Sample started, long nowNanos) {
			return new RateState(true, this.rate, this.target, this.base, this.measured, nowNanos, this.growthStartNanos,
					true, started, this.epoch, this.retryTat, this.freshTat, this.freshUntil, this.quota, false, this.timeline);
		}

		/** A measurement that leaves the rate where it is, as the new start of its growth. */
		RateState afterSample(double at, boolean capacity, long nowNanos) {
			return new RateState(true, at, at, at, capacity, nowNanos, nowNanos, true, null, this.epoch, this.retryTat,
					this.freshTat, this.freshUntil, this.quota, this.quotaPaced, this.timeline);
		}

		/**
		 * The rate, its curve and its quota multiplied by {@code by} within this epoch: the lanes' arrival times and
		 * every slot booked ahead of {@code nowNanos} move by {@code 1 / by}, so the holders keep their order.
		 */
		RateState rerated(double by, long nowNanos) {
			double factor = 1 / by;
			return new RateState(this.engaged, this.rate * by, this.target * by, this.base * by, this.measured,
					this.lastDecreaseNanos, this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch,
					Timeline.moved(this.retryTat, nowNanos, factor), Timeline.moved(this.freshTat, nowNanos, factor),
					this.freshUntil, this.quota * by, this.quotaPaced, this.timeline.then(nowNanos, factor));
		}

		/**
		 * The rate moved to {@code rate} within this epoch, its curve kept: slots booked ahead come sooner for a rise
		 * (growth) and later for a fall (a trim after a measurement), in their order.
		 */
		RateState movedTo(double rate, long nowNanos) {
			double factor = this.rate / rate;
			return new RateState(this.engaged, rate, this.target, this.base, this.measured, this.lastDecreaseNanos,
					this.growthStartNanos, this.admittedSinceDecrease, this.sample, this.epoch,
					Timeline.moved(this.retryTat, nowNanos, factor), Timeline.moved(this.freshTat, nowNanos, factor),
					this.freshUntil, this.quota, this.quotaPaced, this.timeline.then(nowNanos, factor));
		}

	}

	/**
	 * How the slots booked in one epoch moved since, as the rate changed within it: a slot booked for {@code s} now
	 * comes at {@code origin + (s − origin) × scale + shift}. Each change by a factor {@code f} (the old rate over the
	 * new) moves every slot still ahead to {@code now + (slot − now) × f}, so a backlog that booked its slots at one
	 * rate drains at the next, in the order it booked them. Two numbers and a ticker reading; a new epoch starts
	 * again from {@link #NONE}. The differences are taken from {@code origin}, the first change's instant, so a
	 * ticker reading far from zero loses no precision.
	 * @param originNanos the instant the differences are taken from
	 * @param scale how much the booked spacing shrank (below 1) or stretched (above 1)
	 * @param shiftNanos how far the slots moved besides
	 */
	private record Timeline(long originNanos, double scale, double shiftNanos) {

		static final Timeline NONE = new Timeline(0, 1, 0);

		/** Where a slot booked for {@code bookedNanos} comes now. */
		long slot(long bookedNanos) {
			return (this == NONE) ? bookedNanos
					: this.originNanos + Math.round((bookedNanos - this.originNanos) * this.scale + this.shiftNanos);
		}

		/** The booking a slot that comes at {@code slotNanos} now stands for: the inverse of {@link #slot}. */
		long booked(long slotNanos) {
			return (this == NONE) ? slotNanos
					: this.originNanos + Math.round((slotNanos - this.originNanos - this.shiftNanos) / this.scale);
		}

		/** This timeline, then every slot ahead of {@code nowNanos} moved to {@code now + (slot − now) × factor}. */
		Timeline then(long nowNanos, double factor) {
			long origin = (this == NONE) ? nowNanos : this.originNanos;
			double shift = this.shiftNanos * factor + (nowNanos - origin) * (1 - factor);
			return new Timeline(origin, this.scale * factor, shift);
		}

		/** Where a lane's arrival time ahead of {@code nowNanos} moves by a change of {@code factor}. */
		static long moved(long tatNanos, long nowNanos, double factor) {
			return (tatNanos - nowNanos > 0) ? nowNanos + Math.round((tatNanos - nowNanos) * factor) : tatNanos;
		}

	}

	/**
	 * A measurement of what the provider admits, started by a refusal (so its bucket was empty): the responses to
	 * requests sent since {@code startNanos}.
	 * @param startNanos when it started
	 * @param admitted successes counted
	 * @param refused refusals counted
	 * @param lastSentNanos the latest send among them
	 * @param firstSentNanos the earliest send among them ({@code countFromNanos} before the first)
	 * @param countFromNanos requests sent from then on are counted: the start, or the last arrival of a response to a
	 * request sent before it
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

		/** The counts start again from {@code nowNanos}, within the same span. */
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

		boolean complete(int responses) {
			return this.admitted + this.refused >= responses || spanNanos() >= SAMPLE_SPAN.toNanos();
		}

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
