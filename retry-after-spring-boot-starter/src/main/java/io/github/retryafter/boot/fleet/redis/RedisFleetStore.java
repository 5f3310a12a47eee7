package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Supplier;

import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetRuntime;
import io.github.retryafter.fleet.FleetStore;

/**
 * The fleet's store on Redis: each {@link FleetStore} operation is one Lua script ({@link FleetScript}) run atomically
 * on Redis's clock through the {@link RedisFleet}'s connection, its reply read defensively ({@link Replies}). Keys are
 * <code>{prefix}:budget:&lt;bucket&gt;</code>, and per provider <code>{prefix}:leases:</code>, <code>cooldown:</code>,
 * <code>probe:</code> and <code>backlog:&lt;provider&gt;</code>. Only I/O here: the algorithms are
 * {@link io.github.retryafter.fleet.FleetRetryBudget}'s and {@link io.github.retryafter.fleet.SharedCooldown}'s, the
 * fallback, rejoin and members' count the link's {@link FleetRuntime}'s. A
 * cooldown moved later is also published on <code>{prefix}:cooldowns</code>, which a store built with a subscriber
 * listens to ({@link CooldownChannel}). Thread-safe.
 */
public final class RedisFleetStore implements FleetStore, AutoCloseable {

	private final RedisFleet fleet;

	private static final String ADMITTED_PREFIX = "admitted:";

	private static final byte[] EXPIRY_MARGIN_MILLIS = number(1000L);

	private final byte[] ttlMillis;

	// the announcements this instance hears; null when it does not subscribe
	private final CooldownChannel channel;

	private final byte[] channelArgument;

