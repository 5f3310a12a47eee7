package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.FleetGate;

/**
 * The providers' cooldowns shared by a fleet through a {@link FleetStore}: a gate closed on one instance is pushed as
 * an instant on the store's clock at once (never shortened, cut to the provider's cap) and every instance's gate
 * closes until it, converted to its own clock and never earlier: as soon as the store announces it
 * ({@link FleetStore#onCooldown}), or at the instance's next sync, which reads every cooldown. One instance probes
 * after a fleet cooldown while the others follow its claim; and each gate paces at its share of the provider, by the
 * fleet's backlogs. Nothing here waits on the store but {@link #attach}, once, at startup. Everything the fleet's
 * instants change is learned on the store's thread. docs/fleet.md states the rules and their bounds. Thread-safe.
 */
public final class SharedCooldown implements FleetStore.Participant {

	/** The cap of a provider whose cap is not given: the default {@code max-wait}. */
	public static final Duration DEFAULT_CAP = Duration.ofSeconds(30);

	/** How long the other instances wait for a probe's answer when the provider's attempt timeout is not given. */
	public static final Duration DEFAULT_PROBE_LEASE = Duration.ofSeconds(10);

	/**
	 * How much later the same fleet instant may end when read again and still count as a round trip's jitter rather
	 * than as moved (the store's clock stepped back): far more than a store answers within (its command timeout is
	 * milliseconds), so a read delayed on a busy machine never closes a gate again.
	 */
	private static final long JITTER_NANOS = Duration.ofSeconds(1).toNanos();

	private final FleetStore store;

	// the store's runtime: whether it is shared now, the fleet's size, the store's thread, the key fallbacks
	private final FleetRuntime runtime;

	private final Ticker ticker;

	private final BooleanSupplier mayBlock;

	// one per configured provider, fixed at construction
	private final Map<String, CooldownEntry> entries;

	private final List<CooldownEntry> order;

	private final List<String> providers;

	private final AtomicBoolean publishing = new AtomicBoolean();

	// whether a task that learns the announced cooldowns waits on the store's thread: at most one at a time, however
	// many announcements arrive (each keeps only the latest per provider, CooldownEntry.announced)
	private final AtomicBoolean announcing = new AtomicBoolean();

	private final FleetProbes probes;

	private final FleetBacklogs backlogs;

	private volatile Function<String, Optional<FleetGate>> gates = (provider) -> Optional.empty();

	SharedCooldown(FleetStore store, Map<String, Duration> caps, Map<String, Duration> probeLeases, Ticker ticker,
			BooleanSupplier mayBlock, Duration flushInterval) {
		this.store = store;
		this.runtime = store.runtime();
		this.ticker = ticker;
		this.mayBlock = mayBlock;
		Map<String, CooldownEntry> entries = new LinkedHashMap<>();
		long now = ticker.read();
		caps.forEach((provider, cap) -> entries.put(provider, new CooldownEntry(provider, cap,
				probeLeases.getOrDefault(provider, DEFAULT_PROBE_LEASE), now)));
		this.entries = Map.copyOf(entries);
		this.order = List.copyOf(entries.values());
		this.providers = this.order.stream().map((entry) -> entry.provider).toList();
		this.probes = new FleetProbes(this, store, ticker, this.order, this.providers, mayBlock);
		this.backlogs = new FleetBacklogs(this, store, ticker, this.order, flushInterval);
		this.order.forEach((entry) -> entry.arbiter = (gate) -> this.probes.request(entry, gate));
		this.runtime.register(this);
		store.onCooldown(this::announced);
	}

	/**
	 * Starts a builder.
	 * @param store this instance's link to the fleet's store
	 * @return the builder
	 */
	public static SharedCooldownBuilder builder(FleetStore store) {
		return new SharedCooldownBuilder(store);
	}

	/**
	 * Attaches the engines' gates, once they exist (until then the cooldown reads and closes nothing), and reads the
	 * fleet's cooldowns once on the calling thread, so that an instance started while a provider is cooling down
	 * holds its first request until the fleet's instant. It waits for the store's first connection for the time the
	 * store bounds ({@link FleetRuntime#awaitFirstConnection()}), and for the read at most the store's command timeout;
	 * on a thread that may not block it reads nothing. Call it before any request is sent.
	 * @param gates the gate of a configured provider, by name, as a fleet sees it
	 */
	public void attach(Function<String, Optional<FleetGate>> gates) {
		this.gates = Objects.requireNonNull(gates, "gates");
		if (this.order.isEmpty() || !this.mayBlock.getAsBoolean() || !this.runtime.awaitFirstConnection()) {
			return;
		}
		readCooldowns();
	}

