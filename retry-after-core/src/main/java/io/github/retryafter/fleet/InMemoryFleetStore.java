package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;

/**
 * A fleet's store in memory, on a {@link Ticker} of its own (a fake clock in tests and simulations): the same
 * arithmetic as the Redis store's scripts, one atomic step per operation, so the real {@link FleetRetryBudget} and
 * {@link SharedCooldown} can run without a network, deterministically (store instants are the clock's microseconds). Each instance {@link #join joins} and gets its {@link Member}, its
 * {@link FleetStore}; the members are the fleet's instances. Nothing runs by itself: a member's tasks (among them the
 * cooldowns the other members extended, announced as the Redis store publishes them) run when its executor runs them
 * (by default {@link Member#runTasks()}), and its flush when {@link Member#flush()} is called.
 * <p>
 * Thread-safe (every operation holds the store's lock), and deterministic when driven from one thread.
 */
public final class InMemoryFleetStore {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	/** A member's runtime: nothing waits for the tasks (someone else runs them), one good probe rejoins. */
	private static final FleetRuntimeSettings RUNTIME = new FleetRuntimeSettings("The in-memory fleet store",
			Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 1, Duration.ZERO);

	private final Ticker clock;

	private final long keyTtlNanos;

	// guarded by this: per bucket key name (the global bucket and the configured providers', fixed by configuration),
	// its level and when it was written; a missing key is a full bucket
	private final Map<String, Level> buckets = new HashMap<>();

	// guarded by this: bucket key names that hold a value the fleet did not write
	private final Set<String> invalid = new HashSet<>();

	// guarded by this: per provider bucket key name, the tokens each member holds on lease
	private final Map<String, Map<String, Long>> leases = new HashMap<>();

	// guarded by this: the fleet's members, in the order they joined
	private final Map<String, Member> members = new LinkedHashMap<>();

	// guarded by this: the cooldowns, probe claims and backlog reports, per provider (at most one entry per member)
	private final InMemoryCooldowns cooldowns = new InMemoryCooldowns();

	/**
	 * Creates an empty store whose untouched keys live an hour at most, as the starter's default {@code key-ttl}.
	 * @param clock the store's own clock, as Redis's {@code TIME} is Redis's
	 */
	public InMemoryFleetStore(Ticker clock) {
		this(clock, Duration.ofHours(1));
	}

	/**
	 * Creates an empty store.
	 * @param clock the store's own clock
	 * @param keyTtl the longest a bucket's key lives untouched (it is then full again)
	 */
	public InMemoryFleetStore(Ticker clock, Duration keyTtl) {
		this.clock = Objects.requireNonNull(clock, "clock");
		this.keyTtlNanos = keyTtl.toNanos();
	}

	/**
	 * Joins an instance whose submitted tasks wait for {@link Member#runTasks()}.
	 * @param instanceId the instance's identity, unique in the fleet
	 * @return its member, shared at once
	 */
	public Member join(String instanceId) {
		return join(instanceId, null);
	}

	/**
	 * Joins an instance whose submitted tasks go to {@code background} (a simulation's event queue, say).
	 * @param instanceId the instance's identity, unique in the fleet
	 * @param background runs the member's tasks; {@code null} to queue them for {@link Member#runTasks()}
	 * @return its member, shared at once
	 */
	public synchronized Member join(String instanceId, Executor background) {
		Objects.requireNonNull(instanceId, "instanceId");
		if (this.members.containsKey(instanceId)) {
			throw new IllegalArgumentException("instance '" + instanceId + "' has already joined");
		}
		Member member = new Member(instanceId, background);
		this.members.put(instanceId, member);
		member.runtime.probe();
		this.members.values().forEach((each) -> each.runtime.heartbeat());
		return member;
	}

	/**
	 * Writes a value the fleet did not write at {@code bucket}'s key, as another client might: it is answered invalid
	 * until {@link #clear cleared}.
	 * @param bucket the bucket
	 */
	public synchronized void corrupt(FleetBucket bucket) {
		this.invalid.add(bucket.keyName());
	}

