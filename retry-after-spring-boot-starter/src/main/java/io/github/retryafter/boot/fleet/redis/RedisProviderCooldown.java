package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.fleet.FleetCooldown;
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
 * fleet's; the gate then closes until it ({@link ProviderGate#closeUntil}), which never shortens either.
 * <p>
 * <b>No request waits on Redis.</b> Everything runs on the fleet's background thread: a gate closed on this
 * instance is pushed as soon as an engine reports a retry or a refusal ({@link #publish}) and at every flush interval
 * at the latest; every configured provider's cooldown is read back every flush interval ({@link
 * FleetScript#READ_COOLDOWNS}): a poll, not pub/sub, so a cooldown reaches the other instances within one flush
 * interval plus two round trips. While the fleet is not on Redis each gate is this instance's own, and cooldowns
 * learned meanwhile are pushed when Redis is back. A key expires one second after its instant.
 * <p>
 * Thread-safe.
 */
public final class RedisProviderCooldown implements FleetCooldown, RedisFleet.Participant {

	private static final byte[] EXPIRY_MARGIN_MILLIS = "1000".getBytes(StandardCharsets.US_ASCII);

	private final RedisFleet fleet;

	private final Ticker ticker;

	private final Map<String, Entry> entries;

	private final List<Entry> order;

	private final byte[][] keys;

	private final AtomicBoolean publishing = new AtomicBoolean();

	private volatile Function<String, Optional<ProviderGate>> gates = (provider) -> Optional.empty();

	/**
	 * Creates the cooldown and registers it with the fleet; it does nothing until {@link #attach attached} to the
	 * engines' gates.
	 * @param fleet the fleet's link to Redis
	 * @param providers the configured providers' names: only these are shared through Redis
	 * @param ticker the engines' monotonic clock
	 */
	public RedisProviderCooldown(RedisFleet fleet, Collection<String> providers, Ticker ticker) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		Map<String, Entry> entries = new LinkedHashMap<>();
		for (String provider : providers) {
			entries.put(provider, new Entry(provider, fleet.key("cooldown", provider), ticker.read()));
		}
		this.entries = Map.copyOf(entries);
		this.order = List.copyOf(entries.values());
		this.keys = this.order.stream().map((entry) -> entry.key).toArray(byte[][]::new);
		fleet.register(this);
	}

	@Override
	public void attach(Function<String, Optional<ProviderGate>> gates) {
		this.gates = Objects.requireNonNull(gates, "gates");
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
			});
		}
	}

	@Override
	public Duration remaining(String provider) {
		Entry entry = this.entries.get(provider);
		if (entry == null) {
			return Duration.ZERO;
		}
		return this.gates.apply(provider).map(ProviderGate::cooldownRemaining).orElse(Duration.ZERO);
	}

	@Override
	public void sync() {
		pushClosedGates();
		if (this.keys.length == 0) {
			return;
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_COOLDOWNS, this.keys);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		List<Object> values = reply.get();
		long redisNow = number(values.get(0));
		for (int i = 0; i < this.order.size(); i++) {
			String value = text(values.get(i + 1));
			if (!value.isEmpty()) {
				learn(this.order.get(i), redisNow, Long.parseLong(value), received);
			}
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

	private void pushClosedGates() {
		for (Entry entry : this.order) {
			Optional<ProviderGate> gate = this.gates.apply(entry.provider);
			if (gate.isEmpty()) {
				continue;
			}
			long until = gate.get().cooldownUntilNanos();
			long remaining = until - this.ticker.read();
			if (remaining > 0 && until - entry.known.get() > 0) {
				push(entry, gate.get(), until);
			}
		}
	}

	private void push(Entry entry, ProviderGate gate, long until) {
		long remaining = until - this.ticker.read();
		if (remaining <= 0) {
			return;
		}
		long floorMicros = (remaining + 999) / 1000;
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.EXTEND_COOLDOWN, new byte[][] { entry.key },
				Long.toString(floorMicros).getBytes(StandardCharsets.US_ASCII), EXPIRY_MARGIN_MILLIS);
		if (reply.isPresent()) {
			entry.raise(until);
			learn(entry, number(reply.get().get(0)), number(reply.get().get(1)), this.ticker.read());
		}
	}

	/**
	 * Converts the fleet's instant to this instance's clock (never earlier than the fleet's: Redis answered before
	 * {@code received}) and closes the gate until then, unless this instance already knew of a later one.
	 */
	private void learn(Entry entry, long redisNowMicros, long untilMicros, long received) {
		long remainingMicros = untilMicros - redisNowMicros;
		if (remainingMicros <= 0) {
			return;
		}
		long instant = received + remainingMicros * 1000;
		if (instant - entry.known.get() > 0) {
			this.gates.apply(entry.provider).ifPresent((gate) -> {
				gate.closeUntil(instant);
				entry.raise(gate.cooldownUntilNanos());
			});
		}
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(value);
	}

	private static long number(Object value) {
		return Long.parseLong(text(value));
	}

	/**
	 * One configured provider: its key, and the latest cooldown instant already exchanged with the fleet, so a gate
	 * is pushed only when it closed until later than that.
	 */
	private static final class Entry {

		private final String provider;

		private final byte[] key;

		private final AtomicLong known;

		Entry(String provider, byte[] key, long now) {
			this.provider = provider;
			this.key = key;
			this.known = new AtomicLong(now);
		}

		void raise(long instant) {
			this.known.accumulateAndGet(instant, (current, wanted) -> (wanted - current > 0) ? wanted : current);
		}

	}

}