	/**
	 * Asks the store's thread to push any gate closed since the last push, and to end the claims of probes answered
	 * here, without waiting for the next flush. Never blocks.
	 */
	public void publish() {
		if (this.runtime.shared() && this.publishing.compareAndSet(false, true)) {
			this.runtime.submit(() -> {
				this.publishing.set(false);
				pushClosedGates();
				this.probes.endAnswered();
			});
		}
	}

	/**
	 * Returns how long {@code provider} is still cooling down on this instance, cooldowns learned from the fleet
	 * included.
	 * @param provider a configured provider
	 * @return the time left, zero when it is not cooling down or not configured
	 */
	public Duration remaining(String provider) {
		if (!this.entries.containsKey(provider)) {
			return Duration.ZERO;
		}
		return this.gates.apply(provider).map(FleetGate::cooldownRemaining).orElse(Duration.ZERO);
	}

	/**
	 * Ends {@code provider}'s cooldown for the whole fleet (an operator's reset), without waiting for the store: the
	 * store's record is removed on the store's thread and this instance's gate opened once it is, so the next read
	 * does not close it again.
	 * @param provider a configured provider
	 */
	public void reset(String provider) {
		if (!this.entries.containsKey(provider)) {
			return;
		}
		this.runtime.submit(() -> {
			this.store.endCooldown(provider);
			this.gates.apply(provider).ifPresent(FleetGate::reset);
		});
	}

	/**
	 * Returns the longest cooldown of {@code provider} this instance stores or accepts from the fleet.
	 * @param provider a configured provider
	 * @return its cap, empty when it is not configured
	 */
	public Optional<Duration> cap(String provider) {
		return Optional.ofNullable(this.entries.get(provider)).map((entry) -> Duration.ofNanos(entry.capMicros * 1000));
	}

	@Override
	public void sync() {
		pushClosedGates();
		if (!this.order.isEmpty()) {
			readCooldowns();
			this.probes.endAnswered();
			this.probes.follow();
		}
		this.backlogs.report();
		this.backlogs.share();
	}

	@Override
	public void onFallback() {
		// each gate carries on as this instance's own cooldown
	}

	@Override
	public void onRejoin() {
		// what this instance learned while the store was away becomes the fleet's
		pushClosedGates();
	}

	/**
	 * Hears a cooldown another instance extended, on the thread the store heard it on: keeps it, the latest per
	 * provider, and asks the store's thread to learn it, so this instance's gate closes before its next sync. Never
	 * blocks: a slot per configured provider and at most one task waiting, so a flood of announcements costs a compare
	 * and set each. A provider this instance does not configure is not its business.
	 */
	private void announced(String provider, long storeNow, long until) {
		CooldownEntry entry = this.entries.get(provider);
		if (entry == null) {
			return;
		}
		entry.announce(storeNow, until, this.ticker.read());
		if (this.announcing.compareAndSet(false, true)) {
			this.runtime.submit(this::learnAnnounced);
		}
	}

	/** On the store's thread: learns what was announced since the last time, as a read of the store would. */
	private void learnAnnounced() {
		this.announcing.set(false);
		for (CooldownEntry entry : this.order) {
			CooldownEntry.Announced announced = entry.announced.getAndSet(null);
			if (announced != null) {
				learn(entry, announced.storeNow(), announced.until(), announced.received(), Source.ANNOUNCEMENT);
			}
		}
	}

	Optional<FleetGate> gate(CooldownEntry entry) {
		return this.gates.apply(entry.provider);
	}

	private void readCooldowns() {
		Optional<List<FleetStore.Cooldown>> reply = this.store.readCooldowns(this.providers);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		for (int i = 0; i < this.order.size(); i++) {
			CooldownEntry entry = this.order.get(i);
			FleetStore.Cooldown cooldown = (i < reply.get().size()) ? reply.get().get(i)
					: new FleetStore.Cooldown(0, OptionalLong.empty());
			if (cooldown.until().isEmpty()) {
				invalid(entry);
				continue;
			}
			valid(entry);
			if (cooldown.until().getAsLong() != 0) {
				learn(entry, cooldown.storeNow(), cooldown.until().getAsLong(), received, Source.READ);
			}
		}
	}

	private void pushClosedGates() {
		for (CooldownEntry entry : this.order) {
			Optional<FleetGate> gate = gate(entry);
			if (gate.isEmpty()) {
				continue;
			}
			long until = gate.get().cooldownUntilNanos();
			long remaining = until - this.ticker.read();
			if (remaining > 0 && until - entry.known.get() > 0) {
				push(entry, until);
			}
		}
	}

