package io.github.retryafter.boot.fleet;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderCooldown;

/**
 * A {@link ProviderCooldown} shared by a fleet through Redis, on Redis's clock. A cooldown is an instant: it is stored
 * as {@code max(existing, redisNow + floor)} by a script that reads Redis's {@code TIME} ({@link
 * FleetScript#EXTEND_COOLDOWN}), so it is never shortened and no instance's wall clock enters it. On the way out it is
 * converted to this instance's monotonic clock: {@code ticker + (until - redisNow)}, read when the reply arrives, so
 * the local instant is never earlier than the fleet's.
 * <p>
 * No request waits on Redis for it. {@link #until} answers from memory. {@link #extend} raises the local cooldown at
 * once and sends the extension from the fleet's background thread; the other instances read every configured
 * provider's cooldown on that thread every flush interval ({@link FleetScript#READ_COOLDOWNS}: a poll, not pub/sub), so
 * a cooldown reaches them within one flush interval plus a round trip. While the fleet is not on Redis the cooldown is
 * this instance's own; cooldowns learned meanwhile are pushed to Redis when it is back. A key expires one second after
 * its cooldown ends.
 * <p>
 * Thread-safe and lock-free.
 */
public final class RedisProviderCooldown implements ProviderCooldown, RedisFleet.Participant {

	private static final byte[] EXPIRY_MARGIN_MILLIS = "1000".getBytes(StandardCharsets.US_ASCII);

	private final RedisFleet fleet;

	private final Ticker ticker;

	private final Map<String, Entry> configured;

	private final List<Entry> order;

	private final byte[][] keys;

	private final Map<String, AtomicLong> unconfigured = new ConcurrentHashMap<>();

	/**
	 * Creates the cooldown and registers it with the fleet.
	 * @param fleet the fleet's link to Redis
	 * @param providers the configured providers' names: only these are shared through Redis
	 * @param ticker the engines' monotonic clock
	 */
	public RedisProviderCooldown(RedisFleet fleet, Collection<String> providers, Ticker ticker) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		Map<String, Entry> entries = new LinkedHashMap<>();
		for (String provider : providers) {
			entries.put(provider, new Entry(fleet.key("cooldown", provider), ticker.read()));
		}
		this.configured = Map.copyOf(entries);
		this.order = List.copyOf(entries.values());
		this.keys = this.order.stream().map((entry) -> entry.key).toArray(byte[][]::new);
		fleet.register(this);
	}

	@Override
	public void extend(String provider, Duration floor) {
		Objects.requireNonNull(provider, "provider");
		if (floor.isNegative() || floor.isZero()) {
			return;
		}
		long instant = this.ticker.read() + floor.toNanos();
		Entry entry = this.configured.get(provider);
		if (entry == null) {
			// never a key for a name that did not come from configuration
			this.unconfigured.computeIfAbsent(provider, (name) -> new AtomicLong(this.ticker.read()))
				.accumulateAndGet(instant, Math::max);
			return;
		}
		entry.raise(instant);
		if (this.fleet.onRedis()) {
			this.fleet.submit(() -> push(entry, instant));
		}
	}

	@Override
	public OptionalLong until(String provider) {
		Entry entry = this.configured.get(provider);
		long until;
		if (entry != null) {
			if (!entry.ever) {
				return OptionalLong.empty();
			}
			until = entry.until.get();
		}
		else {
			AtomicLong local = this.unconfigured.get(provider);
			if (local == null) {
				return OptionalLong.empty();
			}
			until = local.get();
		}
		return (until - this.ticker.read() > 0) ? OptionalLong.of(until) : OptionalLong.empty();
	}

	/**
	 * Returns how long {@code provider} is still cooling down, on this instance's clock.
	 * @param provider the provider
	 * @return the time left, zero when it is not cooling down
	 */
	public Duration remaining(String provider) {
		OptionalLong until = until(provider);
		return until.isPresent() ? Duration.ofNanos(Math.max(0, until.getAsLong() - this.ticker.read())) : Duration.ZERO;
	}

	@Override
	public void sync() {
		if (this.keys.length == 0) {
			return;
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.READ_COOLDOWNS, this.keys);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		List<Object> values = reply.get();
		long redisNow = micros(values.get(0));
		for (int i = 0; i < this.order.size(); i++) {
			String value = text(values.get(i + 1));
			if (!value.isEmpty()) {
				learn(this.order.get(i), redisNow, Long.parseLong(value), received);
			}
		}
	}

	@Override
	public void onFallback() {
		// the local cooldowns carry on as they are
	}

	@Override
	public void onRejoin() {
		List<Entry> cooling = new ArrayList<>();
		long now = this.ticker.read();
		for (Entry entry : this.order) {
			if (entry.ever && entry.until.get() - now > 0) {
				cooling.add(entry);
			}
		}
		// what this instance learned while Redis was away becomes the fleet's
		for (Entry entry : cooling) {
			push(entry, entry.until.get());
		}
	}

	private void push(Entry entry, long instant) {
		long remaining = instant - this.ticker.read();
		if (remaining <= 0) {
			return;
		}
		long floorMicros = (remaining + 999) / 1000;
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.EXTEND_COOLDOWN, new byte[][] { entry.key },
				Long.toString(floorMicros).getBytes(StandardCharsets.US_ASCII), EXPIRY_MARGIN_MILLIS);
		if (reply.isPresent()) {
			long received = this.ticker.read();
			learn(entry, micros(reply.get().get(0)), micros(reply.get().get(1)), received);
		}
	}

	/** Converts the fleet's instant to this instance's clock: never earlier than the fleet's, since Redis answered before {@code received}. */
	private static void learn(Entry entry, long redisNowMicros, long untilMicros, long received) {
		long remainingMicros = untilMicros - redisNowMicros;
		if (remainingMicros > 0) {
			entry.raise(received + remainingMicros * 1000);
		}
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(value);
	}

	private static long micros(Object value) {
		return Long.parseLong(text(value));
	}

	/** One configured provider's key and local instant. */
	private static final class Entry {

		private final byte[] key;

		private final AtomicLong until;

		private volatile boolean ever;

		Entry(byte[] key, long now) {
			this.key = key;
			this.until = new AtomicLong(now);
		}

		void raise(long instant) {
			this.until.accumulateAndGet(instant, (current, wanted) -> (wanted - current > 0) ? wanted : current);
			this.ever = true;
		}

	}

}