	/**
	 * Writes a value the fleet did not write at a provider's {@code key}, as another client might: it is answered
	 * invalid until the fleet deletes it ({@link FleetStore#endCooldown} for a cooldown).
	 * @param key which of the provider's keys
	 * @param provider the provider
	 */
	public synchronized void corrupt(FleetStore.ProviderKey key, String provider) {
		this.cooldowns.corrupt(key, provider);
	}

	/**
	 * Publishes a cooldown announcement as any client of the Redis store's channel could, whatever its instants say (a
	 * peer whose clock runs ahead, or a hostile one): every member is told, as a task on its executor, and nothing is
	 * stored.
	 * @param provider the provider the message names
	 * @param storeNow the store's now the message claims, microseconds
	 * @param until the cooldown instant the message claims, microseconds
	 */
	public void publish(String provider, long storeNow, long until) {
		Objects.requireNonNull(provider, "provider");
		announce(null, provider, storeNow, until);
	}

	/**
	 * Deletes {@code bucket}'s key: the bucket is full (and valid) again.
	 * @param bucket the bucket
	 */
	public synchronized void clear(FleetBucket bucket) {
		this.invalid.remove(bucket.keyName());
		this.buckets.remove(bucket.keyName());
	}

	/**
	 * Returns {@code bucket}'s level now, without writing it.
	 * @param bucket the bucket
	 * @return the level, empty when the key is invalid
	 */
	public synchronized OptionalDouble level(FleetBucket bucket) {
		return shown(level(bucket, this.clock.read()));
	}

	private synchronized Optional<FleetStore.Acquired> acquire(FleetBucket provider, FleetBucket global) {
		long now = this.clock.read();
		Double p = level(provider, now);
		Double g = level(global, now);
		if (p == null || g == null || p < 1 || g < 1) {
			return Optional.of(new FleetStore.Acquired(false, shown(p), shown(g)));
		}
		store(provider, p - 1, now);
		store(global, g - 1, now);
		return Optional.of(new FleetStore.Acquired(true, shown(p - 1), shown(g - 1)));
	}

	private synchronized Optional<List<OptionalDouble>> deposit(List<FleetStore.Deposit> deposits) {
		long now = this.clock.read();
		List<OptionalDouble> levels = new ArrayList<>(deposits.size());
		for (FleetStore.Deposit deposit : deposits) {
			BudgetSettings settings = deposit.bucket().settings();
			Double tokens = level(deposit.bucket(), now);
			if (tokens != null && deposit.amount() != 0) {
				tokens = Math.max(0, Math.min(settings.capacity(), tokens + deposit.amount()));
				store(deposit.bucket(), tokens, now);
			}
			levels.add(shown(tokens));
		}
		return Optional.of(levels);
	}

	private synchronized Optional<FleetStore.Lease> lease(String instanceId, FleetBucket provider, FleetBucket global,
			long give, long want, long held) {
		long now = this.clock.read();
		Double p = level(provider, now);
		Double g = level(global, now);
		if (p == null || g == null) {
			return Optional.of(new FleetStore.Lease(0, shown(p), shown(g), 0));
		}
		p = Math.min(provider.settings().capacity(), p + give);
		g = Math.min(global.settings().capacity(), g + give);
		long grant = (long) Math.max(0, Math.min(want, Math.min(Math.floor(p), Math.floor(g))));
		p -= grant;
		g -= grant;
		store(provider, p, now);
		store(global, g, now);
		Map<String, Long> holders = this.leases.computeIfAbsent(provider.keyName(), (name) -> new LinkedHashMap<>());
		if (held + grant > 0) {
			holders.put(instanceId, held + grant);
		}
		else {
			holders.remove(instanceId);
		}
		long out = 0;
		for (Iterator<Map.Entry<String, Long>> it = holders.entrySet().iterator(); it.hasNext();) {
			Map.Entry<String, Long> holder = it.next();
			if (holder.getKey().equals(instanceId) || this.members.containsKey(holder.getKey())) {
				out += holder.getValue();
			}
			else {
				// a lease of an instance that left: its tokens stay spent
				it.remove();
			}
		}
		return Optional.of(new FleetStore.Lease(grant, shown(p), shown(g), out));
	}

