package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Measures, with Redis on loopback, what the fleet adds: the latency of one retry decision (a budget round trip)
 * against the local budget, and how long a cooldown takes to reach another instance. Reports the median and p99 on
 * standard output and in {@code target/fleet-latency.txt}; asserts only what docs/fleet.md promises (a decision's
 * p99 inside the default 50 ms command timeout, a cooldown across within 100 ms at the median).
 */
class FleetLatencyReportTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final int WARMUP = 2_000;

	private static final int SAMPLES = 5_000;

	private RedisClient client;

	@AfterEach
	void shutDown() {
		if (this.client != null) {
			this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	@Test
	void aRetryDecisionCostsOneLoopbackRoundTripAndACooldownCrossesWithinAFlushInterval() throws IOException {
		this.client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
		BudgetSettings huge = new BudgetSettings(1e12, 0.2, 0);
		RedisFleet first = fleet("latency");
		RedisFleet second = fleet("latency");
		FleetRetryBudget budget = FleetRetryBudget.builder(new RedisFleetStore(first))
			.global(huge)
			.providers(Map.of("default", huge))
			.ticker(Ticker.system())
			.build();
		TokenBucketRetryBudget local = TokenBucketRetryBudget.builder()
			.global(huge)
			.providerDefaults(huge)
			.build();
		await().atMost(Duration.ofSeconds(5)).until(() -> first.onRedis() && second.onRedis());

		long[] redisNanos = time(() -> budget.tryAcquire("default"));
		long[] localNanos = time(() -> local.tryAcquire("default"));
		assertThat(first.fallbacks()).isZero();

		ProviderGate gateA = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		ProviderGate gateB = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());
		SharedCooldown cooldownA = SharedCooldown.builder(new RedisFleetStore(first))
			.provider("default")
			.ticker(Ticker.system())
			.build();
		SharedCooldown cooldownB = SharedCooldown.builder(new RedisFleetStore(second))
			.provider("default")
			.ticker(Ticker.system())
			.build();
		cooldownA.attach((name) -> Optional.of(gateA.fleet()));
		cooldownB.attach((name) -> Optional.of(gateB.fleet()));
		long[] propagation = new long[40];
		java.util.Random phases = new java.util.Random(42);
		for (int i = 0; i < propagation.length; i++) {
			// start at a random point of the other instance's poll cycle, or every sample waits a whole interval
			long phase = System.nanoTime() + phases.nextInt(50_000_000);
			while (System.nanoTime() - phase < 0) {
				LockSupport.parkNanos(100_000);
			}
			long before = gateB.cooldownUntilNanos();
			long closed = System.nanoTime();
			// each hint a little longer than the last, as a provider extending its cooldown would send
			gateA.closeUntil(closed + Duration.ofSeconds(5).toNanos() + i * 1_000_000L);
			cooldownA.publish();
			while (gateB.cooldownUntilNanos() == before) {
				LockSupport.parkNanos(50_000);
				assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofSeconds(2));
			}
			propagation[i] = System.nanoTime() - closed;
		}
		first.close();
		second.close();

		String report = String.format(Locale.ROOT,
				"retry decision (tryAcquire), %d samples after %d warm-up:%n"
						+ "  redis on loopback: median %s, p99 %s%n"
						+ "  local budget:      median %s, p99 %s%n"
						+ "cooldown from one instance's gate to another's (flush interval %s), %d samples:%n"
						+ "  median %s, p99 %s, max %s%n",
				SAMPLES, WARMUP, micros(percentile(redisNanos, 50)), micros(percentile(redisNanos, 99)),
				micros(percentile(localNanos, 50)), micros(percentile(localNanos, 99)),
				first.settings().flushInterval().toMillis() + " ms", propagation.length,
				millis(percentile(propagation, 50)), millis(percentile(propagation, 99)),
				millis(Arrays.stream(propagation).max().orElseThrow()));
		System.out.print(report);
		Path target = Path.of("target");
		if (Files.isDirectory(target)) {
			Files.writeString(target.resolve("fleet-latency.txt"), report);
		}
		// the default command timeout is 50 ms: a healthy loopback Redis stays well inside it
		assertThat(Duration.ofNanos(percentile(redisNanos, 99))).isLessThan(Duration.ofMillis(50));
		assertThat(Duration.ofNanos(percentile(propagation, 50))).isLessThan(Duration.ofMillis(100));
	}

	private RedisFleet fleet(String prefix) {
		StatefulRedisConnection<byte[], byte[]> connection = this.client.connect(ByteArrayCodec.INSTANCE);
		// a long command timeout: every sample must be a real round trip, never a fallback on a busy machine
		return new RedisFleet(connection::async, new RedisFleetSettings(prefix, Duration.ofSeconds(1),
				Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofHours(1)));
	}

	private static long[] time(Runnable decision) {
		for (int i = 0; i < WARMUP; i++) {
			decision.run();
		}
		long[] nanos = new long[SAMPLES];
		for (int i = 0; i < SAMPLES; i++) {
			long started = System.nanoTime();
			decision.run();
			nanos[i] = System.nanoTime() - started;
		}
		return nanos;
	}

	private static long percentile(long[] values, int percent) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, index)];
	}

	private static String micros(long nanos) {
		return String.format(Locale.ROOT, "%.1f µs", nanos / 1_000.0);
	}

	private static String millis(long nanos) {
		return String.format(Locale.ROOT, "%.1f ms", nanos / 1_000_000.0);
	}

}