	/**
	 * Creates the store over the fleet's link, without a subscription: it announces the cooldowns it extends to the
	 * other instances, but learns theirs by the poll every flush interval only.
	 * @param fleet the connection, its background thread and its state
	 */
	public RedisFleetStore(RedisFleet fleet) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ttlMillis = number(fleet.settings().keyTtl().toMillis());
		this.channel = null;
		this.channelArgument = CooldownChannel.name(fleet.settings().keyPrefix()).getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Creates the store over the fleet's link, subscribed to the fleet's cooldown announcements
	 * (<code>{prefix}:cooldowns</code>) on a pub/sub connection of its own, opened on a thread of its own once Redis
	 * answers, so the fleet's thread never waits for it (see {@link #onCooldown}).
	 * @param fleet the connection, its background thread and its state
	 * @param subscriber opens a new pub/sub connection to the same Redis; called on a thread of its own, allowed to
	 * block and to throw (the store then learns by the poll, and tries again every probe interval)
	 */
	public RedisFleetStore(RedisFleet fleet, Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> subscriber) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ttlMillis = number(fleet.settings().keyTtl().toMillis());
		this.channel = new CooldownChannel(fleet, subscriber);
		this.channelArgument = this.channel.channel();
		fleet.runtime().register(this.channel);
		// on Redis already (its first probe was quicker than this constructor): subscribe now, not at the next sync
		fleet.runtime().submit(this.channel::sync);
	}

	/**
	 * Returns the fleet's link.
	 * @return the link
	 */
	public RedisFleet fleet() {
		return this.fleet;
	}

	/** The fleet link's runtime: Redis's fallback and rejoin, the members' count, the background thread. */
	@Override
	public FleetRuntime runtime() {
		return this.fleet.runtime();
	}

	/**
	 * Registers a listener told of each cooldown another instance extends, as Redis publishes it (on Lettuce's event
	 * loop); nothing when this store does not subscribe.
	 */
	@Override
	public void onCooldown(CooldownListener listener) {
		if (this.channel != null) {
			this.channel.listen(listener);
		}
	}

	/**
	 * Returns whether Redis has confirmed this store's subscription to the fleet's cooldown announcements.
	 * @return {@code false} before it has, and always when the store does not subscribe
	 */
	public boolean subscribed() {
		return this.channel != null && this.channel.subscribed();
	}

	/** The subscription, empty when this store does not subscribe. */
	Optional<CooldownChannel> channel() {
		return Optional.ofNullable(this.channel);
	}

	/**
	 * Closes the subscription's connection, if any (the fleet's link is closed on its own). Idempotent.
	 */
	@Override
	public void close() {
		if (this.channel != null) {
			this.channel.close();
		}
	}

	@Override
	public Optional<Acquired> acquire(FleetBucket provider, FleetBucket global) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.ACQUIRE,
				new byte[][] { budgetKey(provider), budgetKey(global) }, this.ttlMillis,
				number(provider.settings().capacity()), number(provider.settings().refillPerSecond()),
				number(global.settings().capacity()), number(global.settings().refillPerSecond()));
		return reply.map((values) -> new Acquired(Replies.text(values, 0).filter("1"::equals).isPresent(),
				Replies.decimal(values, 1), Replies.decimal(values, 2)));
	}

	@Override
	public Optional<List<OptionalDouble>> deposit(List<Deposit> deposits) {
		byte[][] keys = new byte[deposits.size()][];
		List<byte[]> args = new ArrayList<>(1 + 3 * deposits.size());
		args.add(this.ttlMillis);
		for (int i = 0; i < deposits.size(); i++) {
			BudgetSettings settings = deposits.get(i).bucket().settings();
			keys[i] = budgetKey(deposits.get(i).bucket());
			args.add(number(settings.capacity()));
			args.add(number(settings.refillPerSecond()));
			args.add(number(deposits.get(i).amount()));
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.SYNC, keys, args.toArray(new byte[0][]));
		return reply.map((values) -> {
			List<OptionalDouble> levels = new ArrayList<>(deposits.size());
			for (int i = 0; i < deposits.size(); i++) {
				levels.add(Replies.decimal(values, i));
			}
			return levels;
		});
	}

	@Override
	public Optional<Lease> lease(FleetBucket provider, FleetBucket global, long give, long want, long held) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.LEASE,
				new byte[][] { budgetKey(provider), budgetKey(global), this.fleet.key("leases", provider.keyName()),
						this.fleet.membersKey() },
				this.ttlMillis, number(provider.settings().capacity()), number(provider.settings().refillPerSecond()),
				number(global.settings().capacity()), number(global.settings().refillPerSecond()), number(give),
				number(want), this.fleet.instanceId(), number(held));
		// a grant or a count that is not a whole number, negative or NaN reads as 0
		return reply.map((values) -> new Lease(Replies.whole(values, 0).orElse(0), Replies.decimal(values, 1),
				Replies.decimal(values, 2), Replies.whole(values, 3).orElse(0)));
	}

	@Override
	public Optional<Cooldown> extendCooldown(String provider, Duration remaining, Duration cap) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.EXTEND_COOLDOWN,
				new byte[][] { this.fleet.key("cooldown", provider) }, number((remaining.toNanos() + 999) / 1000),
				EXPIRY_MARGIN_MILLIS, number(Math.max(1, cap.toNanos() / 1000)), this.fleet.instanceId(),
				this.channelArgument, provider.getBytes(StandardCharsets.UTF_8));
		return reply.map((values) -> cooldown(values, 0, 1));
	}

	@Override
	public Optional<List<Cooldown>> readCooldowns(List<String> providers) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_COOLDOWNS, keys("cooldown", providers));
		return reply.map((values) -> {
			List<Cooldown> cooldowns = new ArrayList<>(providers.size());
			for (int i = 0; i < providers.size(); i++) {
				cooldowns.add(cooldown(values, 0, i + 1));
			}
			return cooldowns;
		});
	}

	/** A cooldown read at {@code index}: '' is none, a whole number an instant, anything else not the fleet's. */
	private static Cooldown cooldown(List<Object> values, int nowIndex, int index) {
		OptionalLong now = Replies.whole(values, nowIndex);
		if (now.isEmpty()) {
			return new Cooldown(0, OptionalLong.empty());
		}
		if (Replies.text(values, index).filter(String::isEmpty).isPresent()) {
			return new Cooldown(now.getAsLong(), OptionalLong.of(0));
		}
		return new Cooldown(now.getAsLong(), Replies.whole(values, index));
	}

	@Override
	public void endCooldown(String provider) {
		this.fleet.execute(FleetScript.END_COOLDOWN, new byte[][] { this.fleet.key("cooldown", provider) });
	}

	@Override
	public Optional<ProbeClaim> claimProbe(String provider, long instant, Duration lease) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.CLAIM_PROBE,
				new byte[][] { this.fleet.key("probe", provider), this.fleet.key("cooldown", provider) },
				this.fleet.instanceId(), number(instant),
				number(Math.max(1, lease.toNanos() / 1000) / 1000));
		return reply.map((values) -> {
			Optional<String> owner = Replies.text(values, 0);
			OptionalLong claimed = Replies.whole(values, 1);
			OptionalLong now = Replies.whole(values, 2);
			if (owner.isEmpty() || claimed.isEmpty() || now.isEmpty()) {
				return new ProbeClaim(Claimant.INVALID, 0, 0);
			}
			Claimant claimant = owner.get().equals(new String(this.fleet.instanceId(), StandardCharsets.UTF_8))
					? Claimant.THIS_INSTANCE
					: owner.get().equals(FleetScript.ADMITTED) ? Claimant.ADMITTED : Claimant.ANOTHER_INSTANCE;
			return new ProbeClaim(claimant, claimed.getAsLong(), now.getAsLong());
		});
	}

	@Override
	public Optional<List<ProbeState>> readProbes(List<String> providers) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_PROBES, keys("probe", providers));
		return reply.map((values) -> {
			List<ProbeState> claims = new ArrayList<>(providers.size());
			for (int i = 0; i < providers.size(); i++) {
				claims.add(probe(Replies.text(values, i)));
			}
			return claims;
		});
	}

	/** A claim as {@link FleetScript#READ_PROBES} answers it: an instant, {@code admitted:<instant>}, or none. */
	private static ProbeState probe(Optional<String> claim) {
		if (claim.isEmpty()) {
			return ProbeState.NONE;
		}
		boolean admitted = claim.get().startsWith(ADMITTED_PREFIX);
		try {
			long instant = Long.parseLong(admitted ? claim.get().substring(ADMITTED_PREFIX.length()) : claim.get());
			return (instant == 0) ? ProbeState.NONE : new ProbeState(instant, admitted);
		}
		catch (NumberFormatException ex) {
			return ProbeState.NONE;
		}
	}

	@Override
	public void endProbe(String provider, long instant, boolean admitted) {
		this.fleet.execute(FleetScript.END_PROBE,
				new byte[][] { this.fleet.key("probe", provider), this.fleet.key("cooldown", provider) },
				this.fleet.instanceId(), number(instant), number(admitted ? 1L : 0L));
	}

	@Override
	public Optional<List<Optional<Backlogs>>> reportBacklogs(Duration window, List<BacklogReport> reports) {
		byte[][] args = new byte[2 + reports.size()][];
		args[0] = this.fleet.instanceId();
		args[1] = number(window.toMillis());
		List<String> providers = new ArrayList<>(reports.size());
		for (int i = 0; i < reports.size(); i++) {
			BacklogReport report = reports.get(i);
			providers.add(report.provider());
			String field = !report.backlog() ? ""
					: report.queued() + " " + String.format(Locale.ROOT, "%.3f", report.rate());
			args[i + 2] = field.getBytes(StandardCharsets.US_ASCII);
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.BACKLOGS, keys("backlog", providers), args);
		return reply.map((values) -> {
			List<Optional<Backlogs>> sums = new ArrayList<>(reports.size());
			for (int i = 0; i < reports.size(); i++) {
				OptionalLong count = Replies.whole(values, 3 * i);
				OptionalLong queued = Replies.whole(values, 3 * i + 1);
				OptionalDouble rate = Replies.decimal(values, 3 * i + 2);
				sums.add((count.isPresent() && queued.isPresent() && rate.isPresent())
						? Optional.of(new Backlogs(count.getAsLong(), queued.getAsLong(), rate.getAsDouble()))
						: Optional.empty());
			}
			return sums;
		});
	}

	private byte[][] keys(String kind, List<String> providers) {
		return providers.stream().map((provider) -> this.fleet.key(kind, provider)).toArray(byte[][]::new);
	}

	private byte[] budgetKey(FleetBucket bucket) {
		return this.fleet.key("budget", bucket.keyName());
	}

	private static byte[] number(double value) {
		return Double.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public String toString() {
		return "RedisFleetStore[prefix=" + this.fleet.settings().keyPrefix() + ", state=" + this.fleet.state() + "]";
	}

}
