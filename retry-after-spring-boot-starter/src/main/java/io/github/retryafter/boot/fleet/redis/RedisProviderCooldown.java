package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.fleet.FleetCooldown;
import io.github.retryafter.pacing.ProbeArbiter;
import io.github.retryafter.pacing.FleetGate;
import io.github.retryafter.pacing.ProviderGate;

/**
 * The {@link FleetCooldown} on Redis: the cooldown of each engine's {@link ProviderGate} (closed by a
 * {@code Retry-After}, see provider pacing) is shared through Redis, on Redis's clock, so a provider that told one
 * instance to come back later holds every instance's requests to it.
 * <p>
 * <b>One clock.</b> A cooldown is an instant. It is stored as {@code max(existing, redisNow + remaining)} by a script
 * that reads Redis's {@code TIME} ({@link FleetScript#EXTEND_COOLDOWN}), so it is never shortened and no instance's
 * wall clock enters it. On the way out it is converted to each instance's monotonic clock:
 * {@code ticker + (until - redisNow)}, read when the reply arrives, so the local instant is never earlier than the
 * fleet's; the gate then closes until it ({@link FleetGate#closeUntil}), which never shortens either.
 * <p>
 * <b>Bounded.</b> Each provider has a cap (its maximum cooldown): a cooldown is stored for the cap at most, an
 * existing value beyond it is brought down to it, and the key expires one second after its instant, so a key never
 * lives longer than the cap plus one second. A cooldown read from the fleet is also cut to this instance's cap
 * (to Redis's now plus the cap) before this instance acts on it or keeps it.
 * <p>
 * <b>A new instance starts from the fleet's state.</b> {@link #attach} (called when the engines exist, before any
 * request can be sent) waits for the first connection (at most the probe timeout) and reads every provider's cooldown
 * once, within the command timeout, closing the gates it names; a failure falls back as any other and is counted.
 * <p>
 * <b>Shares of the provider.</b> Each configured provider's gate paces for this instance's share of the provider
 * ({@link FleetGate#share}): {@code 1 / instances}, or, while its gate holds a backlog, {@code 1 / (instances with
 * a backlog)}, at the rate the fleet's gates with a backlog pace at together times this instance's part of their
 * backlog ({@link FleetGate#paceAt}). So the instances drain their backlogs together, not each at a rate it
 * measured alone from a few responses, and those still draining take over the rate of those that are done. What each
 * instance holds is a hash per provider, {@code {prefix}:backlog:<provider>} ({@link FleetScript#BACKLOGS}), field
 * instance id, value {@code at queued rate}: scope the fleet and one provider; bound one field per instance with a
 * backlog, none older than ten flush intervals (at least 250 ms), the key expiring that long after its last write; at
 * the bound a field not refreshed (its instance went away) is dropped and no longer counts. An instance reports every
 * flush interval while its gate holds a backlog and for half the window after, and makes no round trip for it
 * otherwise; the script reads every field of the hash, so its cost grows with the instances that hold a backlog.
 * While the instance is on its local fallback no sync runs, so a gate keeps the share Redis last gave it (as the
 * budget keeps its level): instances that fall back together still start their rates, bursts and floors at what the
 * fleet would, and each rate grows to the whole {@code max-rate} as any gate's does.
 * <p>
 * <b>One probe per fleet.</b> Each configured provider's gate also gets a {@link ProbeArbiter}: when its first request
 * after a fleet cooldown is ready, the first instance to claim {@code {prefix}:probe:<provider>} ({@link
 * FleetScript#CLAIM_PROBE}) sends the probe; the others follow it until the claim is removed on its answer ({@link
 * FleetScript#END_PROBE}, read back every flush interval with {@link FleetScript#READ_PROBES}). One key per configured
 * provider, expiring the provider's attempt timeout after the cooldown's instant; a claim that expires (its owner went
 * away) holds nobody, and each instance then probes for itself.
 * <p>
 * <b>No request waits on Redis.</b> After that, everything runs on the fleet's background thread: a gate closed on
 * this instance is pushed as soon as an engine reports a retry or a refusal ({@link #publish}) and at every flush
 * interval at the latest; every configured provider's cooldown is read back every flush interval
 * ({@link FleetScript#READ_COOLDOWNS}): a poll, not pub/sub, so a cooldown reaches the other instances within one
 * flush interval plus two round trips. While the fleet is not on Redis each gate is this instance's own, and
 * cooldowns learned meanwhile are pushed when Redis is back. A key whose value is not the fleet's is left alone and
 * its provider's gate is this instance's own until it is valid again ({@link RedisFleet#keyFallBack}).
 * <p>
 * Thread-safe.
 */
