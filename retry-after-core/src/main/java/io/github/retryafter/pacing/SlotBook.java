package io.github.retryafter.pacing;

import static io.github.retryafter.pacing.Ticks.interval;
import static io.github.retryafter.pacing.Ticks.later;
import static io.github.retryafter.pacing.Ticks.seconds;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Scope;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.ProviderGate.Admission;

/**
 * A paced gate's slot book: two lanes of slots (generic cell rate algorithm: theoretical arrival times, no timer and
 * no queue), retries in one, fresh requests in theirs or the retry lane, and a send lane that spaces the actual sends.
 * Thread-safe with its gate: its {@link Lanes} live in the gate's {@link Pace}, read without a lock and replaced, like
 * the send lane's arrival time, under the gate's lock.
 */
final class SlotBook {

	/** How long a fresh request's slot keeps retries to their share of the rate. */
	static final Duration FRESH_ACTIVITY = Duration.ofSeconds(1);

	/** How long, at the most, a request holding a slot waits without asking again, unless its slot is nearer. */
	static final Duration RATE_POLL = Duration.ofMillis(100);

	private final Scope scope;

	private final PacingSettings settings;

	private final GateShare share;

	private final AtomicReference<Pace> state;

	private final Object lock;

	// the send lane's theoretical arrival time (see send), guarded by lock
	private long sendTat;

	SlotBook(Scope scope, PacingSettings settings, GateShare share, AtomicReference<Pace> state, Object lock,
			long nowNanos) {
		this.scope = scope;
		this.settings = settings;
		this.share = share;
		this.state = state;
		this.lock = lock;
		this.sendTat = nowNanos;
	}

	/**
	 * The answer to a request that holds a slot of the current epoch, read without a lock: hold again while the slot
	 * (where the rate's changes since moved it) is ahead, refuse when it moved past the request's last useful start
	 * (its gate's share shrank), and once it has come, go by the send lane.
	 */
	Admission kept(Pace current, Admission.Hold held, long nowNanos, long latestStartNanos) {
		long slot = current.lanes().timeline().slot(held.slotNanos());
		if (slot - nowNanos > 0) {
			if (slot - latestStartNanos > 0) {
				return new Admission.Refuse("provider '" + this.scope + "' is paced at "
						+ String.format(Locale.ROOT, "%.1f", current.perSecond()) + " requests/s and this request's slot "
						+ "moved to " + seconds(slot - nowNanos) + " away as the rate fell (its fleet's share shrank), past "
						+ "the last instant (" + seconds(latestStartNanos - nowNanos) + " from now) a useful attempt could start");
			}
			return (slot == held.untilNanos()) ? held : hold(slot, nowNanos, current.lanes(), held.slotNanos());
		}
		synchronized (this.lock) {
			return send(this.state.get(), nowNanos, latestStartNanos, held.epoch());
		}
	}

	/**
	 * A hold of the slot at {@code slotNanos}, booked as {@code bookedNanos}: until the slot, or, while it is more than
	 * {@link #RATE_POLL} away, half-way there (at least {@code RATE_POLL}), so the holder asks again while a rate that
	 * rose can still bring its slot forward. A wait of {@code w} asks about {@code log2(w / RATE_POLL)} times.
	 */
	private static Admission.Hold hold(long slotNanos, long nowNanos, Lanes lanes, long bookedNanos) {
		long wait = slotNanos - nowNanos;
		long until = (wait <= RATE_POLL.toNanos()) ? slotNanos : nowNanos + Math.max(RATE_POLL.toNanos(), wait / 2);
		return new Admission.Hold(until, GateHold.RATE, lanes.epoch(), bookedNanos);
	}

	/**
	 * A request whose slot has come goes, unless the sends of the last moments already used the send lane's
	 * tolerance of two bursts (under the lock): slots are booked ahead, so a client that stalled would wake every
	 * holder whose slot passed meanwhile at once. A request it holds keeps its slot's epoch and asks again at its
	 * turn; one whose turn would come after its last useful start goes now instead.
	 */
	private Admission send(Pace current, long nowNanos, long latestStartNanos, long epoch) {
		if (!current.engaged()) {
			return Admission.GO;
		}
		long interval = interval(current.perSecond());
		long tolerance = Saturating.multiply(2 * this.share.burst() - 1, interval);
		long turn = later(this.sendTat - tolerance, nowNanos);
		if (turn - nowNanos > 0 && turn - latestStartNanos <= 0) {
			return new Admission.Hold(turn, GateHold.RATE, epoch, current.lanes().timeline().booked(turn));
		}
		this.sendTat = Saturating.add(later(this.sendTat, nowNanos), interval);
		return Admission.GO;
	}

