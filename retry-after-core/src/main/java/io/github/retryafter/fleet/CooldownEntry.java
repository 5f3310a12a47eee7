package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.pacing.ProbeArbiter;

/**
 * One configured provider's side of the {@link SharedCooldown}: its cap and probe lease, the fleet instants it has
 * exchanged (so a gate is pushed only when it closed until later than that), the probe it owns or follows, its
 * backlog reports, and whether its keys hold values the fleet did not write. Store instants are microseconds on the
 * store's clock, {@link Long#MIN_VALUE} for none: each came with the store's now it was read against, and two that
 * came with different ones are never ordered against each other (a message may lie about the store's now, and the
 * store's clock may step back); they are kept as identities, and ordered once converted to the ticker. Written on the
 * store's thread (and at attach, before it runs), but for {@link #announce}, which the store's listener thread calls.
 */
final class CooldownEntry {

	static final long NONE = Long.MIN_VALUE;

	final String provider;

	final Duration cap;

	final Duration lease;

	final long capMicros;

	final long leaseMicros;

	// the fleet cooldown this instance holds (the store instant whose probe it claims), and when it ends on the
	// ticker: the one that ends last of those learned, ordered on the ticker
	volatile long fleetUntil = NONE;

	volatile long fleetEnds;

	// the instant whose probe this instance owns, and the one it follows, with when that one ends on the ticker and
	// the fleet cooldown held when it began to follow
	volatile long owned = NONE;

	volatile long following = NONE;

	volatile long followingEnds;

	volatile long followedFrom = NONE;

	// the fleet instant that never closes the gate again, read again: the one this instance's own push was answered
	// with, or one whose probe the provider admitted
	volatile long closedFor = NONE;

	// the latest fleet instant whose probe the provider admitted
	volatile long openedFor = NONE;

	// the last fleet instant read beyond the cap, as read: kept only to recognise it when it is read again
	volatile long cutFrom = NONE;

	ProbeArbiter arbiter;

	// whether the last report named this instance with a backlog, and how many of the fleet's instances had one
	boolean reported;

	int backlogged;

	// whether this sync reports this instance with a backlog
	boolean reporting;

	// when this instance's gate last held a backlog (on the ticker), if ever
	long lastBacklog;

	boolean backlogSeen;

	final AtomicBoolean backlogBad = new AtomicBoolean();

	final AtomicBoolean bad = new AtomicBoolean();

	// the latest local instant (on the ticker) exchanged with the fleet
	final AtomicLong known;

	// the latest cooldown the store announced and the store's thread has not learned yet: one slot, so a flood of
	// announcements keeps one (the latest instant) and costs no memory; null when none is waiting
	final AtomicReference<Announced> announced = new AtomicReference<>();

	CooldownEntry(String provider, Duration cap, Duration lease, long now) {
		this.provider = provider;
		this.cap = cap;
		this.lease = lease;
		this.capMicros = Math.max(1, cap.toNanos() / 1000);
		this.leaseMicros = Math.max(1, lease.toNanos() / 1000);
		this.known = new AtomicLong(now);
	}

	/**
	 * Keeps an announced cooldown for the store's thread to learn, unless one with a later instant waits already.
	 * Lock-free, for the store's listener thread.
	 */
	void announce(long storeNow, long until, long received) {
		Announced next = new Announced(storeNow, until, received);
		this.announced.accumulateAndGet(next, (waiting, wanted) -> (waiting == null
				|| ends(wanted.storeNow(), wanted.until(), wanted.received())
						- ends(waiting.storeNow(), waiting.until(), waiting.received()) > 0) ? wanted : waiting);
	}

	/**
	 * How far {@code until} lies after {@code storeNow}, cut to the cap: never negative, and never more than the cap
	 * whatever the two say.
	 */
	long remainingMicros(long storeNow, long until) {
		if (until <= storeNow) {
			return 0;
		}
		long remaining = until - storeNow;
		// an overflow (instants of either sign far apart) is beyond the cap too
		return (remaining < 0) ? this.capMicros : Math.min(remaining, this.capMicros);
	}

	/**
	 * When the store instant {@code until}, read against {@code storeNow} and received at {@code received} on the
	 * ticker, ends on the ticker: never earlier than the store's (it answered before {@code received}), never later
	 * than the cap after {@code received}.
	 */
	long ends(long storeNow, long until, long received) {
		return received + remainingMicros(storeNow, until) * 1000;
	}

	void raise(long instant) {
		this.known.accumulateAndGet(instant, (current, wanted) -> (wanted - current > 0) ? wanted : current);
	}

	/**
	 * A cooldown the store announced: its instant and the store's now (microseconds on the store's clock), and when it
	 * arrived here (on the ticker), which is after the store's now, so converting from it is never early.
	 */
	record Announced(long storeNow, long until, long received) {
	}

}
