package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
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
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fleet's bounds against a real {@code redis-server}, on instances built by hand: a cooldown key never outlives
 * its cap plus one second, a fallback continues from the budget's last level (flapping refills nothing), and a return
 * to Redis takes several good probes in a row.
 */
class FleetBoundsTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "bounds-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aCooldownKeyNeverLivesLongerThanTheCapPlusOneSecond() throws IOException {
		// a cap of 5 s: long enough that a stalled test thread on a loaded machine (seconds, in CI) cannot outlive the
		// key or the gate's cooldown between a write and its check, short enough to tell the cap from the hours asked
		Duration cap = Duration.ofSeconds(5);
		long keyBound = cap.toMillis() + 1000;
		RedisFleet fleet = fleet();
		ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		SharedCooldown cooldown = SharedCooldown.builder(new RedisFleetStore(fleet))
			.provider("default", cap, SharedCooldown.DEFAULT_PROBE_LEASE)
			.ticker(Ticker.system())
			.build();
		cooldown.attach((name) -> Optional.of(gate.fleet()));
		// a gate closed for an hour (a hint the gate was given whole) reaches Redis for the cap only
		gate.closeUntil(System.nanoTime() + Duration.ofHours(1).toNanos());
		cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> redis.command("EXISTS", key()).startsWith(":1"));
		assertThat(pttl()).isBetween(1L, keyBound);
		// a value far beyond the cap, written by an instance with a longer cap, is brought down by the next write
		redis.command("SET", key(), "99999999999999999");
		gate.closeUntil(System.nanoTime() + Duration.ofHours(2).toNanos());
		cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> !redis.command("GET", key()).contains("99999999999999999"));
		assertThat(pttl()).isBetween(1L, keyBound);
		// and a gate that learns such a value from the fleet closes for the cap at most
		ProviderGate other = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		RedisFleet otherFleet = fleet();
		redis.command("SET", key(), "99999999999999999");
		SharedCooldown.builder(new RedisFleetStore(otherFleet))
			.provider("default", cap, SharedCooldown.DEFAULT_PROBE_LEASE)
			.ticker(Ticker.system())
			.build()
			.attach((name) -> Optional.of(other.fleet()));
		// learned at attach, whether or not the store's thread synced before attach (it learns nothing then: issue 28's
		// CI saw this gate open twice when such a sync had marked the value as known)
		assertThat(other.cooldownRemaining())
			.as("the key holds %s, PTTL %s, the learning instance is on Redis: %s", redis.command("GET", key()).trim(),
					redis.command("PTTL", key()).trim(), otherFleet.onRedis())
			.isPositive()
			.isLessThanOrEqualTo(cap);
		fleet.close();
		otherFleet.close();
	}

	@Test
	void aFallbackContinuesFromTheLastLevelAndTheFleetIsToldWhatWasSpent() throws IOException {
		RedisFleet fleet = fleet();
		FleetRetryBudget budget = FleetRetryBudget.builder(new RedisFleetStore(fleet))
			.global(new BudgetSettings(1000, 0, 0))
			.providers(Map.of("default", new BudgetSettings(10, 0, 0)))
			.ticker(Ticker.system())
			.build();
		for (int i = 0; i < 6; i++) {
			assertThat(budget.tryAcquire("default")).isTrue();
		}
		// three flaps: each continues from the level the last one left, none starts from a full bucket
		int spentLocally = 0;
		for (int flap = 0; flap < 3; flap++) {
			fleet.fallBack(new IllegalStateException("flap " + flap));
			if (budget.tryAcquire("default")) {
				spentLocally++;
			}
			await().atMost(Duration.ofSeconds(3)).until(fleet::onRedis);
		}
		assertThat(spentLocally).isEqualTo(3);
		fleet.fallBack(new IllegalStateException("flap 3"));
		int taken = 0;
		while (budget.tryAcquire("default")) {
			taken++;
		}
		assertThat(taken).isEqualTo(1);
		await().atMost(Duration.ofSeconds(3)).until(fleet::onRedis);
		// what was spent locally reached Redis at each rejoin: the shared bucket is empty
		await().atMost(Duration.ofSeconds(1))
			.until(() -> redis.command("HGET", "{" + this.prefix + "}:budget:default", "t").contains("0"));
		assertThat(budget.tryAcquire("default")).isFalse();
		assertThat(fleet.fallbacks()).isEqualTo(4);
		fleet.close();
	}

	@Test
	void rejoiningTakesSeveralGoodProbesInARow() {
		RedisFleet fleet = fleet();
		long fellBack = System.nanoTime();
		fleet.fallBack(new IllegalStateException("connection reset"));
		await().atMost(Duration.ofSeconds(3)).until(fleet::onRedis);
		// three good probes, one every 100 ms: the first is due 100 ms after the fallback
		assertThat(Duration.ofNanos(System.nanoTime() - fellBack)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		fleet.close();
	}

	private RedisFleet fleet() {
		var connection = this.client.connect(ByteArrayCodec.INSTANCE);
		RedisFleet fleet = new RedisFleet(connection::async, new RedisFleetSettings(this.prefix, Duration.ofSeconds(1),
				Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofHours(1), 3));
		await().atMost(Duration.ofSeconds(5)).until(fleet::onRedis);
		return fleet;
	}

	private String key() {
		return "{" + this.prefix + "}:cooldown:default";
	}

	private long pttl() throws IOException {
		return Long.parseLong(redis.command("PTTL", key()).trim().substring(1));
	}

}
