package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The core's shared cooldown on the Redis store, against a real {@code redis-server}, with two instances built by hand (a fleet link, a gate and
 * a cooldown each): never shortened on Redis, converted to each instance's clock, pushed after a fallback, expiring.
 */
class RedisSharedCooldownTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "cooldown-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aShorterHintNeverShortensTheFleetsCooldown() throws IOException {
		Instance a = new Instance();
		Instance b = new Instance();
		long now = System.nanoTime();
		a.gate.closeUntil(now + Duration.ofSeconds(2).toNanos());
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> b.remaining().compareTo(Duration.ofMillis(1500)) > 0);
		// b's requests never met the provider's throttle, but the fleet's did: b paces after the cooldown too
		assertThat(b.gate.rate()).isPresent();
		assertThat(b.gate.rate().getAsDouble() / b.gate.fleet().share()).as("0.7 x 1,000/s at its share")
			.isCloseTo(700.0, within(1e-6));
		String stored = value();
		// b is told to come back in 300 ms: its gate keeps a's longer cooldown
		b.gate.closeUntil(System.nanoTime() + Duration.ofMillis(300).toNanos());
		assertThat(b.remaining()).isGreaterThan(Duration.ofMillis(1000));
		// and so does Redis, even when an instance that has not heard of it yet sends the shorter one
		List<Object> reply = b.fleet
			.execute(FleetScript.EXTEND_COOLDOWN, new byte[][] { key().getBytes(StandardCharsets.UTF_8) },
					"300000".getBytes(StandardCharsets.US_ASCII), "1000".getBytes(StandardCharsets.US_ASCII),
					"30000000".getBytes(StandardCharsets.US_ASCII))
			.orElseThrow();
		assertThat(stored).contains(new String((byte[]) reply.get(1), StandardCharsets.US_ASCII));
		assertThat(value()).isEqualTo(stored);
		// the fleet's instant, converted to b's clock, is never earlier than the one a was given
		assertThat(b.gate.cooldownUntilNanos() - (now + Duration.ofSeconds(2).toNanos())).isNotNegative();
		long ttl = Long.parseLong(redis.command("PTTL", key()).trim().substring(1));
		assertThat(ttl).isBetween(1L, 3000L);
		a.close();
		b.close();
	}

	@Test
	void aCooldownLearnedWhileRedisWasAwayReachesTheFleetOnRejoin() {
		Instance a = new Instance();
		Instance b = new Instance();
		a.fleet.fallBack(new IllegalStateException("connection reset"));
		a.gate.closeUntil(System.nanoTime() + Duration.ofSeconds(2).toNanos());
		a.cooldown.publish();
		assertThat(a.fleet.state()).isEqualTo(RedisFleet.State.LOCAL_FALLBACK);
		assertThat(b.remaining()).isZero();
		// the probe (every 100 ms) finds Redis answering, and a pushes what it learned meanwhile
		await().atMost(Duration.ofSeconds(2)).until(a.fleet::onRedis);
		await().atMost(Duration.ofSeconds(1)).until(() -> b.remaining().compareTo(Duration.ofMillis(1000)) > 0);
		a.close();
		b.close();
	}

	@Test
	void anInstanceOnItsFallbackKeepsTheShareRedisLastGaveIt() throws IOException {
		Duration timeout = Duration.ofMillis(50);
		Instance a = new Instance(timeout);
		Instance b = new Instance(timeout);
		Instance c = new Instance(timeout);
		await().atMost(Duration.ofSeconds(1)).until(() -> a.gate.fleet().share() == 1.0 / 3);
		// Redis stops answering for 800 ms: the commands time out (50 ms) and every instance falls back
		redis.command("CLIENT", "PAUSE", "800", "ALL");
		await().atMost(Duration.ofMillis(500)).until(() -> a.fleet.state() == RedisFleet.State.LOCAL_FALLBACK);
		assertThat(a.gate.fleet().share()).as("three instances falling back together still pace as the fleet would")
			.isEqualTo(1.0 / 3);
		await().atMost(Duration.ofSeconds(3)).until(a.fleet::onRedis);
		assertThat(a.gate.fleet().share()).isEqualTo(1.0 / 3);
		a.close();
		b.close();
		c.close();
	}

	@Test
	void afterTheFleetsCooldownOneInstanceProbesAndTheOthersWaitForItsAnswer() throws IOException {
		Instance a = new Instance();
		Instance b = new Instance();
		Instance c = new Instance();
		long end = System.nanoTime() + Duration.ofMillis(300).toNanos();
		a.gate.closeUntil(end);
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> !b.remaining().isZero() && !c.remaining().isZero());
		// each instance counts the fleet and paces at its share of the provider
		await().atMost(Duration.ofSeconds(1)).until(() -> b.gate.fleet().share() == 1.0 / 3);
		await().until(() -> System.nanoTime() - a.gate.cooldownUntilNanos() > 0
				&& System.nanoTime() - b.gate.cooldownUntilNanos() > 0 && System.nanoTime() - c.gate.cooldownUntilNanos() > 0);
		// b's request is ready first: it asks the fleet and, on a thread that may block, waits for its answer (one
		// script call) and goes as the probe at once (an event loop's request is held and asks again)
		assertThat(admit(b)).isEqualTo(ProviderGate.Admission.PROBE);
		assertThat(redis.command("GET", "{" + this.prefix + "}:probe:default")).contains(":");
		// a and c follow b's probe: held, not probing
		await().atMost(Duration.ofSeconds(1)).until(() -> {
			admit(a);
			admit(c);
			return a.gate.probing() && c.gate.probing();
		});
		assertThat(admit(a)).isInstanceOf(ProviderGate.Admission.Hold.class);
		assertThat(admit(c)).isInstanceOf(ProviderGate.Admission.Hold.class);
		// b's probe is answered: its claim goes, and a and c learn it within a flush interval or two
		b.gate.probeAnswered(true);
		b.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> admit(a) == ProviderGate.Admission.GO
				&& admit(c) == ProviderGate.Admission.GO);
		// the claim now says the provider admitted that instant's probe, for the rest of its lease
		assertThat(redis.command("GET", "{" + this.prefix + "}:probe:default")).contains(":!admitted");
		a.close();
		b.close();
		c.close();
	}

	@Test
	void anEarlyProbeThatTheProviderAdmitsOpensEveryInstanceBeforeTheFleetsLatestInstant() throws IOException {
		Instance a = new Instance();
		Instance b = new Instance();
		long now = System.nanoTime();
		// a's burst was answered with instants 300 ms and 3 s away: the fleet holds the latest, a probes from the earliest
		a.gate.closeUntil(now + Duration.ofMillis(300).toNanos());
		a.gate.closeUntil(now + Duration.ofSeconds(3).toNanos());
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> b.remaining().compareTo(Duration.ofSeconds(2)) > 0);
		await().until(() -> System.nanoTime() - now > Duration.ofMillis(300).toNanos());
		await().atMost(Duration.ofSeconds(1)).until(() -> admit(a) == ProviderGate.Admission.PROBE);
		assertThat(admit(b)).as("b holds the fleet's cooldown").isInstanceOf(ProviderGate.Admission.Hold.class);
		// the provider admits a's probe: a opens, and so does b, long before the fleet's 3 s
		a.gate.probeAnswered(true);
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).until(() -> admit(b) == ProviderGate.Admission.GO);
		assertThat(System.nanoTime() - now).isLessThan(Duration.ofMillis(2500).toNanos());
		assertThat(b.remaining()).isZero();
		assertThat(redis.command("EXISTS", key())).as("the fleet's cooldown of that instant is over").contains("0");
		// reading the fleet again every flush interval closes neither gate again
		await().during(Duration.ofMillis(200))
			.atMost(Duration.ofSeconds(1))
			.until(() -> admit(a) == ProviderGate.Admission.GO && admit(b) == ProviderGate.Admission.GO);
		a.close();
		b.close();
	}

	@Test
	void theInstancesStillDrainingABacklogShareTheProviderAmongThemselvesInProportionToTheirBacklogs()
			throws IOException {
		Instance a = new Instance();
		Instance b = new Instance();
		Instance c = new Instance();
		for (Instance instance : List.of(a, b, c)) {
			instance.gate.onThrottle(System.nanoTime(), System.nanoTime());
		}
		await().atMost(Duration.ofSeconds(1)).until(() -> c.gate.fleet().share() == 1.0 / 3);
		double each = a.gate.rate().getAsDouble();
		// a holds three requests at its gate, b one, c none: a and b pace for half the provider each, and split what
		// they pace at together three to one
		for (int i = 0; i < 3; i++) {
			assertThat(a.gate.tryEnqueue()).isTrue();
		}
		assertThat(b.gate.tryEnqueue()).isTrue();
		await().atMost(Duration.ofSeconds(1)).until(() -> a.gate.fleet().share() == 0.5 && b.gate.fleet().share() == 0.5);
		await().atMost(Duration.ofSeconds(1))
			.until(() -> Math.abs(a.gate.rate().getAsDouble() / b.gate.rate().getAsDouble() - 3) < 0.3);
		assertThat(a.gate.rate().getAsDouble() + b.gate.rate().getAsDouble()).as("about what they paced at before")
			.isBetween(each, 4 * each);
		assertThat(c.gate.fleet().share()).isEqualTo(1.0 / 3);
		assertThat(c.gate.rate().getAsDouble()).isEqualTo(each);
		assertThat(redis.command("HLEN", backlogKey())).contains("2");
		long ttl = Long.parseLong(redis.command("PTTL", backlogKey()).trim().substring(1));
		assertThat(ttl).as("ten flush intervals").isBetween(1L, 500L);
		// a's backlog drained: within half the window and a flush interval, b paces for the whole provider
		for (int i = 0; i < 3; i++) {
			a.gate.dequeue();
		}
		await().atMost(Duration.ofSeconds(2)).until(() -> b.gate.fleet().share() == 1.0);
		assertThat(a.gate.fleet().share()).isEqualTo(1.0 / 3);
		b.gate.dequeue();
		await().atMost(Duration.ofSeconds(1)).until(() -> b.gate.fleet().share() == 1.0 / 3);
		assertThat(redis.command("EXISTS", backlogKey())).as("no field left, no key").contains("0");
		a.close();
		b.close();
		c.close();
	}

	private String backlogKey() {
		return "{" + this.prefix + "}:backlog:default";
	}

	private static ProviderGate.Admission admit(Instance instance) {
		long now = System.nanoTime();
		return instance.gate.admit(false, now, now + Duration.ofSeconds(30).toNanos(), null,
				Duration.ofSeconds(10).toNanos());
	}

	private String key() {
		return "{" + this.prefix + "}:cooldown:default";
	}

	private String value() throws IOException {
		return redis.command("GET", key());
	}

	/** One instance: its link to the fleet, its gate for provider 'default', and the cooldown bridging them. */
	private final class Instance {

		final RedisFleet fleet;

		final ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());

		final SharedCooldown cooldown;

		Instance() {
			this(Duration.ofSeconds(1));
		}

		Instance(Duration commandTimeout) {
			var connection = RedisSharedCooldownTests.this.client.connect(ByteArrayCodec.INSTANCE);
			this.fleet = new RedisFleet(connection::async, new RedisFleetSettings(RedisSharedCooldownTests.this.prefix,
					commandTimeout, Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofHours(1)));
			this.cooldown = SharedCooldown.builder(new RedisFleetStore(this.fleet))
				.provider("default")
				.ticker(Ticker.system())
				.build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
			await().atMost(Duration.ofSeconds(5)).until(this.fleet::onRedis);
		}

		Duration remaining() {
			return this.cooldown.remaining("default");
		}

		void close() {
			this.fleet.close();
		}

	}

}