public final class RedisProviderCooldown implements FleetCooldown, RedisFleet.Participant {

	/** The cap of a provider whose cap is not given: the default {@code max-wait}. */
	public static final Duration DEFAULT_CAP = Duration.ofSeconds(30);

	private static final String ADMITTED_PREFIX = "admitted:";

	/** How long the other instances wait for a probe's answer when the provider's attempt timeout is not given. */
	public static final Duration DEFAULT_PROBE_LEASE = Duration.ofSeconds(10);

	/** The shortest time an instance counts as having a backlog after it last reported one. */
	private static final Duration BACKLOG_WINDOW_FLOOR = Duration.ofMillis(250);

	private static final byte[] EXPIRY_MARGIN_MILLIS = "1000".getBytes(StandardCharsets.US_ASCII);

	private final byte[] instanceId;

	private final RedisFleet fleet;

	private final Ticker ticker;

	// one per configured provider, fixed at construction
	private final Map<String, Entry> entries;

	private final List<Entry> order;

	private final byte[][] keys;

	private final byte[][] probeKeys;

	private final byte[][] backlogKeys;

	private final AtomicBoolean publishing = new AtomicBoolean();

	private volatile Function<String, Optional<FleetGate>> gates = (provider) -> Optional.empty();

	/**
	 * Creates the cooldown, each provider capped at {@link #DEFAULT_CAP}, and registers it with the fleet.
	 * @param fleet the fleet's link to Redis
	 * @param providers the configured providers' names: only these are shared through Redis
	 * @param ticker the engines' monotonic clock
	 */
	public RedisProviderCooldown(RedisFleet fleet, Collection<String> providers, Ticker ticker) {
		this(fleet, uniform(providers), ticker);
	}

	/**
	 * Creates the cooldown and registers it with the fleet, each provider's probe lease {@link #DEFAULT_PROBE_LEASE};
	 * it does nothing until {@link #attach attached} to the engines' gates.
	 * @param fleet the fleet's link to Redis
	 * @param caps each configured provider's longest cooldown, by name: only these are shared through Redis
	 * @param ticker the engines' monotonic clock
	 */
	public RedisProviderCooldown(RedisFleet fleet, Map<String, Duration> caps, Ticker ticker) {
		this(fleet, caps, Map.of(), ticker);
	}