	/** A bucket's level at {@code now}: its capacity when missing or expired, {@code null} when invalid. */
	private Double level(FleetBucket bucket, long now) {
		String key = bucket.keyName();
		if (this.invalid.contains(key)) {
			return null;
		}
		BudgetSettings settings = bucket.settings();
		Level stored = this.buckets.get(key);
		if (stored == null || now - stored.expiresAt() >= 0) {
			return settings.capacity();
		}
		double elapsed = Math.max(0, now - stored.at()) / NANOS_PER_SECOND;
		return Math.max(0, Math.min(settings.capacity(), stored.tokens() + settings.refillPerSecond() * elapsed));
	}

	/** Writes a level: a full bucket is deleted; a key expires once the floor has refilled it, or the TTL passed. */
	private void store(FleetBucket bucket, double tokens, long now) {
		BudgetSettings settings = bucket.settings();
		if (tokens >= settings.capacity()) {
			this.buckets.remove(bucket.keyName());
			return;
		}
		long ttl = this.keyTtlNanos;
		if (settings.refillPerSecond() > 0) {
			double refilled = Math.ceil((settings.capacity() - tokens) / settings.refillPerSecond() * 1000) + 1000;
			ttl = Math.min(ttl, (long) refilled * 1_000_000L);
		}
		this.buckets.put(bucket.keyName(), new Level(tokens, now, now + ttl));
	}

	private static OptionalDouble shown(Double tokens) {
		return (tokens != null) ? OptionalDouble.of(tokens) : OptionalDouble.empty();
	}

	private long micros() {
		return Math.floorDiv(this.clock.read(), 1000);
	}

	/**
	 * Announces a cooldown {@code from} extended to every other member, as the Redis store's script publishes it: one
	 * task per member and extension, on that member's executor, telling its listeners (whether it is shared or not,
	 * as a subscription outlives a command's timeout).
	 */
	private void announce(Member from, String provider, FleetStore.Cooldown cooldown) {
		announce(from, provider, cooldown.storeNow(), cooldown.until().orElseThrow());
	}

	private void announce(Member from, String provider, long storeNow, long until) {
		List<Member> others = locked(() -> this.members.values().stream().filter((member) -> member != from).toList());
		for (Member other : others) {
			other.background.execute(() -> other.cooldownListeners
				.forEach((listener) -> listener.cooldownAnnounced(provider, storeNow, until)));
		}
	}

	private synchronized int count() {
		return Math.max(1, this.members.size());
	}

	private synchronized void leave(Member member) {
		this.members.remove(member.instanceId);
		this.members.values().forEach((each) -> each.runtime.heartbeat());
	}

	private record Level(double tokens, long at, long expiresAt) {
	}

	private InMemoryCooldowns cooldowns() {
		return this.cooldowns;
	}

	private synchronized <T> T locked(java.util.function.Supplier<T> step) {
		return step.get();
	}

	private synchronized void lockedRun(Runnable step) {
		step.run();
	}

	/**
	 * One instance's link to the store: a {@link FleetStore} over a {@link FleetRuntime} of its own, shared once
	 * joined. {@link #fallBack()} and {@link #rejoin()} switch it as a timeout and a good probe would; the fleet's size
	 * is counted again as members join and leave. Thread-safe.
	 */
	public final class Member implements FleetStore {

		private final String instanceId;

		private final Executor background;

		private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

		// told of the other members' cooldowns: a few, registered at startup
		private final List<CooldownListener> cooldownListeners = new CopyOnWriteArrayList<>();

		private final FleetRuntime runtime;

		// whether the store stops answering this member's probes: between fallBack() and rejoin()
		private volatile boolean away;

		private Member(String instanceId, Executor background) {
			this.instanceId = instanceId;
			this.background = (background != null) ? background : this.tasks::add;
			this.runtime = new FleetRuntime(new Link(), RUNTIME, InMemoryFleetStore.this.clock, this.background,
					() -> true);
		}

		@Override
		public FleetRuntime runtime() {
			return this.runtime;
		}

		@Override
		public Optional<Acquired> acquire(FleetBucket provider, FleetBucket global) {
			return shared() ? InMemoryFleetStore.this.acquire(provider, global) : Optional.empty();
		}

		@Override
		public Optional<List<OptionalDouble>> deposit(List<Deposit> deposits) {
			return shared() ? InMemoryFleetStore.this.deposit(deposits) : Optional.empty();
		}

