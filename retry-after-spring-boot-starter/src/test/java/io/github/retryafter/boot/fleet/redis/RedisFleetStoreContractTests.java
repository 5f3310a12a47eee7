package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.test.fleet.FleetStoreContract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store contract on a real {@code redis-server}: the Lua scripts keep every promise the in-memory store keeps.
 */
class RedisFleetStoreContractTests extends FleetStoreContract {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "contract-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	private final Map<FleetStore, RedisFleet> links = new IdentityHashMap<>();

	@AfterEach
	void shutDown() {
		this.links.keySet().forEach((store) -> ((RedisFleetStore) store).close());
		this.links.values().forEach(RedisFleet::close);
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Override
	protected FleetStore join(String instanceId) {
		var connection = this.client.connect(ByteArrayCodec.INSTANCE);
		// a fallback rejoins at the first good probe (the flush interval's tick runs the probes)
		RedisFleet fleet = new RedisFleet(connection::async, new RedisFleetSettings(this.prefix, Duration.ofSeconds(1),
				Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofHours(1), 1), instanceId);
		await().atMost(Duration.ofSeconds(5)).until(fleet::onRedis);
		RedisFleetStore store = new RedisFleetStore(fleet, () -> this.client.connectPubSub(ByteArrayCodec.INSTANCE));
		// subscribed before the test extends anything: a message published before would be lost (the poll covers it)
		await().atMost(Duration.ofSeconds(5)).until(store::subscribed);
		this.links.put(store, fleet);
		return store;
	}

	@Override
	protected void corrupt(FleetBucket bucket) {
		command("SET", "{" + this.prefix + "}:budget:" + bucket.keyName(), "not the fleet's");
	}

	@Override
	protected void corrupt(FleetStore.ProviderKey key, String provider) {
		command("SET", "{" + this.prefix + "}:" + key.name().toLowerCase(java.util.Locale.ROOT) + ":" + provider,
				"not the fleet's");
	}

	@Override
	protected void settle(FleetStore... members) {
		// the fleet's thread runs the tasks at once and syncs every flush interval by itself
	}

	@Override
	protected void deliver(FleetStore... members) {
		// Redis publishes at once and the subscriptions hand over on the fleets' threads by themselves
	}

	@Override
	protected void elapse(Duration duration) {
		LockSupport.parkNanos(duration.toNanos());
	}

	@Override
	protected void leave(FleetStore member) {
		// no more heartbeats, then no longer among the members
		this.links.get(member).close();
		command("ZREM", "{" + this.prefix + "}:members:instances", idOf(member));
	}

	@Override
	protected void fallBackAndRejoin(FleetStore member, Runnable whileAway) {
		RedisFleet fleet = this.links.get(member);
		fleet.fallBack(new IllegalStateException("contract test"));
		whileAway.run();
		await().atMost(Duration.ofSeconds(5)).until(fleet::onRedis);
		// the rejoin's sync runs on the fleet's thread right after the state switches: a task queued now runs after it
		CountDownLatch synced = new CountDownLatch(1);
		member.runtime().submit(synced::countDown);
		try {
			assertThat(synced.await(5, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private String idOf(FleetStore member) {
		return new String(this.links.get(member).instanceId(), StandardCharsets.UTF_8);
	}

	private static void command(String... args) {
		try {
			redis.command(args);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
