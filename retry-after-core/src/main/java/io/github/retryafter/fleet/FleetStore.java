package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One fleet store's I/O, as one instance of the fleet sees it: the operations on the shared state that the store runs
 * <b>atomically, on its own clock</b> (Redis, or {@link InMemoryFleetStore}). Whatever the instances' clocks say, a
 * bucket's refill is computed from the store's and a cooldown is an instant on the store's clock (in microseconds,
 * {@code 0} for none). The algorithms that decide with them live once, in the core ({@link FleetRetryBudget},
 * {@link SharedCooldown}), and so does what is not I/O: whether the store is in use, the fallback and rejoin, the
 * members' count, the store's thread and the participants are the {@link #runtime()}'s. A store keeps the state and
 * does the I/O.
 * <p>
 * <b>At failure.</b> An operation never throws. It answers empty at once while its runtime is not
 * {@link FleetRuntime#shared() shared} or on a thread that {@link FleetRuntime#mayBlock() may not block}; when the
 * store fails or does not answer within its command timeout it reports it with {@link FleetRuntime#fallBack} and
 * answers empty (an operation that answers nothing does nothing then). The caller then decides locally. A value in an
 * answer is empty when the store holds one there that the fleet did not write (garbage, a wrong type): the caller
 * decides locally for that key and reports it to the runtime. Operations may block for at most the store's command
 * timeout: call them on a thread that may block, or from a task handed to {@link FleetRuntime#submit}.
 * <p>
 * A store that can push (Redis pub/sub) also announces each cooldown an instance extended to the other instances at
 * once ({@link #onCooldown}), ahead of their next read. docs/fleet.md lists the operations with the Lua scripts that
 * do them on Redis; {@code FleetStoreContract} in {@code retry-after-test} holds a store to them.
 * <p>
 * Implementations are thread-safe.
 */
public interface FleetStore {

	/**
	 * Returns this instance's runtime on this store: whether decisions go to the store now, the fleet's size, the
	 * store's thread, the participants and the key fallbacks. The same runtime on every call.
	 * @return the runtime
	 */
	FleetRuntime runtime();

	/**
	 * Registers a listener told of each cooldown another instance of the fleet extended ({@link #extendCooldown} that
	 * moved the instant later), as soon as the store can push it: a store that can (Redis pub/sub) announces it when
	 * it stores it, so the other instances need not wait for their next {@link Participant#sync()}. The sync still
	 * reads every cooldown, and so stays the fallback for an announcement lost (a disconnect) and the only way on a
	 * store that cannot push. An instance is never told of its own extensions. A message the store hears that is not
	 * the fleet's is counted ({@link FleetKeys#messageIgnored()}) and never reaches a listener. The default
	 * registers nothing: the poll alone.
	 * @param listener called on whatever thread the store hears an announcement on (Redis: its client's event loop),
	 * once per announcement
	 */
	default void onCooldown(CooldownListener listener) {
		// a store that cannot push: the participants' sync reads the cooldowns every flush interval
	}

	/**
	 * Takes one token from {@code provider}'s bucket and one from {@code global}, or neither. A missing bucket is full;
	 * a bucket regains its floor per second on the store's clock, never beyond its capacity. Nothing is taken when
	 * either bucket is invalid.
	 * @param provider the provider's bucket
	 * @param global the global bucket
	 * @return whether both were taken, with both levels after it (a level empty when its key is not the fleet's);
	 * empty when the store did not answer
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
	 * Extends {@code provider}'s cooldown: stores {@code max(existing, now + min(remaining, cap))}, never shorter, and
	 * never later than {@code now + cap} (an existing value beyond the cap is brought down to it); the record lives at
	 * most until its instant plus one second. {@code remaining} is rounded up to whole microseconds.
	 * @param provider the provider
	 * @param remaining how long this instance's gate is still closed, positive
	 * @param cap the provider's longest cooldown, positive
	 * @return the store's now and the instant stored (empty when the key is not the fleet's: it is left alone); empty
	 * when the store did not answer
	 */
	Optional<Cooldown> extendCooldown(String provider, Duration remaining, Duration cap);

	/**
	 * Reads the providers' cooldowns.
	 * @param providers the providers
	 * @return one reading per provider, in order (the instant {@code 0} when none stands, empty when the key is not
	 * the fleet's); empty when the store did not answer
	 */
	Optional<List<Cooldown>> readCooldowns(List<String> providers);

	/**
	 * Ends {@code provider}'s cooldown for the fleet (an operator's reset), and makes its key the fleet's again if it
	 * was not. Nothing happens when the store did not answer.
	 * @param provider the provider
	 */
	void endCooldown(String provider);

	/**
	 * Claims the probe after {@code provider}'s cooldown {@code instant}: the first instance to claim an instant
	 * holds the claim; a claim for a later instant replaces one for an earlier instant, except that a claim for a later
	 * instant than the provider's cooldown yields to a claim of that cooldown's instant (it was made before the store's
	 * clock stepped back); the claim lives until {@code lease} after its instant, so one whose owner went away stops
	 * holding anyone.
	 * @param provider the provider
	 * @param instant the cooldown's instant on the store's clock
	 * @param lease how long after the instant the others wait for the probe's answer
	 * @return who holds the claim now, for which instant, and the store's now; empty when the store did not answer
	 */
	Optional<ProbeClaim> claimProbe(String provider, long instant, Duration lease);

	/**
	 * Reads the providers' probe claims.
	 * @param providers the providers
	 * @return one claim per provider, in order ({@link ProbeState#NONE} when none stands or the key is not the
	 * fleet's); empty when the store did not answer
	 */
	Optional<List<ProbeState>> readProbes(List<String> providers);

	/**
	 * Reports the probe of {@code instant} answered, if this instance's claim of that instant still stands: removes
	 * it, or, when the provider admitted the probe, marks it admitted for the rest of its lease and ends the
	 * provider's cooldown if it is still that instant (a later one, stored since, stands). Nothing happens when the
	 * store did not answer: the claim then ends with its lease.
	 * @param provider the provider
	 * @param instant the claimed instant
	 * @param admitted whether the provider admitted the probe
	 */
	void endProbe(String provider, long instant, boolean admitted);

	/**
	 * Records what this instance holds at each provider's gate (its report replaces its last; a report without a
	 * backlog removes it), drops the reports older than {@code window}, and sums the rest per provider.
	 * @param window how long a report counts
	 * @param reports one per provider
	 * @return the fleet's sums per provider, in order (empty when the key is not the fleet's: it is left alone);
	 * empty when the store did not answer
	 */
	Optional<List<Optional<Backlogs>>> reportBacklogs(Duration window, List<BacklogReport> reports);

	/**
	 * Something that keeps state in the store, registered with {@link FleetRuntime#register}. Its methods are called
	 * on the store's thread (a fallback: on the thread that noticed it).
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
	 * Told of another instance's cooldown as the store announces it ({@link #onCooldown}).
	 */
	@FunctionalInterface
	interface CooldownListener {

		/**
		 * Another instance extended {@code provider}'s cooldown to {@code until}. Called on the thread the store heard
		 * it on, which may be an event loop: returns at once, never blocks and never throws.
		 * @param provider the provider the announcement names (possibly one this instance does not configure)
		 * @param storeNow the store's now when it stored the instant, microseconds on its clock
		 * @param until the instant stored, on the same clock
		 */
		void cooldownAnnounced(String provider, long storeNow, long until);

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


	/**
	 * A provider's keys besides its budget bucket, for {@link FleetKeys#keyInvalid} and {@link FleetKeys#keyValid}.
	 */
	enum ProviderKey {

		/** The provider's cooldown instant. */
		COOLDOWN,

		/** The backlogs the fleet's instances report for the provider. */
		BACKLOG

	}

	/**
	 * A provider's cooldown as the store read or wrote it.
	 *
	 * @param storeNow the store's now, microseconds on its clock
	 * @param until the cooldown's instant on the same clock, {@code 0} when none stands, empty when the key is not the
	 * fleet's
	 */
	record Cooldown(long storeNow, OptionalLong until) {

		/**
		 * Checks the arguments.
		 * @param storeNow the store's now, microseconds on its clock
		 * @param until the cooldown's instant, {@code 0} when none stands, empty when the key is not the fleet's
		 */
		public Cooldown {
			Objects.requireNonNull(until, "until");
		}

	}

	/**
	 * Who holds a probe claim, as {@link #claimProbe} answers it.
	 */
	enum Claimant {

		/** This instance: it sends the probe. */
		THIS_INSTANCE,

		/** Another instance: this one follows its probe. */
		ANOTHER_INSTANCE,

		/** Nobody any more: the provider admitted that instant's probe. */
		ADMITTED,

		/** The key is not the fleet's: each instance probes for itself. */
		INVALID

	}

	/**
	 * The answer to {@link #claimProbe}.
	 *
	 * @param claimant who holds the claim
	 * @param instant the claimed cooldown instant (microseconds on the store's clock; meaningless when invalid)
	 * @param storeNow the store's now
	 */
	record ProbeClaim(Claimant claimant, long instant, long storeNow) {

		/**
		 * Checks the arguments.
		 * @param claimant who holds the claim
		 * @param instant the claimed cooldown instant
		 * @param storeNow the store's now
		 */
		public ProbeClaim {
			Objects.requireNonNull(claimant, "claimant");
		}

	}

	/**
	 * A provider's probe claim, as {@link #readProbes} answers it.
	 *
	 * @param instant the claimed cooldown instant (microseconds on the store's clock), {@code 0} when none stands
	 * @param admitted whether the provider admitted that instant's probe
	 */
	record ProbeState(long instant, boolean admitted) {

		/** No claim stands (or the key is not the fleet's). */
		public static final ProbeState NONE = new ProbeState(0, false);

	}

	/**
	 * What this instance holds at one provider's gate, for {@link #reportBacklogs}.
	 *
	 * @param provider the provider
	 * @param backlog whether this instance counts as holding a backlog (a report without one removes its last)
	 * @param queued the requests its gate holds
	 * @param rate the rate its gate paces at, per second, {@code 0} when it holds none
	 */
	record BacklogReport(String provider, boolean backlog, int queued, double rate) {

		/**
		 * Checks the arguments.
		 * @param provider the provider
		 * @param backlog whether this instance counts as holding a backlog
		 * @param queued the requests its gate holds
		 * @param rate the rate its gate paces at
		 */
		public BacklogReport {
			Objects.requireNonNull(provider, "provider");
		}

	}

	/**
	 * The fleet's backlog at one provider, summed over the reports that count.
	 *
	 * @param instances the instances with a backlog
	 * @param queued the requests they hold
	 * @param rate the rate they pace at together, per second
	 */
	record Backlogs(long instances, long queued, double rate) {
	}

}