		@Override
		public Optional<Lease> lease(FleetBucket provider, FleetBucket global, long give, long want, long held) {
			return shared() ? InMemoryFleetStore.this.lease(this.instanceId, provider, global, give, want, held)
					: Optional.empty();
		}

		@Override
		public Optional<Cooldown> extendCooldown(String provider, Duration remaining, Duration cap) {
			if (!shared()) {
				return Optional.empty();
			}
			InMemoryCooldowns.Extension extension = locked(() -> cooldowns().extend(provider, remaining, cap, micros()));
			if (extension.extended()) {
				announce(this, provider, extension.cooldown());
			}
			return Optional.of(extension.cooldown());
		}

		/**
		 * Registers a listener told of the cooldowns the other members extend: each announcement is a task on this
		 * member's executor (by default run by {@link #runTasks()}), as the Redis store's pub/sub message is.
		 */
		@Override
		public void onCooldown(CooldownListener listener) {
			this.cooldownListeners.add(Objects.requireNonNull(listener, "listener"));
		}

		@Override
		public Optional<List<Cooldown>> readCooldowns(List<String> providers) {
			return shared() ? Optional.of(locked(() -> cooldowns().read(providers, micros()))) : Optional.empty();
		}

		@Override
		public void endCooldown(String provider) {
			if (shared()) {
				lockedRun(() -> cooldowns().end(provider));
			}
		}

		@Override
		public Optional<ProbeClaim> claimProbe(String provider, long instant, Duration lease) {
			return shared()
					? Optional.of(locked(() -> cooldowns().claim(this.instanceId, provider, instant, lease, micros())))
					: Optional.empty();
		}

		@Override
		public Optional<List<ProbeState>> readProbes(List<String> providers) {
			return shared() ? Optional.of(locked(() -> cooldowns().probes(providers, micros()))) : Optional.empty();
		}

		@Override
		public void endProbe(String provider, long instant, boolean admitted) {
			if (shared()) {
				lockedRun(() -> cooldowns().endProbe(this.instanceId, provider, instant, admitted, micros()));
			}
		}

		@Override
		public Optional<List<Optional<Backlogs>>> reportBacklogs(Duration window, List<BacklogReport> reports) {
			return shared()
					? Optional.of(locked(() -> cooldowns().report(this.instanceId, window, reports, micros())))
					: Optional.empty();
		}

		/**
		 * Runs the tasks submitted so far, and those they submit, on the calling thread (members joined without an
		 * executor only).
		 * @return how many ran
		 */
		public int runTasks() {
			int ran = 0;
			for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
				task.run();
				ran++;
			}
			return ran;
		}

		/** The flush interval's tick: the runtime's (the members counted and every participant synced, while shared). */
		public void flush() {
			this.runtime.tick();
		}

		/** Falls back to local state, as a timeout would: participants are told, and probes fail until {@link #rejoin()}. */
		public void fallBack() {
			this.away = true;
			this.runtime.fallBack(new IllegalStateException("the member fell back (InMemoryFleetStore.Member.fallBack)"));
		}

		/** Returns to the store, as a good probe would: participants are told. */
		public void rejoin() {
			this.away = false;
			this.runtime.probe();
		}

		private boolean shared() {
			return this.runtime.shared();
		}

		/** Leaves the fleet: no longer counted, and its leases are dropped at the next lease of another member. */
		public void leave() {
			InMemoryFleetStore.this.leave(this);
		}

		/**
		 * Returns how many times a participant reported an invalid bucket.
		 * @return the count
		 */
		public long invalidReports() {
			return this.runtime.keys().fallbacks();
		}

		@Override
		public String toString() {
			return "InMemoryFleetStore.Member[" + this.instanceId + ", shared=" + shared() + "]";
		}

		/** The member's probe and heartbeat: a probe fails while it is away, the count is the members'. */
		private final class Link implements FleetLink {

			@Override
			public void probe() {
				if (Member.this.away) {
					throw new IllegalStateException("the in-memory store does not answer this member until rejoin()");
				}
			}

			@Override
			public Optional<OptionalLong> countMembers(Duration window) {
				return Optional.of(OptionalLong.of(count()));
			}

		}

	}

}