	private void push(CooldownEntry entry, long until) {
		long remaining = until - this.ticker.read();
		if (remaining <= 0) {
			return;
		}
		Optional<FleetStore.Cooldown> reply = this.store.extendCooldown(entry.provider, Duration.ofNanos(remaining),
				entry.cap);
		if (reply.isEmpty()) {
			return;
		}
		// pushed or not, this instant is not pushed again: a key that is not valid is read back every flush
		entry.raise(until);
		if (reply.get().until().isEmpty()) {
			invalid(entry);
			return;
		}
		valid(entry);
		long received = this.ticker.read();
		learn(entry, reply.get().storeNow(), reply.get().until().getAsLong(), received, Source.PUSH);
	}

	/**
	 * Converts the fleet's instant to this instance's clock (never earlier than the fleet's: the store answered before
	 * {@code received}), cut to the provider's cap, and closes the gate until then, unless it is closed until then or
	 * later already. Store instants read against different store nows are never ordered against each other: a message
	 * may lie about the store's now, and the store's clock may step back. So "the same cooldown read again" is known by
	 * its value (an instant beyond the cap, the answer to this instance's own push, one whose probe was admitted, the
	 * fleet's cooldown heard again), and everything else is ordered on the ticker once converted: whatever a message
	 * said, a later genuine cooldown still closes the gate. The fleet's cooldown read again is news only when it now
	 * ends more than {@link #JITTER_NANOS} later: the store's clock stepped back, and the gate holds it as an instance
	 * reading it for the first time would.
	 */
	private void learn(CooldownEntry entry, long storeNow, long until, long received, Source source) {
		Optional<FleetGate> gate = gate(entry);
		if (gate.isEmpty()) {
			// not attached yet (a sync that ran before attach): learn nothing, or the instant would count as known
			// and the read at attach would skip it
			return;
		}
		if (until == entry.cutFrom) {
			// the instant beyond the cap that was cut already, read again: it changes nothing (cut anew against a later
			// now, it would keep the gate closed for as long as the key holds it)
			return;
		}
		long remainingMicros = entry.remainingMicros(storeNow, until);
		if (remainingMicros <= 0) {
			return;
		}
		// the instant as this instance knows it (and claims its probe): cut to the store's now plus the cap at most
		long bounded = (storeNow > Long.MAX_VALUE - remainingMicros) ? Long.MAX_VALUE : storeNow + remainingMicros;
		if (bounded != until) {
			entry.cutFrom = until;
		}
		if (bounded == entry.closedFor) {
			// this instance's own cooldown read back, or one whose probe was admitted: it changes nothing, even against
			// a clock that moved on while the store's did not (a test's fake clock)
			return;
		}
		long ends = received + remainingMicros * 1000;
		if (bounded == entry.fleetUntil) {
			if (source == Source.ANNOUNCEMENT || ends - entry.fleetEnds <= JITTER_NANOS) {
				// the same cooldown heard again, or read again: whatever the round trip's jitter (or a message's
				// delay) makes of it, it changes nothing
				return;
			}
			// read again, it ends later than it did by more than a round trip: the store's clock stepped back, and the
			// fleet holds it until then on the store's clock, as an instance that reads it for the first time does
			entry.fleetEnds = ends;
		}
		else if (entry.fleetUntil == CooldownEntry.NONE || ends - entry.fleetEnds > 0) {
			entry.fleetUntil = bounded;
			entry.fleetEnds = ends;
		}
		if (ends - entry.known.get() > 0) {
			FleetGate learning = gate.get();
			learning.closeUntil(ends);
			if (learning.rate().isEmpty()) {
				// the provider throttled the fleet: this gate paces after the cooldown as the throttled gates do,
				// instead of sending its whole backlog the instant it opens
				long now = this.ticker.read();
				learning.onThrottle(now, now);
			}
			entry.raise(learning.cooldownUntilNanos());
		}
		if (source == Source.PUSH) {
			// closed until then or later already: the answer to this instance's own push is never news to it
			entry.closedFor = bounded;
		}
	}

	private void invalid(CooldownEntry entry) {
		if (entry.bad.compareAndSet(false, true)) {
			this.runtime.keys().keyInvalid(FleetStore.ProviderKey.COOLDOWN, entry.provider);
		}
	}

	private void valid(CooldownEntry entry) {
		if (entry.bad.compareAndSet(true, false)) {
			this.runtime.keys().keyValid(FleetStore.ProviderKey.COOLDOWN, entry.provider);
		}
	}

	/** Where a fleet instant was learned from. */
	private enum Source {

		/** A read of the store: the store's now is the store's, answered just before it arrived. */
		READ,

		/** The store's answer to this instance's own push: a read, of a cooldown this instance holds already. */
		PUSH,

		/** A message on the store's channel: its "store now" may be stale (delivered late) or a lie. */
		ANNOUNCEMENT

	}

	@Override
	public String toString() {
		return "SharedCooldown[providers=" + this.providers + ", store=" + this.store + "]";
	}

}