	/**
	 * Creates the cooldown and registers it with the fleet; it does nothing until {@link #attach attached} to the
	 * engines' gates.
	 * @param fleet the fleet's link to Redis
	 * @param caps each configured provider's longest cooldown, by name: only these are shared through Redis
	 * @param probeLeases how long, at most, the fleet's other instances wait for the answer of a provider's probe
	 * after its cooldown (its attempt timeout), by name; {@link #DEFAULT_PROBE_LEASE} for a provider not named
	 * @param ticker the engines' monotonic clock
	 */
	public RedisProviderCooldown(RedisFleet fleet, Map<String, Duration> caps, Map<String, Duration> probeLeases,
			Ticker ticker) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.instanceId = fleet.instanceId();
		Map<String, Entry> entries = new LinkedHashMap<>();
		caps.forEach((provider, cap) -> {
			if (cap.isNegative() || cap.isZero()) {
				throw new IllegalArgumentException("the cooldown cap of '" + provider + "' must be positive but was "
						+ cap);
			}
			Duration lease = probeLeases.getOrDefault(provider, DEFAULT_PROBE_LEASE);
			if (lease.isNegative() || lease.isZero()) {
				throw new IllegalArgumentException("the probe lease of '" + provider + "' must be positive but was "
						+ lease);
			}
			entries.put(provider, new Entry(provider, fleet.key("cooldown", provider), fleet.key("probe", provider),
					cap, lease, ticker.read()));
		});
		entries.values().forEach((entry) -> entry.arbiter = (gate) -> requestProbe(entry, gate));
		this.entries = Map.copyOf(entries);
		this.order = List.copyOf(entries.values());
		this.keys = this.order.stream().map((entry) -> entry.key).toArray(byte[][]::new);
		this.probeKeys = this.order.stream().map((entry) -> entry.probeKey).toArray(byte[][]::new);
		this.backlogKeys = this.order.stream().map((entry) -> fleet.key("backlog", entry.provider)).toArray(byte[][]::new);
		fleet.register(this);
	}

	/**
	 * Attaches the engines' gates and reads the fleet's cooldowns once, on the calling thread: it waits for the first
	 * connection at most {@link RedisFleetSettings#probeTimeout()} and for the read at most the command timeout. If
	 * Redis is not reachable by then, the fleet falls back (counted) and the gates start open, as they would without
	 * a fleet. Call it where the engines are created, on a thread that may block, before any request is sent.
	 */
	@Override
	public void attach(Function<String, Optional<FleetGate>> gates) {
		this.gates = Objects.requireNonNull(gates, "gates");
		if (this.keys.length == 0 || !this.fleet.mayBlock()) {
			return;
		}
		if (!this.fleet.awaitFirstProbe(this.fleet.settings().probeTimeout())) {
			if (this.fleet.state() == RedisFleet.State.CONNECTING) {
				this.fleet.fallBack(new TimeoutException("no connection to Redis within "
						+ this.fleet.settings().probeTimeout().toMillis() + " ms at startup"));
			}
			return;
		}
		readCooldowns();
	}

	/**
	 * Asks the background thread to push any gate closed since the last push, without waiting for the next flush.
	 * Never blocks.
	 */
	@Override
	public void publish() {
		if (this.fleet.onRedis() && this.publishing.compareAndSet(false, true)) {
			this.fleet.submit(() -> {
				this.publishing.set(false);
				pushClosedGates();
				endAnsweredProbes();
			});
		}
	}

	@Override
	public Duration remaining(String provider) {
		Entry entry = this.entries.get(provider);
		if (entry == null) {
			return Duration.ZERO;
		}
		return this.gates.apply(provider).map(FleetGate::cooldownRemaining).orElse(Duration.ZERO);
	}

	@Override
	public void reset(String provider) {
		Entry entry = this.entries.get(provider);
		if (entry == null) {
			return;
		}
		this.fleet.submit(() -> {
			this.fleet.execute(FleetScript.END_COOLDOWN, new byte[][] { entry.key });
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
		if (this.keys.length > 0) {
			readCooldowns();
			endAnsweredProbes();
			followProbes();
		}
		countBacklogs();
		int instances = this.fleet.instances();
		for (Entry entry : this.order) {
			this.gates.apply(entry.provider).ifPresent((gate) -> {
				int sharing = (entry.reported && entry.backlogged > 0) ? Math.min(entry.backlogged, instances) : instances;
				gate.share(1.0 / Math.max(1, sharing));
				gate.arbiter(entry.arbiter);
			});
		}
	}

	/**
	 * Reports which providers' gates hold a backlog on this instance, with the requests they hold and their rate, and
	 * reads the fleet's sums ({@link FleetScript#BACKLOGS}): a gate with a backlog paces for {@code 1 / (instances
	 * with a backlog)} of its provider, at the fleet's rate times its part of the fleet's backlog
	 * ({@link FleetGate#paceAt}), so the instances drain their backlogs together and those still draining take over
	 * the rate of those that are done. A gate counts as holding a backlog for half the window after its queue empties,
	 * so a queue that empties between two batches does not swing the others' shares. No round trip while no gate of
	 * this instance has a backlog or was reported with one.
	 */
	private void countBacklogs() {
		Duration window = backlogWindow();
		long now = this.ticker.read();
		byte[][] args = new byte[2 + this.order.size()][];
		args[0] = this.instanceId;
		args[1] = ascii(window.toMillis());
		int[] queued = new int[this.order.size()];
		boolean any = false;
		for (int i = 0; i < this.order.size(); i++) {
			Entry entry = this.order.get(i);
			Optional<FleetGate> gate = this.gates.apply(entry.provider);
			queued[i] = gate.map(FleetGate::queued).orElse(0);
			double rate = gate.map((g) -> g.rate().orElse(0)).orElse(0.0);
			if (queued[i] > 0) {
				entry.lastBacklog = now;
				entry.backlogSeen = true;
			}
			boolean backlog = entry.backlogSeen && now - entry.lastBacklog < window.toNanos() / 2;
			// only a gate holding requests now lends its rate to the fleet's sum
			String report = !backlog ? "" : (queued[i] > 0 && rate > 0)
					? queued[i] + " " + String.format(Locale.ROOT, "%.3f", rate) : "0 0";
			args[i + 2] = report.getBytes(StandardCharsets.US_ASCII);
			entry.reporting = backlog;
			any |= backlog || entry.reported;
		}
		if (!any) {
			return;
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.BACKLOGS, this.backlogKeys, args);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		for (int i = 0; i < this.order.size(); i++) {
			Entry entry = this.order.get(i);
			OptionalLong count = Replies.whole(reply.get(), 3 * i);
			OptionalLong fleetQueued = Replies.whole(reply.get(), 3 * i + 1);
			OptionalDouble fleetRate = Replies.decimal(reply.get(), 3 * i + 2);
			entry.reported = entry.reporting;
			boolean valid = count.isPresent() && fleetQueued.isPresent() && fleetRate.isPresent();
			entry.backlogged = valid ? (int) Math.min(Integer.MAX_VALUE, count.getAsLong()) : 0;
			if (!valid && entry.backlogBad.compareAndSet(false, true)) {
				this.fleet.keyFallBack(this.backlogKeys[i]);
			}
			else if (valid && entry.backlogBad.compareAndSet(true, false)) {
				this.fleet.keyValid(this.backlogKeys[i]);
			}
			if (valid && entry.reported && queued[i] > 0 && fleetQueued.getAsLong() > 0 && fleetRate.getAsDouble() > 0) {
				double part = Math.min(1.0, queued[i] / (double) fleetQueued.getAsLong());
				double rate = fleetRate.getAsDouble() * part;
				this.gates.apply(entry.provider).ifPresent((gate) -> gate.paceAt(rate, received));
			}
		}
	}

	/**
	 * How long an instance that went away counts as having a backlog after it last reported one: ten flush intervals,
	 * at least 250 ms.
	 */
	private Duration backlogWindow() {
		Duration ten = this.fleet.settings().flushInterval().multipliedBy(10);
		return (ten.compareTo(BACKLOG_WINDOW_FLOOR) < 0) ? BACKLOG_WINDOW_FLOOR : ten;
	}

	/**
	 * The {@link ProbeArbiter} of a configured provider's gate: on the background thread, claims the probe after the
	 * fleet's latest cooldown of the provider ({@link FleetScript#CLAIM_PROBE}); the first instance whose request is
	 * ready after the cooldown gets it and probes, the others follow its probe until its claim is removed on its
	 * answer or its lease (the provider's attempt timeout) ends. A cooldown the fleet never knew of, Redis away, or a
	 * key that is not the fleet's: this instance probes for itself.
	 */
	private void requestProbe(Entry entry, FleetGate gate) {
		this.fleet.submit(() -> {
			long until = entry.fleetUntil;
			if (!this.fleet.onRedis() || until == Long.MIN_VALUE) {
				gate.probeGranted();
				return;
			}
			Optional<List<Object>> reply = this.fleet.execute(FleetScript.CLAIM_PROBE, new byte[][] { entry.probeKey },
					this.instanceId, ascii(until), ascii(entry.leaseMicros / 1000));
			long received = this.ticker.read();
			Optional<String> owner = reply.flatMap((values) -> Replies.text(values, 0));
			OptionalLong claimed = reply.map((values) -> Replies.whole(values, 1)).orElse(OptionalLong.empty());
			OptionalLong redisNow = reply.map((values) -> Replies.whole(values, 2)).orElse(OptionalLong.empty());
			if (owner.isEmpty() || claimed.isEmpty() || redisNow.isEmpty()
					|| owner.get().equals(new String(this.instanceId, StandardCharsets.UTF_8))) {
				if (claimed.isPresent() && owner.isPresent()) {
					entry.owned = claimed.getAsLong();
				}
				gate.probeGranted();
				return;
			}
			long expires = received
					+ Math.min(claimed.getAsLong() - redisNow.getAsLong() + entry.leaseMicros, entry.capMicros + entry.leaseMicros) * 1000;
			if (owner.get().equals(FleetScript.ADMITTED)) {
				// that cooldown's probe has its answer already, and the provider admitted it: this gate opens
				admitted(entry, gate, claimed.getAsLong());
			}
			else if (gate.followProbe(expires)) {
				entry.following = claimed.getAsLong();
			}
		});
	}

	/** Removes the claims of probes this instance sent that have their answer, so the fleet's other instances go. */
	private void endAnsweredProbes() {
		for (Entry entry : this.order) {
			long owned = entry.owned;
			if (owned == Long.MIN_VALUE) {
				continue;
			}
			Optional<FleetGate> gate = this.gates.apply(entry.provider);
			if (gate.isEmpty() || (!gate.get().probePending() && gate.get().cooldownRemaining().isZero())) {
				// the gate is open after its probe: the provider admitted it, and the fleet's cooldown of that
				// instant is over for every instance
				entry.owned = Long.MIN_VALUE;
				this.fleet.execute(FleetScript.END_PROBE, new byte[][] { entry.probeKey, entry.key }, this.instanceId,
						ascii(owned), ascii(gate.isPresent() ? 1 : 0));
				entry.closedFor = Math.max(entry.closedFor, owned);
			}
		}
	}

	/**
	 * Lets the requests held behind another instance's probe go once its claim is gone: the probe has its answer. A
	 * claim that says the provider admitted the probe of the fleet's latest instant opens this instance's gate, whether
	 * it followed that probe or still holds the fleet's cooldown.
	 */
	private void followProbes() {
		boolean any = false;
		for (Entry entry : this.order) {
			any |= entry.following != Long.MIN_VALUE || coolingForTheFleet(entry);
		}
		if (!any) {
			return;
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_PROBES, this.probeKeys);
		if (reply.isEmpty()) {
			return;
		}
		for (int i = 0; i < this.order.size(); i++) {
			Entry entry = this.order.get(i);
			long following = entry.following;
			OptionalLong admitted = admittedInstant(Replies.text(reply.get(), i));
			if (admitted.isPresent() && (admitted.getAsLong() == following
					|| (following == Long.MIN_VALUE && admitted.getAsLong() == entry.fleetUntil))) {
				this.gates.apply(entry.provider).ifPresent((gate) -> admitted(entry, gate, admitted.getAsLong()));
				continue;
			}
			if (following == Long.MIN_VALUE) {
				continue;
			}
			OptionalLong standing = Replies.whole(reply.get(), i);
			if (standing.isEmpty() || standing.getAsLong() != following) {
				// answered (the owner removed its claim), expired, replaced by a later cooldown's, or not the fleet's
				entry.following = Long.MIN_VALUE;
				this.gates.apply(entry.provider).ifPresent(FleetGate::fleetProbeAnswered);
			}
		}
	}

	/** Whether {@code entry}'s gate holds a fleet cooldown whose probe's answer this instance has not heard yet. */
	private boolean coolingForTheFleet(Entry entry) {
		return entry.fleetUntil != Long.MIN_VALUE && entry.fleetUntil > entry.openedFor
				&& this.gates.apply(entry.provider).map((gate) -> !gate.cooldownRemaining().isZero()).orElse(false);
	}

	/**
	 * The provider admitted the fleet's probe after the cooldown instant {@code instant}: the gate opens, as after a
	 * probe of its own that succeeded (unless it learned of a later refusal meanwhile), and that instant never closes
	 * it again.
	 */
	private void admitted(Entry entry, FleetGate gate, long instant) {
		boolean following = entry.following != Long.MIN_VALUE;
		entry.following = Long.MIN_VALUE;
		entry.openedFor = Math.max(entry.openedFor, instant);
		entry.closedFor = Math.max(entry.closedFor, instant);
		if (instant < entry.fleetUntil) {
			// a later refusal reached the fleet since: its cooldown stands, and its own probe decides
			if (following) {
				gate.fleetProbeAnswered();
			}
			return;
		}
		// a gate that was not following joins the answered probe for a moment, so it opens as a follower does (a
		// refusal it learned while following keeps it closed)
		if (following || gate.followProbe(this.ticker.read() + 1)) {
			gate.fleetProbeAdmitted();
		}
	}

	/** The instant of an {@code admitted:<instant>} claim ({@link FleetScript#READ_PROBES}), empty for any other. */
	private static OptionalLong admittedInstant(Optional<String> claim) {
		if (claim.isEmpty() || !claim.get().startsWith(ADMITTED_PREFIX)) {
			return OptionalLong.empty();
		}
		try {
			return OptionalLong.of(Long.parseLong(claim.get().substring(ADMITTED_PREFIX.length())));
		}
		catch (NumberFormatException ex) {
			return OptionalLong.empty();
		}
	}

	@Override
	public void onFallback() {
		// each gate carries on as this instance's own cooldown
	}

	@Override
	public void onRejoin() {
		// what this instance learned while Redis was away becomes the fleet's
		pushClosedGates();
	}

	private void readCooldowns() {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_COOLDOWNS, this.keys);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		List<Object> values = reply.get();
		OptionalLong redisNow = Replies.whole(values, 0);
		for (int i = 0; i < this.order.size(); i++) {
			Entry entry = this.order.get(i);
			Optional<String> value = Replies.text(values, i + 1);
			if (redisNow.isPresent() && value.isPresent() && value.get().isEmpty()) {
				valid(entry);
				continue;
			}
			OptionalLong until = Replies.whole(values, i + 1);
			if (redisNow.isEmpty() || until.isEmpty()) {
				invalid(entry);
				continue;
			}
			valid(entry);
			learn(entry, redisNow.getAsLong(), until.getAsLong(), received);
		}
	}

	private void pushClosedGates() {
		for (Entry entry : this.order) {
			Optional<FleetGate> gate = this.gates.apply(entry.provider);
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

	private void push(Entry entry, long until) {
		long remaining = until - this.ticker.read();
		if (remaining <= 0) {
			return;
		}
		long floorMicros = (remaining + 999) / 1000;
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.EXTEND_COOLDOWN, new byte[][] { entry.key },
				ascii(floorMicros), EXPIRY_MARGIN_MILLIS, ascii(entry.capMicros));
		if (reply.isEmpty()) {
			return;
		}
		// pushed or not, this instant is not pushed again: a key that is not valid is read back every flush
		entry.raise(until);
		OptionalLong redisNow = Replies.whole(reply.get(), 0);
		OptionalLong stored = Replies.whole(reply.get(), 1);
		if (redisNow.isEmpty() || stored.isEmpty()) {
			invalid(entry);
			return;
		}
		valid(entry);
		long received = this.ticker.read();
		learn(entry, redisNow.getAsLong(), stored.getAsLong(), received);
	}

	/**
	 * Converts the fleet's instant to this instance's clock (never earlier than the fleet's: Redis answered before
	 * {@code received}), cut to the provider's cap, and closes the gate until then, unless this instance already
	 * knew of a later one. The instant is kept cut too, so a value beyond the cap closes the gate once, for the cap,
	 * and a later genuine cooldown still closes it.
	 */
	private void learn(Entry entry, long redisNowMicros, long untilMicros, long received) {
		if (untilMicros == entry.cutFrom) {
			// the instant beyond the cap that was cut already, read again: it changes nothing (cut anew against a later
			// now, it would keep the gate closed for as long as the key holds it)
			return;
		}
		// kept as Redis's now plus the cap at most: kept whole, an instant beyond the cap would outrank, and so hide,
		// every genuine cooldown after it for the life of the process
		long bounded = Math.min(untilMicros,
				(redisNowMicros > Long.MAX_VALUE - entry.capMicros) ? Long.MAX_VALUE : redisNowMicros + entry.capMicros);
		long remainingMicros = bounded - redisNowMicros;
		if (remainingMicros <= 0) {
			return;
		}
		if (bounded < untilMicros) {
			entry.cutFrom = untilMicros;
		}
		entry.fleetUntil = Math.max(entry.fleetUntil, bounded);
		if (bounded <= entry.closedFor) {
			// this fleet instant closed the gate already (or a probe since opened it): read again, it changes nothing,
			// whatever the round trip's jitter makes of it on this clock
			return;
		}
		long instant = received + remainingMicros * 1000;
		if (instant - entry.known.get() > 0) {
			this.gates.apply(entry.provider).ifPresent((gate) -> {
				gate.closeUntil(instant);
				if (gate.rate().isEmpty()) {
					// the provider throttled the fleet: this gate paces after the cooldown as the throttled gates do,
					// instead of sending its whole backlog the instant it opens
					long now = this.ticker.read();
					gate.onThrottle(now, now);
				}
				entry.raise(gate.cooldownUntilNanos());
				entry.closedFor = bounded;
			});
		}
	}

	private void invalid(Entry entry) {
		if (entry.bad.compareAndSet(false, true)) {
			this.fleet.keyFallBack(entry.key);
		}
	}

	private void valid(Entry entry) {
		if (entry.bad.compareAndSet(true, false)) {
			this.fleet.keyValid(entry.key);
		}
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static Map<String, Duration> uniform(Collection<String> providers) {
		Map<String, Duration> caps = new LinkedHashMap<>();
		providers.forEach((provider) -> caps.put(provider, DEFAULT_CAP));
		return caps;
	}

	/**
	 * One configured provider: its key, its cap, whether its key holds a value that is not the fleet's, and the
	 * latest cooldown instant already exchanged with the fleet, so a gate is pushed only when it closed until later
	 * than that.
	 */
	private static final class Entry {

		private final String provider;

		private final byte[] key;

		private final byte[] probeKey;

		private final long capMicros;

		private final long leaseMicros;

		// the latest fleet cooldown instant learned (Redis microseconds), and the instant whose probe this instance
		// owns or follows (Long.MIN_VALUE none); written on the fleet's thread (and at attach, before it runs)
		private volatile long fleetUntil = Long.MIN_VALUE;

		private volatile long owned = Long.MIN_VALUE;

		private volatile long following = Long.MIN_VALUE;

		// the latest fleet instant that closed the gate, and the latest whose probe the provider admitted (Redis
		// microseconds); written on the fleet's thread
		private volatile long closedFor = Long.MIN_VALUE;

		private volatile long openedFor = Long.MIN_VALUE;

		// the last fleet instant read beyond the cap, as read (Redis microseconds; Long.MIN_VALUE none): kept only to
		// recognise it when it is read again; written on the fleet's thread (and at attach, before it runs)
		private volatile long cutFrom = Long.MIN_VALUE;

		private ProbeArbiter arbiter;

		// whether the last report named this instance with a backlog, and how many of the fleet's instances had one;
		// written and read on the fleet's thread
		private boolean reported;

		private int backlogged;

		// whether this sync reports this instance with a backlog; the fleet's thread only
		private boolean reporting;

		// when this instance's gate last held a backlog (on the ticker), if ever; the fleet's thread only
		private long lastBacklog;

		private boolean backlogSeen;

		private final AtomicBoolean backlogBad = new AtomicBoolean();

		private final AtomicBoolean bad = new AtomicBoolean();

		private final AtomicLong known;

		Entry(String provider, byte[] key, byte[] probeKey, Duration cap, Duration lease, long now) {
			this.provider = provider;
			this.key = key;
			this.probeKey = probeKey;
			this.capMicros = Math.max(1, cap.toNanos() / 1000);
			this.leaseMicros = Math.max(1, lease.toNanos() / 1000);
			this.known = new AtomicLong(now);
		}

		void raise(long instant) {
			this.known.accumulateAndGet(instant, (current, wanted) -> (wanted - current > 0) ? wanted : current);
		}

	}

}
