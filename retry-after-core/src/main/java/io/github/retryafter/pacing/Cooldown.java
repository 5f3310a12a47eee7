package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.earlier;
import static io.github.retryafter.pacing.Ticks.later;
import static io.github.retryafter.pacing.Ticks.seconds;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.ProviderGate.Admission;

/**
 * A gate's cooldown and the probe after it: the latest instant a hint named (capped), the earliest since the provider
 * last refused (from which a gate that holds may probe early), and the one probe in flight, its own or the fleet's it
 * follows. Thread-safe with its gate: the cooldown's end and whether a probe is pending are read without a lock;
 * every change is made under the gate's lock, which it shares with the rate and the slot book (a probe's success opens
 * the lanes, and a probe's turn books a slot, in the same step).
 */
final class Cooldown {

	/** How often, at the least, requests held behind a probe ask again. */
	private static final long MIN_PROBE_POLL_NANOS = 10_000_000L;

	/** How long, at the most, requests held behind a probe wait before they ask again. */
	private static final long MAX_PROBE_POLL_NANOS = 100_000_000L;

	/** How the gate's rate answers a request when no cooldown or probe holds it. */
	@FunctionalInterface
	interface Paced {

		Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held);

	}

	private final Scope scope;

	private final PacingSettings settings;

	private final Ticker ticker;

	private final Object lock;

	private final AtomicLong until;

	// the earliest instant a hint named since the provider last refused after it (see probesEarly); written under lock
	private volatile long probeFrom;

	// when the latest cooldown began (the gate closed while it was open), or the gate's creation; written under the lock
	private volatile long closedAt;

	// whether the next request admitted after the cooldown is a probe; read without a lock on every admission
	private volatile boolean probePending;

	private final ProbeFlight probe = new ProbeFlight();

	// the fleet's arbiter of probes, if any
	private volatile ProbeArbiter arbiter;

	// set under the lock when the arbiter is to be asked, cleared by the admission that asks it, outside the lock
	private final AtomicBoolean asking = new AtomicBoolean();

	private final FleetGate fleetSide;

	private final LongConsumer openLanes;

	private final Paced paced;

	/**
	 * @param openLanes moves the lanes set to restart at the cooldown's end back to now (under the lock)
	 * @param paced the rate's answer, asked under the lock when the probe's turn comes
	 * @param fleetSide what the gate's arbiter is handed
	 */
	Cooldown(Scope scope, PacingSettings settings, Ticker ticker, Object lock, long nowNanos, LongConsumer openLanes,
			Paced paced, FleetGate fleetSide) {
		this.scope = scope;
		this.settings = settings;
		this.ticker = ticker;
		this.lock = lock;
		this.until = new AtomicLong(nowNanos);
		this.closedAt = nowNanos;
		this.probeFrom = nowNanos;
		this.openLanes = openLanes;
		this.paced = paced;
		this.fleetSide = fleetSide;
	}

	/** The instant the gate opens, in the past when it is open; read without a lock. */
	long until() {
		return this.until.get();
	}

	/** When the latest cooldown began: the gate closed while it was open (a later instant only extends it). */
	long closedAt() {
		return this.closedAt;
	}

	boolean probePending() {
		return this.probePending;
	}

	/**
	 * Closes the gate until {@code instantNanos}, capped at {@code maxCooldown} from now, unless it is closed until
	 * later, and records it for the early probe: the earliest instant named since the provider last refused.
	 */
	void closeUntil(long instantNanos) {
		long now = this.ticker.read();
		// a quarter of long's range: instants stay comparable by difference
		long cap = now + Math.min(Saturating.toNanos(this.settings.maxCooldown()), Long.MAX_VALUE / 4);
		long until = (instantNanos - cap > 0) ? cap : instantNanos;
		if (until - now <= 0) {
			return;
		}
		synchronized (this.lock) {
			long before = this.until.get();
			if (before - now <= 0) {
				this.closedAt = now;
			}
			if ((before - now <= 0 && !this.probePending) || this.probeFrom - now <= 0) {
				// a new cooldown, or a refusal since the earliest instant passed: the next probe waits for this hint
				this.probeFrom = until;
			}
			else if (until - this.probeFrom < 0) {
				this.probeFrom = until;
			}
			if (this.probe.inFlight) {
				// a refusal while the probe is out (this gate's own, or the fleet's it follows): the probe opens nothing
				this.probe.refused = true;
			}
			if (until - before > 0) {
				this.until.set(until);
				if (this.arbiter != null) {
					// a later cooldown: the fleet decides anew who probes after it
					this.probe.forgetArbitration();
				}
			}
			this.probePending = true;
		}
	}

	/** Opens the gate now and forgets any probe (under the lock). */
	void reset(long nowNanos) {
		this.until.set(nowNanos);
		this.probeFrom = nowNanos;
		this.probePending = false;
		this.probe.forget();
	}

	/**
	 * Whether one request may go as the probe before the cooldown's end: the earliest instant named since the last
	 * refusal has passed, and the gate holds rather than fails fast (a fleet's gate then asks its arbiter).
	 */
	private boolean probesEarly(long nowNanos) {
		return this.probeFrom - nowNanos <= 0 && this.settings.mode() == PacingMode.HOLD;
	}

	/**
	 * The cooldown's answer to a request, or {@code null} when neither the cooldown nor a probe holds it and the rate
	 * decides.
	 */
	Admission admit(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held, long attemptTimeoutNanos) {
		Admission answer = cooling(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
		// read before the compare-and-set: the common case (nothing to ask) writes nothing on the admission path
		if (this.asking.get() && this.asking.compareAndSet(true, false)) {
			// asked outside the lock: an arbiter may answer before it returns (on a thread that may wait for it), and
			// then this request goes as the probe without a hold
			ProbeArbiter arbiter = this.arbiter;
			if (arbiter != null) {
				arbiter.request(this.fleetSide);
			}
			return cooling(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
		}
		return answer;
	}

	private Admission cooling(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		long cooldown = this.until.get();
		if (cooldown - nowNanos > 0) {
			if (!this.probePending || !probesEarly(nowNanos)) {
				return duringCooldown(cooldown, nowNanos, latestStartNanos);
			}
			Admission turn = probeTurn(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
			return (turn != null) ? turn : duringCooldown(cooldown, nowNanos, latestStartNanos);
		}
		if (this.probePending) {
			return probeTurn(fresh, nowNanos, latestStartNanos, held, attemptTimeoutNanos);
		}
		return null;
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
	 * After a cooldown, before its probe's answer: the first request the rate lets go goes as the probe; the others
	 * are held (each hold as long as the probe has been out, at least 10 ms, never past the probe's expiry or the
	 * request's last useful start) or, once their last useful start has come, refused. {@code null} once the probe
	 * has its answer.
	 */
	private Admission probeTurn(boolean fresh, long nowNanos, long latestStartNanos, Admission.Hold held,
			long attemptTimeoutNanos) {
		synchronized (this.lock) {
			if (!this.probePending) {
				return null;
			}
			if (this.probe.inFlight && this.probe.expiresNanos - nowNanos > 0) {
				return behindProbe(nowNanos, latestStartNanos);
			}
			if (this.until.get() - nowNanos > 0) {
				if (!probesEarly(nowNanos)) {
					return duringCooldown(this.until.get(), nowNanos, latestStartNanos);
				}
				// the probe goes before the cooldown's end: the lanes, which restart at that end, start now
				this.openLanes.accept(nowNanos);
			}
			Admission paced = this.paced.admit(fresh, nowNanos, latestStartNanos, held);
			if (paced != Admission.GO) {
				return paced;
			}
			if (this.probe.inFlight && this.probe.remote) {
				// the fleet's probe this gate followed had no answer within its lease: this gate probes for itself
				this.probe.inFlight = false;
				this.probe.remote = false;
				this.probe.granted = true;
			}
			ProbeArbiter arbiter = this.arbiter;
			if (arbiter != null && !this.probe.granted) {
				return askArbiter(arbiter, nowNanos, latestStartNanos, attemptTimeoutNanos);
			}
			return grantedProbe(nowNanos, attemptTimeoutNanos);
		}
	}

	/** A request held behind the probe in flight (under the lock). */
	private Admission behindProbe(long nowNanos, long latestStartNanos) {
		if (nowNanos - latestStartNanos >= 0) {
			return new Admission.Refuse("provider '" + this.scope + "' ended its cooldown and its probe request "
					+ "has had no answer for " + seconds(nowNanos - this.probe.sentNanos)
					+ ", up to the last instant a useful attempt could start");
		}
		// the age of the wait since the gate opened: a probe followed since an earlier cooldown does not count
		long age = nowNanos - later(this.probe.sentNanos, earlier(this.until.get(), this.probeFrom));
		long poll = Math.min(MAX_PROBE_POLL_NANOS, Math.max(MIN_PROBE_POLL_NANOS, age));
		long until = earlier(earlier(nowNanos + poll, this.probe.expiresNanos), latestStartNanos);
		return new Admission.Hold(until, GateHold.COOLDOWN, -1);
	}

	/** The fleet decides who probes: hold this request until it has (under the lock). */
	private Admission askArbiter(ProbeArbiter arbiter, long nowNanos, long latestStartNanos, long attemptTimeoutNanos) {
		if (!this.probe.requested) {
			this.probe.requested = true;
			// the arbiter is asked once the lock is released (see admit)
			this.asking.set(true);
			return new Admission.Hold(earlier(nowNanos + MIN_PROBE_POLL_NANOS, latestStartNanos), GateHold.COOLDOWN, -1);
		}
		if (this.probe.granted) {
			return grantedProbe(nowNanos, attemptTimeoutNanos);
		}
		if (nowNanos - latestStartNanos >= 0) {
			return new Admission.Refuse("provider '" + this.scope + "' ended its cooldown and its fleet has not "
					+ "decided which instance probes it, up to the last instant a useful attempt could start");
		}
		return new Admission.Hold(earlier(nowNanos + MIN_PROBE_POLL_NANOS, latestStartNanos), GateHold.COOLDOWN, -1);
	}

	/** The request goes as the probe: the others wait for its answer (under the lock). */
	private Admission grantedProbe(long nowNanos, long attemptTimeoutNanos) {
		this.probe.sent(nowNanos, nowNanos + Math.max(1, Math.min(attemptTimeoutNanos, Long.MAX_VALUE / 4)));
		return Admission.PROBE;
	}

	/** See {@link ProviderGate#probeAnswered(boolean)}. */
	void probeAnswered(boolean admitted) {
		synchronized (this.lock) {
			answer(admitted && !this.probe.remote);
		}
	}

	/**
	 * Ends the probe in flight (under the lock); {@code admitted}: the provider admitted it, so a probe sent early,
	 * before the latest instant named, and not refused since, opens the gate now.
	 */
	private void answer(boolean admitted) {
		long now = this.ticker.read();
		if (admitted && this.probe.inFlight && !this.probe.refused && this.until.get() - now > 0) {
			// the provider is back
			this.until.set(now);
			this.openLanes.accept(now);
		}
		else if (!admitted && this.probe.inFlight && !this.probe.remote && !this.probe.refused) {
			// an early probe of its own that failed without a hint: no other goes early, the next at the cooldown's end
			this.probeFrom = this.until.get();
		}
		this.probe.forget();
		if (this.until.get() - now <= 0) {
			this.probePending = false;
		}
	}

	/** See {@link ProviderGate#probeWithdrawn()}. */
	void probeWithdrawn() {
		synchronized (this.lock) {
			if (!this.probe.remote) {
				this.probe.inFlight = false;
			}
		}
	}

	/** See {@link ProviderGate#probing()}. */
	boolean probing() {
		synchronized (this.lock) {
			return this.probe.inFlight && this.probe.expiresNanos - this.ticker.read() > 0;
		}
	}

	/** See {@link FleetGate#arbiter(ProbeArbiter)}. */
	void arbiter(ProbeArbiter arbiter) {
		this.arbiter = arbiter;
	}

	/** See {@link FleetGate#probeGranted()}. */
	void probeGranted() {
		synchronized (this.lock) {
			if (this.probePending) {
				this.probe.granted = true;
				if (this.probe.remote) {
					// it followed another instance's claim: the probe is now its own
					this.probe.inFlight = false;
					this.probe.remote = false;
				}
			}
		}
	}

	/** See {@link FleetGate#followProbe(long)}. */
	boolean followProbe(long expiresNanos) {
		synchronized (this.lock) {
			if (!this.probePending || (this.probe.inFlight && !this.probe.remote)) {
				return false;
			}
			this.probe.inFlight = true;
			this.probe.remote = true;
			this.probe.refused = false;
			this.probe.sentNanos = later(this.until.get(), this.ticker.read() - 1);
			this.probe.expiresNanos = expiresNanos;
			return true;
		}
	}

	/** See {@link FleetGate#fleetProbeAnswered()} and {@link FleetGate#fleetProbeAdmitted()}. */
	void fleetProbeAnswered(boolean admitted) {
		synchronized (this.lock) {
			if (this.probe.remote) {
				answer(admitted);
			}
		}
	}

	/**
	 * The probe in flight and the fleet's arbitration of the next, guarded by the gate's lock: whether a probe is out,
	 * when it was sent and stops counting, whether it is another instance's, whether a hint came while it was out, and
	 * whether this gate asked the arbiter after the current cooldown and was granted.
	 */
	private static final class ProbeFlight {

		boolean inFlight;

		long sentNanos;

		long expiresNanos;

		boolean remote;

		boolean refused;

		boolean requested;

		boolean granted;

		void sent(long nowNanos, long expiresNanos) {
			this.refused = false;
			this.granted = false;
			this.requested = false;
			this.inFlight = true;
			this.remote = false;
			this.sentNanos = nowNanos;
			this.expiresNanos = expiresNanos;
		}

		void forgetArbitration() {
			this.requested = false;
			this.granted = false;
		}

		void forget() {
			this.inFlight = false;
			this.remote = false;
			this.refused = false;
			forgetArbitration();
		}

	}

}
