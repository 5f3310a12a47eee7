package io.github.retryafter.fleet;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.retryafter.budget.BudgetSettings;

/**
 * One bucket of a {@link FleetRetryBudget} as this instance sees it: its batched deposits, its last reading from the
 * store, whether its key is valid, its lease pool, and this instance's local share and debt. The share, the debt and
 * the lease bookkeeping are guarded by the budget's lock; the rest is atomic or volatile.
 */
final class SharedBucket {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	final FleetBucket id;

	final BudgetSettings settings;

	final LongAdder successes = new LongAdder();

	// written under the budget's lock, read without it: tokens leased from the fleet or given back by retries here
	// that succeeded, not yet returned (at most what the retries here took or asked for lately: each exchange leases
	// at most MAX_LEASE, and pooled tokens go back once no retry here wanted one for KEEP_FOR)
	volatile long pool;

	// guarded by the budget's lock: the retries here that found none since the last exchange, and when the last did
	long wanted;

	long lastWantedAt = Long.MIN_VALUE / 2;

	long lastRefundAt = Long.MIN_VALUE / 2;

	// at most one exchange at a time; what this instance held and what the fleet's members held at the last one
	final AtomicBoolean exchangePending = new AtomicBoolean();

	volatile long lastHeld;

	volatile long fleetHeld;

	// when the last exchange that was applied started: what fleetHeld says is known as of then
	volatile long exchangedAt = Long.MIN_VALUE / 2;

	// a retry waits for a fresh reading of fleetHeld: the next exchange makes its round trip even with nothing to
	// give, ask or report
	final AtomicBoolean refresh = new AtomicBoolean();

	// deposits the flush in progress sends, until its reading (which includes them) is recorded
	volatile double sending;

	final AtomicBoolean bad = new AtomicBoolean();

	// this instance's retries that took a token and have no answer yet
	final AtomicInteger inFlight = new AtomicInteger();

	private volatile Reading reading;

	// guarded by the budget's lock: this instance's share of the bucket and what it owes the store
	double share;

	long shareAt;

	double debt;

	SharedBucket(FleetBucket id, long now) {
		this.id = id;
		this.settings = id.settings();
		this.share = this.settings.capacity();
		this.shareAt = now;
	}

	void forget() {
		this.reading = null;
	}

	void landed() {
		this.inFlight.updateAndGet((count) -> (count > 0) ? count - 1 : 0);
	}

	/** Records a level read from the store at {@code now}, capped, and resets the share from it; caller holds the lock. */
	void read(double tokens, long now, int instances) {
		double level = Math.min(this.settings.capacity(), tokens);
		this.reading = new Reading(level, now);
		this.share = level / instances - this.debt;
		this.shareAt = now;
	}

	/** The last reading plus the floor's refill since, capped; a bucket never read is full. */
	double estimate(long now) {
		Reading last = this.reading;
		if (last == null) {
			return this.settings.capacity();
		}
		double elapsed = Math.max(0, now - last.atNanos()) / NANOS_PER_SECOND;
		return Math.min(this.settings.capacity(), last.tokens() + this.settings.refillPerSecond() * elapsed);
	}

	/** Refills the share at its part of the floor up to {@code now} and returns it; caller holds the lock. */
	double share(long now, int instances) {
		double elapsed = Math.max(0, now - this.shareAt) / NANOS_PER_SECOND;
		double cap = this.settings.capacity() / instances;
		if (this.share < cap) {
			this.share = Math.min(cap, this.share + this.settings.refillPerSecond() / instances * elapsed);
		}
		this.shareAt = now;
		return this.share;
	}

	/** Adds to the share what this instance earned (never above its cap), and owes that much less; caller holds the lock. */
	void gain(double amount, int instances) {
		this.share = Math.min(this.settings.capacity() / instances, this.share + amount);
		this.debt -= amount;
	}

	private record Reading(double tokens, long atNanos) {
	}

}
