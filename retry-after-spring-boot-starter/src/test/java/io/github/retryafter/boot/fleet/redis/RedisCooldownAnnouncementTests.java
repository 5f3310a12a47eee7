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
 * The cooldown announced on Redis (issue 31): with a flush interval of ten seconds, so that no poll can explain it, a
 * gate closed on one instance closes another's within {@link #CROSSING}; a message on the channel that is not the
 * fleet's is ignored and counted; the subscription is renewed when its connection drops.
 */
class RedisCooldownAnnouncementTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	/** How soon the announcement closes the other gate: far inside the ten-second flush interval. */
	private static final Duration CROSSING = Duration.ofMillis(100);

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "announce-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aGateClosedOnOneInstanceClosesAnothersWithinAFewMillisecondsWhileNeitherPolls() {
		Instance a = new Instance();
		Instance b = new Instance();
		long closed = System.nanoTime();
		long told = closed + Duration.ofSeconds(5).toNanos();
		a.gate.closeUntil(told);
		a.cooldown.publish();
		await().pollInterval(Duration.ofMillis(1))
			.atMost(Duration.ofSeconds(2))
			.until(() -> b.cooldown.remaining("default").compareTo(Duration.ofSeconds(4)) > 0);
		Duration crossed = Duration.ofNanos(System.nanoTime() - closed);
		assertThat(crossed).as("from a's gate to b's, the next poll ten seconds away").isLessThan(CROSSING);
		assertThat(b.gate.cooldownUntilNanos() - told).as("never earlier than the instant a was told").isNotNegative();
		assertThat(b.channel().heard()).isOne();
		assertThat(a.channel().heard()).as("a is not told of its own").isZero();
		a.close();
		b.close();
	}

	@Test
	void aMessageThatIsNotTheFleetsIsIgnoredAndCountedAndTheNextWellFormedOneIsLearned() throws IOException {
		Instance b = new Instance();
		String channel = CooldownChannel.name(this.prefix);
		redis.command("PUBLISH", channel, "not the fleet's");
		redis.command("PUBLISH", channel, "1 2 3 " + "x".repeat(CooldownChannel.MAX_MESSAGE_BYTES));
		redis.command("PUBLISH", channel, "1 99999999999999999999 1 xdefault");
		await().atMost(Duration.ofSeconds(2)).until(() -> b.channel().ignored() == 3);
		assertThat(b.fleet.keyFallbacks()).as("counted with the keys that were not the fleet's").isEqualTo(3);
		assertThat(b.fleet.onRedis()).isTrue();
		assertThat(b.cooldown.remaining("default")).isZero();
		// b's own message is dropped without counting; another instance's closes its gate for 3 s of Redis's clock
		String self = new String(b.fleet.instanceId(), java.nio.charset.StandardCharsets.UTF_8);
		redis.command("PUBLISH", channel, "1000000 9000000 " + self.length() + " " + self + "default");
		redis.command("PUBLISH", channel, "1000000 4000000 13 another one:)default");
		await().atMost(Duration.ofSeconds(2)).until(() -> b.cooldown.remaining("default").compareTo(Duration.ZERO) > 0);
		assertThat(b.cooldown.remaining("default")).isBetween(Duration.ofMillis(2000), Duration.ofSeconds(3));
		assertThat(b.channel().heard()).isOne();
		assertThat(b.channel().ignored()).isEqualTo(3);
		b.close();
	}

	@Test
	void theSubscriptionIsRenewedWhenItsConnectionDrops() throws IOException {
		Instance a = new Instance();
		Instance b = new Instance();
		redis.command("CLIENT", "KILL", "TYPE", "pubsub");
		// Lettuce reconnects and subscribes again by itself
		await().atMost(Duration.ofSeconds(5)).until(() -> b.channel().subscriptions() >= 2);
		long closed = System.nanoTime();
		a.gate.closeUntil(closed + Duration.ofSeconds(5).toNanos());
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(2)).until(() -> b.cooldown.remaining("default").compareTo(Duration.ZERO) > 0);
		assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofSeconds(2));
		a.close();
		b.close();
	}

	/** One instance polling every ten seconds: its link, its gate for provider 'default' and its cooldown. */
	private final class Instance {

		final RedisFleet fleet;

		final RedisFleetStore store;

		final ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());

		final SharedCooldown cooldown;

		Instance() {
			RedisClient client = RedisCooldownAnnouncementTests.this.client;
			var connection = client.connect(ByteArrayCodec.INSTANCE);
			this.fleet = new RedisFleet(connection::async, new RedisFleetSettings(RedisCooldownAnnouncementTests.this.prefix,
					Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofHours(1)));
			this.store = new RedisFleetStore(this.fleet, () -> client.connectPubSub(ByteArrayCodec.INSTANCE));
			this.cooldown = SharedCooldown.builder(this.store).provider("default").ticker(Ticker.system()).build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
			await().atMost(Duration.ofSeconds(5)).until(() -> this.fleet.onRedis() && this.store.subscribed());
		}

		CooldownChannel channel() {
			return this.store.channel().orElseThrow();
		}

		void close() {
			this.store.close();
			this.fleet.close();
		}

	}

}
