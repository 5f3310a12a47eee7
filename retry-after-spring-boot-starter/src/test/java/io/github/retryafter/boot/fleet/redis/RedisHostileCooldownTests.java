package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fleet's cooldown on a real Redis against a lying message and a clock that steps back, as a hostile (or
 * misconfigured) peer makes them: a message on {@code {prefix}:cooldowns} whose "store now" is far ahead of Redis's
 * {@code TIME} closes the gates for the cap, and afterwards a genuine cooldown still closes every instance's gate, and
 * its probe claim is never the hostile instant's; a store whose clock ran ahead and stepped back (Redis's own cannot, so
 * the peer announces from the clock that ran ahead) never stops the next genuine cooldown from reaching the fleet.
 */
class RedisHostileCooldownTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	/** How soon an announced cooldown closes another instance's gate, with a wide margin. */
	private static final Duration CROSSING = Duration.ofMillis(400);

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "hostile-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aGenuineCooldownAfterAMessageWhoseStoreNowIsFarAheadOfRedisStillClosesEveryGate() throws IOException {
		Instance a = new Instance(Duration.ofSeconds(1));
		Instance b = new Instance(Duration.ofSeconds(1));
		publishFarAhead();
		await().atMost(CROSSING)
			.until(() -> b.remaining().compareTo(Duration.ofMillis(500)) > 0
					&& a.remaining().compareTo(Duration.ofMillis(500)) > 0);
		// closed for the cap (1 s), as documented, and no longer
		await().atMost(Duration.ofMillis(1500)).until(() -> a.remaining().isZero() && b.remaining().isZero());
		// a genuine cooldown: closed on a, it closes b's gate as soon as Redis announces it
		long closed = System.nanoTime();
		a.gate.closeUntil(closed + Duration.ofMillis(900).toNanos());
		a.cooldown.publish();
		await().atMost(CROSSING).until(() -> b.remaining().compareTo(Duration.ofMillis(400)) > 0);
		Instance late = new Instance(Duration.ofSeconds(1));
		assertThat(late.remaining()).as("as an instance that never heard the message").isPositive();
		a.close();
		b.close();
		late.close();
	}

	@Test
	void theInstantOfAMessageWhoseStoreNowIsFarAheadOfRedisNeverHoldsTheFleetsProbeClaim() throws IOException {
		Instance a = new Instance(Duration.ofSeconds(1));
		publishFarAhead();
		await().atMost(CROSSING).until(() -> a.remaining().compareTo(Duration.ofMillis(500)) > 0);
		await().atMost(Duration.ofMillis(1500)).until(() -> a.remaining().isZero());
		// the gate probes for itself after the message's cap, and the provider admits it: had the hostile instant
		// been claimed, its admitted claim would live for as long as it is far ahead, and answer every later claim
		await().atMost(Duration.ofSeconds(2)).until(() -> a.admit() == ProviderGate.Admission.PROBE);
		a.gate.probeAnswered(true);
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1))
			.until(() -> redis.command("GET", "{" + this.prefix + "}:probe:default").equals("$-1\r\n"));
		a.close();
	}

	@Test
	void aStoreClockThatRanAheadAndSteppedBackNeverStopsTheNextGenuineCooldownFromClosingEveryGate() throws IOException {
		Instance a = new Instance(Duration.ofSeconds(5));
		Instance b = new Instance(Duration.ofSeconds(5));
		// the store's clock ran 20 s ahead when a peer's cooldown of 800 ms was stored and announced...
		long ahead = redisMicros() + Duration.ofSeconds(20).toNanos() / 1000;
		publish(ahead + " " + (ahead + 800_000), "peer");
		await().atMost(CROSSING).until(() -> b.remaining().compareTo(Duration.ofMillis(400)) > 0);
		// ...then stepped back to Redis's TIME (a failover): a's refusal of 1.5 s reaches b at once
		long closed = System.nanoTime();
		a.gate.closeUntil(closed + Duration.ofMillis(1500).toNanos());
		a.cooldown.publish();
		await().atMost(CROSSING).until(() -> b.remaining().compareTo(Duration.ofMillis(1000)) > 0);
		assertThat(b.gate.cooldownUntilNanos() - (closed + Duration.ofMillis(1500).toNanos()))
			.as("never earlier than a's instant")
			.isNotNegative();
		a.close();
		b.close();
	}

	/** Publishes a message whose "store now" is 10^17 µs ahead of Redis's TIME, with an instant of 18 digits. */
	private void publishFarAhead() throws IOException {
		publish((redisMicros() + 100_000_000_000_000_000L) + " 999999999999999999", "evil!");
	}

	/** Publishes a cooldown message for provider 'default' as another client of the fleet's channel could. */
	private void publish(String instants, String instanceId) throws IOException {
		redis.command("PUBLISH", CooldownChannel.name(this.prefix),
				instants + " " + instanceId.length() + " " + instanceId + "default");
	}

	/** Redis's {@code TIME}, in microseconds. */
	private static long redisMicros() throws IOException {
		String[] lines = redis.command("TIME").split("\r\n");
		// *2, $n, seconds, $n, microseconds
		return Long.parseLong(lines[2]) * 1_000_000 + Long.parseLong(lines[4]);
	}

	/** One instance, syncing every 100 ms: its link, its gate for provider 'default' and its cooldown. */
	private final class Instance {

		final RedisFleet fleet;

		final RedisFleetStore store;

		final ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());

		final SharedCooldown cooldown;

		Instance(Duration cap) {
			RedisClient client = RedisHostileCooldownTests.this.client;
			var connection = client.connect(ByteArrayCodec.INSTANCE);
			this.fleet = new RedisFleet(connection::async, new RedisFleetSettings(RedisHostileCooldownTests.this.prefix,
					Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofHours(1)));
			this.store = new RedisFleetStore(this.fleet, () -> client.connectPubSub(ByteArrayCodec.INSTANCE));
			this.cooldown = SharedCooldown.builder(this.store)
				.provider("default", cap, Duration.ofSeconds(10))
				.ticker(Ticker.system())
				.flushInterval(Duration.ofMillis(100))
				.build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
			await().atMost(Duration.ofSeconds(5)).until(() -> this.fleet.onRedis() && this.store.subscribed());
		}

		Duration remaining() {
			return this.cooldown.remaining("default");
		}

		ProviderGate.Admission admit() {
			long now = System.nanoTime();
			return this.gate.admit(false, now, now + Duration.ofSeconds(30).toNanos(), null,
					Duration.ofSeconds(10).toNanos());
		}

		void close() {
			this.store.close();
			this.fleet.close();
		}

	}

}