	/**
	 * While the rate limit is on: books the earliest slot of the request's lanes (fresh requests may take the fresh
	 * lane's when it comes first), or refuses when it comes after the last useful start. Retries are paced at the whole
	 * rate unless a fresh request took a slot within the last {@link #FRESH_ACTIVITY}, and at
	 * {@code rate × (1 − freshShare)} while one did.
	 */
	Admission reserve(boolean fresh, long nowNanos, long latestStartNanos) {
		synchronized (this.lock) {
			Pace current = this.state.get();
			if (!current.engaged()) {
				return Admission.GO;
			}
			Lanes lanes = current.lanes();
			double share = this.settings.freshShare();
			boolean freshActive = lanes.freshUntil() - nowNanos > 0;
			long retryInterval = interval(current.perSecond() * ((fresh || freshActive) ? 1.0 - share : 1.0));
			long slot = slot(lanes.retryTat(), retryInterval, nowNanos);
			long freshInterval = (fresh && share > 0) ? interval(current.perSecond() * share) : 0;
			long freshSlot = (freshInterval > 0) ? slot(lanes.freshTat(), freshInterval, nowNanos) : slot;
			boolean freshLane = freshSlot - slot < 0;
			if (freshLane) {
				slot = freshSlot;
			}
			if (slot - latestStartNanos > 0) {
				return new Admission.Refuse("provider '" + this.scope + "' is paced at "
						+ String.format(Locale.ROOT, "%.1f", current.perSecond()) + " requests/s and its next slot is "
						+ seconds(slot - nowNanos) + " away, past the last instant (" + seconds(latestStartNanos - nowNanos)
						+ " from now) a useful attempt could start");
			}
			Lanes booked = freshLane ? lanes.withFreshTat(later(lanes.freshTat(), slot) + freshInterval)
					: lanes.withRetryTat(later(lanes.retryTat(), slot) + retryInterval);
			this.state.set(current.with(fresh ? booked.withFreshUntil(Saturating.add(slot, FRESH_ACTIVITY.toNanos()))
					: booked));
			return (slot - nowNanos <= 0) ? send(this.state.get(), nowNanos, latestStartNanos, lanes.epoch())
					: hold(slot, nowNanos, lanes, lanes.timeline().booked(slot));
		}
	}

	/**
	 * Moves both lanes' arrival times, set to restart at the cooldown's end, back to {@code nowNanos} at the latest
	 * (under the lock): a probe that goes early, and the requests after its success, are paced from now.
	 */
	void startBy(long nowNanos) {
		Pace current = this.state.get();
		Lanes lanes = current.lanes();
		if (current.engaged() && (lanes.retryTat() - nowNanos > 0 || lanes.freshTat() - nowNanos > 0)) {
			this.state.set(current.with(lanes.withRetryTat(Ticks.earlier(lanes.retryTat(), nowNanos))
				.withFreshTat(Ticks.earlier(lanes.freshTat(), nowNanos))));
		}
	}

	/** Whether a request reserving now would have to wait: the rate, not the demand, is what limits the sending. */
	boolean limited(Pace current, long nowNanos) {
		Lanes lanes = current.lanes();
		double share = this.settings.freshShare();
		long retryInterval = interval(current.perSecond() * ((lanes.freshUntil() - nowNanos > 0) ? 1.0 - share : 1.0));
		return slot(lanes.retryTat(), retryInterval, nowNanos) - nowNanos > 0
				|| (share > 0 && slot(lanes.freshTat(), interval(current.perSecond() * share), nowNanos) - nowNanos > 0);
	}

	/**
	 * The lanes of a new epoch at {@code rate} after a refusal from a provider that is admitting: both restart now
	 * without a burst (the provider has none left to give).
	 */
	Lanes restarted(Lanes lanes, double rate, long nowNanos) {
		double share = this.settings.freshShare();
		long retryTat = spent(nowNanos, interval(rate * ((lanes.freshUntil() - nowNanos > 0) ? 1.0 - share : 1.0)));
		long freshTat = (share > 0) ? spent(nowNanos, interval(rate * share)) : nowNanos;
		return lanes.next(retryTat, freshTat);
	}

	/** Moves the send lane's arrival time ahead of {@code nowNanos} by {@code factor} (under the lock). */
	void moveSendLane(long nowNanos, double factor) {
		this.sendTat = Timeline.moved(this.sendTat, nowNanos, factor);
	}

	/** A lane's arrival time that has used up its burst tolerance: its next slot is {@code nowNanos}, then spaced. */
	private long spent(long nowNanos, long interval) {
		return Saturating.add(nowNanos, Saturating.multiply(this.share.burst() - 1, interval));
	}

	private long slot(long tat, long interval, long nowNanos) {
		long tolerance = Saturating.multiply(this.share.burst() - 1, interval);
		return later(tat - tolerance, nowNanos);
	}

}
