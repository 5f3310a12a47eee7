package io.github.retryafter.fleet;

import java.util.Optional;

import io.github.retryafter.Ticker;

/**
 * The lease side of a {@link FleetRetryBudget}: tokens leased from the store by demand for retries decided without a
 * round trip, pooled with the refunds of retries here, given back once no retry here wants them, and what the fleet's
 * members hold, read fresh before a retry gives up. Each bucket's pool and demand are guarded by the budget's lock;
 * at most one exchange per bucket runs at a time, on the store's thread.
 */
final class Leases {

	private final FleetRetryBudget budget;

	private final FleetStore store;

	// the store's runtime: whether it is shared now, the fleet's size, the store's thread, the key fallbacks
	private final FleetRuntime runtime;

	private final Ticker ticker;

	private final Object lock;

	private final SharedBucket global;

	Leases(FleetRetryBudget budget, FleetStore store, Ticker ticker, Object lock, SharedBucket global) {
		this.budget = budget;
		this.store = store;
		this.runtime = store.runtime();
		this.ticker = ticker;
		this.lock = lock;
		this.global = global;
	}

	/** A retry here succeeded: its token goes to this instance's pool at once, and to the fleet unless wanted here. */
	void refunded(SharedBucket bucket) {
		synchronized (this.lock) {
			bucket.pool = bucket.pool + 1;
			bucket.lastRefundAt = this.ticker.read();
		}
		requestExchange(bucket);
	}

	/**
	 * One more token may come to a retry that found none, while a lease is on its way or the fleet may give one
	 * ({@link #fleetMayGive}); decided on a fresh reading of what the members hold, asked for first when it is older
	 * than {@link FleetRetryBudget#FRESH_FOR}.
	 */
	int pending(SharedBucket bucket) {
		boolean mayGive = bucket.exchangePending.get() || fleetMayGive(bucket);
		if (mayGive && !holdingsKnown(bucket, this.ticker.read())) {
			// the retry waits for a fresh reading of what the others hold, and decides on it at its next ask
			bucket.refresh.set(true);
			requestExchange(bucket);
		}
		return mayGive ? 1 : 0;
	}

	/** Pooled tokens no retry here wanted lately go back, and the fleet learns what this instance holds once it changed. */
	void returnUnwanted(Iterable<SharedBucket> buckets) {
		for (SharedBucket bucket : buckets) {
			boolean changed;
			synchronized (this.lock) {
				changed = bucket.pool > 0 || bucket.pool + bucket.inFlight.get() != bucket.lastHeld;
			}
			if (changed && this.budget.shared(bucket) && bucket.exchangePending.compareAndSet(false, true)) {
				exchangeNow(bucket);
			}
		}
	}

	/** Takes one token from this instance's pool (leased from the fleet, or given back here), if there is one. */
	boolean takeFromPool(SharedBucket bucket) {
		synchronized (this.lock) {
			if (bucket.pool < 1) {
				return false;
			}
			bucket.pool = bucket.pool - 1;
			return true;
		}
	}

	/**
	 * A retry on an event loop found no token here: the next exchange asks the fleet for one, if the fleet may have
	 * one to give (otherwise the retry gives up rather than ask again and again).
	 */
	void want(SharedBucket bucket) {
		synchronized (this.lock) {
			bucket.wanted++;
			bucket.lastWantedAt = this.ticker.read();
		}
		if (fleetMayGive(bucket)) {
			requestExchange(bucket);
		}
	}

	/**
	 * Whether the fleet may give this instance a token: the bucket (and the global bucket) had one at the last reading,
	 * with the refill since, or other instances hold tokens that they may give back, or what they hold is not known,
	 * or deposits from successes here (not yet flushed, or on their way) will pay for one (they go now).
	 */
	boolean fleetMayGive(SharedBucket bucket) {
		long now = this.ticker.read();
		if (Math.min(bucket.estimate(now), this.global.estimate(now)) >= 1 || bucket.fleetHeld > bucket.lastHeld
				|| !holdingsKnown(bucket, now)) {
			return true;
		}
		long unflushed = bucket.successes.sum();
		if (Math.min(bucket.estimate(now) + unflushed * bucket.settings.depositRatio() + bucket.sending,
				this.global.estimate(now) + unflushed * this.global.settings.depositRatio() + this.global.sending) < 1) {
			return false;
		}
		if (unflushed > 0) {
			this.budget.requestFlush();
		}
		return true;
	}


	/** Whether what the fleet's members hold was read by an exchange that started within {@link FleetRetryBudget#FRESH_FOR}. */
	static boolean holdingsKnown(SharedBucket bucket, long now) {
		return now - bucket.exchangedAt <= FleetRetryBudget.FRESH_FOR.toNanos();
	}

	/** Asks the store's thread for an exchange of {@code bucket}'s tokens with the fleet; at most one at a time. */
	void requestExchange(SharedBucket bucket) {
		if (this.runtime.shared() && bucket.exchangePending.compareAndSet(false, true)) {
			this.runtime.submit(() -> exchangeNow(bucket));
		}
	}

	/** Runs an exchange on the store's thread, then another if retries here still want tokens the fleet has. */
	private void exchangeNow(SharedBucket bucket) {
		try {
			exchange(bucket);
		}
		finally {
			bucket.exchangePending.set(false);
		}
		boolean again;
		synchronized (this.lock) {
			again = bucket.wanted > 0;
		}
		if (again && fleetMayGive(bucket)) {
			requestExchange(bucket);
		}
	}

	/**
	 * One round trip ({@link FleetStore#lease}): gives back the pooled tokens no retry here wanted within
	 * {@link FleetRetryBudget#KEEP_FOR}, asks for a token per retry that found none (at most {@link FleetRetryBudget#MAX_LEASE}), and records what this
	 * instance holds. What could not be given back (the store away, a key that is not the fleet's) stays in the pool.
	 */
	private void exchange(SharedBucket bucket) {
		long now = this.ticker.read();
		long give;
		long want;
		long held;
		synchronized (this.lock) {
			boolean demand = bucket.wanted > 0 || now - bucket.lastWantedAt <= FleetRetryBudget.KEEP_FOR.toNanos()
					|| now - bucket.lastRefundAt <= FleetRetryBudget.REFUND_KEEP_FOR.toNanos();
			long keep = demand ? bucket.pool : 0;
			give = bucket.pool - keep;
			want = Math.min(FleetRetryBudget.MAX_LEASE, Math.max(0, bucket.wanted - keep));
			bucket.pool = keep;
			bucket.wanted = 0;
			held = bucket.pool + bucket.inFlight.get();
		}
		boolean refresh = bucket.refresh.getAndSet(false);
		if (give == 0 && want == 0 && held == bucket.lastHeld && !refresh) {
			return;
		}
		Optional<FleetStore.Lease> reply = this.store.lease(bucket.id, this.global.id, give, want, held);
		long received = this.ticker.read();
		boolean applied = reply.isPresent() && this.budget.read(bucket, reply.get().provider(), received)
				& this.budget.read(this.global, reply.get().global(), received);
		// never more than was asked: a larger grant would pool tokens the buckets never held
		long granted = applied ? Math.max(0, Math.min(want, reply.get().granted())) : 0;
		synchronized (this.lock) {
			bucket.pool += (applied ? 0 : give) + granted;
		}
		if (applied) {
			bucket.lastHeld = held + granted;
			bucket.fleetHeld = Math.max(0, reply.get().fleetHeld());
			// what the fleet held is known as of this exchange's start at the latest
			bucket.exchangedAt = now;
		}
	}

}
