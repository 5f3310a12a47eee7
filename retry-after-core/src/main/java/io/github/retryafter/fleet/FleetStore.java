package io.github.retryafter.fleet;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One instance's link to the store a fleet of instances shares (Redis, or {@link InMemoryFleetStore}), and the
 * operations on the shared state that the store runs <b>atomically, on its own clock</b>: whatever the instances'
 * clocks say, a bucket's refill is computed from the store's. The algorithm that decides with them lives once, in
 * the core ({@link FleetRetryBudget}); a store only keeps the state and does the I/O.
 * <p>
 * An operation never throws: it answers empty when the store did not answer (unreachable, timed out, not
 * {@link #shared()}), and the caller then decides locally. A level in an answer is empty when the store holds a value
 * there that the fleet did not write (garbage, a wrong type): the caller decides locally for that bucket and reports
 * it ({@link #bucketInvalid}). Operations may block for at most the store's command timeout: call them on a thread
 * that may block, or from a task handed to {@link #submit}.
 * <p>
 * The cooldown half joins this interface next (issue 28): extend a provider's cooldown
 * ({@code max(existing, now + remaining)}, capped), read the cooldowns (with the store's now), end a cooldown, claim
 * the probe after a cooldown and read or end the claims, and report backlogs (each instance's queued requests and
 * rate, summed per provider), and, for issue 31, a way for a store that can push (Redis pub/sub) to tell the
 * instances of a new cooldown at once. docs/fleet.md lists them with the Lua scripts that do them on Redis.
 * <p>
 * Implementations are thread-safe.
 */
public interface FleetStore {

	/**
	 * Returns whether this instance's decisions go to the store right now: {@code false} while it connects for the
	 * first time and while it is on its local fallback.
	 * @return whether the store is in use
	 */
	boolean shared();

	/**
	 * Returns the fleet's instances, this one included, as last counted: each instance deciding locally spends this
	 * share of a bucket's last level.
	 * @return at least 1
	 */
	int instances();

	/**
	 * Runs {@code task} on the store's own thread as soon as it is free. Never blocks or parks the caller, so it may
	 * be called on an event loop. A store that is closing drops the task.
	 * @param task the task; may call the operations
	 */
	void submit(Runnable task);

	/**
	 * Registers a participant, called on the store's thread: {@link Participant#sync()} every flush interval while the
	 * store is shared, and on each fallback and rejoin.
	 * @param participant the participant
	 */
	void register(Participant participant);

	/**
	 * Reports that the store holds a value at {@code bucket}'s key that the fleet did not write: counted (once per
	 * episode: the caller reports it again only after {@link #bucketValid}) and logged.
	 * @param bucket the bucket
	 */
	void bucketInvalid(FleetBucket bucket);

	/**
	 * Reports that {@code bucket}'s key holds the fleet's value again.
	 * @param bucket the bucket
	 */
	void bucketValid(FleetBucket bucket);

	/**
	 * Takes one token from {@code provider}'s bucket and one from {@code global}, or neither. A missing bucket is full;
	 * a bucket regains its floor per second on the store's clock, never beyond its capacity.
	 * @param provider the provider's bucket
	 * @param global the global bucket
	 * @return whether both were taken, with both levels after it; empty when the store did not answer
	 */
	Optional<Acquired> acquire(FleetBucket provider, FleetBucket global);

	/**
	 * Adds each amount to its bucket (a deposit, a refund, or a negative amount for tokens spent locally), never
	 * below zero nor above capacity, and reads every bucket back. An amount of zero reads the bucket only; an invalid
	 * bucket is neither read nor written.
	 * @param deposits the buckets and what to add to each
	 * @return each bucket's level after it, in order; empty when the store did not answer
	 */
	Optional<List<OptionalDouble>> deposit(List<Deposit> deposits);

	/**
	 * Exchanges leased tokens: adds {@code give} to both buckets (capped), then leases up to {@code want} tokens from
	 * both or neither, and records that this instance now holds {@code held} plus the grant (pooled or in flight), so
	 * the fleet knows what may yet come back. Leases of instances no longer counted as members are dropped: their
	 * tokens stay spent. Nothing is given or leased when either bucket is invalid.
	 * @param provider the provider's bucket, whose leases are recorded
	 * @param global the global bucket
	 * @param give tokens given back, at least 0
	 * @param want tokens wanted, at least 0
	 * @param held tokens this instance holds after the give, before the grant
	 * @return the grant, the levels and what the fleet's members hold; empty when the store did not answer
	 */
	Optional<Lease> lease(FleetBucket provider, FleetBucket global, long give, long want, long held);

	/**
	 * Something that keeps state in the store. Its methods are called on the store's thread.
	 */
	interface Participant {

		/** Sends what was batched and reads the fleet's state back (while the store is shared only). */
		void sync();

		/** The instance just fell back to local state. */
		void onFallback();

		/** The instance is on the store again (or for the first time), after a successful round trip. */
		void onRejoin();

	}

	/**
	 * The answer to {@link #acquire}.
	 *
	 * @param taken whether one token was taken from each bucket
	 * @param provider the provider bucket's level after it, empty when invalid
	 * @param global the global bucket's level after it, empty when invalid
	 */
	record Acquired(boolean taken, OptionalDouble provider, OptionalDouble global) {

		/**
		 * Checks the arguments.
		 * @param taken whether one token was taken from each bucket
		 * @param provider the provider bucket's level after it, empty when invalid
		 * @param global the global bucket's level after it, empty when invalid
		 */
		public Acquired {
			Objects.requireNonNull(provider, "provider");
			Objects.requireNonNull(global, "global");
		}

	}

	/**
	 * One bucket's part of {@link #deposit}.
	 *
	 * @param bucket the bucket
	 * @param amount what to add, negative for tokens spent locally
	 */
	record Deposit(FleetBucket bucket, double amount) {

		/**
		 * Checks the arguments.
		 * @param bucket the bucket
		 * @param amount what to add, negative for tokens spent locally
		 */
		public Deposit {
			Objects.requireNonNull(bucket, "bucket");
		}

	}

	/**
	 * The answer to {@link #lease}.
	 *
	 * @param granted the tokens leased to this instance (the store's answer: the caller never pools more than it
	 * asked for)
	 * @param provider the provider bucket's level after it, empty when invalid
	 * @param global the global bucket's level after it, empty when invalid
	 * @param fleetHeld the tokens the fleet's members hold on lease, this instance's included
	 */
	record Lease(long granted, OptionalDouble provider, OptionalDouble global, long fleetHeld) {

		/**
		 * Checks the arguments.
		 * @param granted the tokens leased to this instance
		 * @param provider the provider bucket's level after it, empty when invalid
		 * @param global the global bucket's level after it, empty when invalid
		 * @param fleetHeld the tokens the fleet's members hold on lease, this instance's included
		 */
		public Lease {
			Objects.requireNonNull(provider, "provider");
			Objects.requireNonNull(global, "global");
		}

	}

}
