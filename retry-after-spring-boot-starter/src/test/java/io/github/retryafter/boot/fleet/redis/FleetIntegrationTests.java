package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.fleet.SharedCooldown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three application instances (three Spring contexts, each with its own RestClient, engines and Redis connection)
 * against one real {@code redis-server} and one loopback provider, on the real clock: the budget is the fleet's, a
 * {@code Retry-After} seen by one instance holds the others (announced at once, not at the next poll), skewed wall
 * clocks change nothing, and Redis dying mid-run loses no request (and the announcements' subscription is renewed).
 */
class FleetIntegrationTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "fleet-test-" + fleets.incrementAndGet();

	private final FlakyProvider provider = new FlakyProvider();

	private final ApplicationContextRunner instance = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.providers.default.scope=provider", "retry.after.fleet.key-prefix=" + this.prefix,
				"retry.after.fleet.command-timeout=1s", "retry.after.backoff.delay=10ms",
				"retry.after.backoff.max-delay=20ms");

	@AfterEach
	void stopProvider() {
		this.provider.close();
	}

	@Test
	void retriesAcrossTheFleetNeverExceedTheSharedBudget() {
		this.provider.script("/down", Reply.status(503));
		String[] budget = { "retry.after.budget.capacity=6", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0", "retry.after.max-attempts=5" };
		fleet(budget, (instances) -> {
			List<CompletableFuture<Integer>> calls = new ArrayList<>();
			for (AssertableApplicationContext context : instances) {
				RestClient client = client(context);
				for (int i = 0; i < 10; i++) {
					calls.add(CompletableFuture.supplyAsync(() -> status(client, "/down")));
				}
			}
			CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
			assertThat(calls).allSatisfy((call) -> assertThat(call.get()).isEqualTo(503));
			// 30 operations of up to 5 attempts would retry 120 times alone; the fleet's 6 tokens allow 6 retries
			assertThat(this.provider.requests("/down")).isEqualTo(30 + 6);
			for (AssertableApplicationContext context : instances) {
				assertThat(context.getBean(RedisFleet.class).fallbacks()).isZero();
			}
		});
	}

	@Test
	void aRetryAfterSeenByOneInstanceHoldsTheOthers() {
		this.provider.script("/a", Reply.status(503).retryAfter("2"), Reply.ok());
		this.provider.script("/b", Reply.ok());
		this.provider.script("/c", Reply.ok());
		heldByTheFleet(new String[0]);
	}

	@Test
	void wallClocksFortySecondsApartChangeNothing() {
		// the provider speaks HTTP dates only; the instances' wall clocks are 40 s slow, right, and 40 s fast
		this.provider.script("/a", Reply.status(503).retryAfterDate(Duration.ofSeconds(2)), Reply.ok());
		this.provider.script("/b", Reply.ok());
		this.provider.script("/c", Reply.ok());
		heldByTheFleet(new String[0], Duration.ofSeconds(-40), Duration.ZERO, Duration.ofSeconds(40));
	}

	@Test
	void aRetryAfterSeenByOneInstanceReachesAnotherAsRedisAnnouncesItNotAtItsNextPoll() {
		this.provider.script("/a", Reply.status(503).retryAfter("2"), Reply.ok());
		RecordingListener first = new RecordingListener();
		ApplicationContextRunner runner = this.instance.withPropertyValues("retry.after.fleet.flush-interval=10s");
		runner.withBean(RetryListener.class, () -> first).run((a) -> runner.run((b) -> {
			onRedis(a, b);
			RedisFleetStore store = b.getBean(RedisFleetStore.class);
			await().atMost(Duration.ofSeconds(5)).until(store::subscribed);
			SharedCooldown cooldown = b.getBean(SharedCooldown.class);
			CompletableFuture<Integer> told = CompletableFuture.supplyAsync(() -> status(client(a), "/a"));
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.provider.arrivalNanos("/a").isEmpty());
			await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(1))
				.until(() -> !cooldown.remaining("default").isZero());
			long learned = System.nanoTime();
			// the next poll is ten seconds away: the announcement closed b's gate
			assertThat(Duration.ofNanos(learned - this.provider.arrivalNanos("/a").get(0)))
				.isLessThan(Duration.ofMillis(500));
			assertThat(told.get(10, TimeUnit.SECONDS)).isEqualTo(200);
		}));
	}

	private void heldByTheFleet(String[] properties, Duration... wallClockOffsets) {
		RecordingListener first = new RecordingListener();
		List<ApplicationContextRunner> runners = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			ApplicationContextRunner runner = this.instance.withPropertyValues(properties);
			if (wallClockOffsets.length > 0) {
				Duration offset = wallClockOffsets[i];
				runner = runner.withBean(InstantSource.class, () -> () -> Instant.now().plus(offset));
			}
			if (i == 0) {
				runner = runner.withBean(RetryListener.class, () -> first);
			}
			runners.add(runner);
		}
		runners.get(0).run((a) -> runners.get(1).run((b) -> runners.get(2).run((c) -> {
			onRedis(a, b, c);
			CompletableFuture<Integer> told = CompletableFuture.supplyAsync(() -> status(client(a), "/a"));
			await().atMost(Duration.ofSeconds(5)).until(() -> !first.retries.isEmpty());
			long toldAt = this.provider.arrivalNanos("/a").get(0);
			// the cooldown reaches the other instances through Redis (a poll every flush interval)
			SharedCooldown others = b.getBean(SharedCooldown.class);
			await().atMost(Duration.ofMillis(500)).until(() -> !others.remaining("default").isZero());
			long sentAt = System.nanoTime();
			CompletableFuture<Integer> fromB = CompletableFuture.supplyAsync(() -> status(client(b), "/b"));
			CompletableFuture<Integer> fromC = CompletableFuture.supplyAsync(() -> status(client(c), "/c"));
			assertThat(fromB.get(10, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(fromC.get(10, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(told.get(10, TimeUnit.SECONDS)).isEqualTo(200);
			// b and c were ready well before the provider's instant, and reached it no earlier than that instant
			assertThat(Duration.ofNanos(sentAt - toldAt)).isLessThan(Duration.ofMillis(1500));
			long floor = toldAt + Duration.ofSeconds(2).toNanos();
			assertThat(this.provider.arrivalNanos("/b").get(0)).isGreaterThanOrEqualTo(floor);
			assertThat(this.provider.arrivalNanos("/c").get(0)).isGreaterThanOrEqualTo(floor);
			// and not much later: b follows the fleet's one probe (a's retry), so it goes once the probe's answer has
			// reached Redis, b has read it (every 50 ms flush interval) and b's held request has asked again (at most
			// every 100 ms): a few hundred ms on two busy cores (533 ms seen in CI), far below another 2 s hint
			assertThat(Duration.ofNanos(this.provider.arrivalNanos("/b").get(0) - floor))
				.isLessThan(Duration.ofMillis(1000));
			// the cooldown key outlives its instant by one second at most, then expires
			long ttl = Long.parseLong(redis.command("PTTL", "{" + this.prefix + "}:cooldown:default").trim().substring(1));
			assertThat(ttl).isLessThanOrEqualTo(1000);
		})));
	}

	@Test
	void killingRedisMidRunLosesNoRequestAndTheInstancesRejoin() throws IOException {
		int perInstance = 40;
		for (int i = 0; i < 3 * perInstance; i++) {
			this.provider.script("/r/" + i, Reply.status(503), Reply.ok());
		}
		this.provider.script("/after", Reply.status(503), Reply.status(503), Reply.ok());
		// a budget large enough for every retry: this test is about Redis going away, not about the budget refusing
		String[] properties = { "retry.after.fleet.command-timeout=50ms", "retry.after.fleet.probe-interval=100ms",
				"retry.after.budget.capacity=1000", "retry.after.global-budget.capacity=1000" };
		fleet(properties, (instances) -> {
			AtomicInteger done = new AtomicInteger();
			AtomicLong slowest = new AtomicLong();
			List<CompletableFuture<List<Integer>>> runs = new ArrayList<>();
			for (int n = 0; n < instances.size(); n++) {
				RestClient client = client(instances.get(n));
				int base = n * perInstance;
				runs.add(CompletableFuture.supplyAsync(() -> {
					List<Integer> statuses = new ArrayList<>();
					for (int i = 0; i < perInstance; i++) {
						long started = System.nanoTime();
						statuses.add(status(client, "/r/" + (base + i)));
						slowest.accumulateAndGet(System.nanoTime() - started, Math::max);
						done.incrementAndGet();
					}
					return statuses;
				}));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> done.get() >= 30);
			redis.kill();
			try {
				carryOnLocallyThenRejoin(instances, runs, perInstance, slowest);
			}
			finally {
				if (!redis.isRunning()) {
					redis.start();
				}
			}
		});
	}

	private void carryOnLocallyThenRejoin(List<AssertableApplicationContext> instances,
			List<CompletableFuture<List<Integer>>> runs, int perInstance, AtomicLong slowest) throws Exception {
		for (CompletableFuture<List<Integer>> run : runs) {
			assertThat(run.get(30, TimeUnit.SECONDS)).hasSize(perInstance).containsOnly(200);
		}
		// every operation: one 503, one retry, one 200; none lost, none failed because Redis did
		assertThat(this.provider.recorded()).hasSize(3 * perInstance * 2);
		assertThat(Duration.ofNanos(slowest.get())).isLessThan(Duration.ofSeconds(1));
		for (AssertableApplicationContext context : instances) {
			RedisFleet fleet = context.getBean(RedisFleet.class);
			await().atMost(Duration.ofSeconds(2)).until(() -> fleet.state() == RedisFleet.State.LOCAL_FALLBACK);
			// at least the kill; a busy machine may have timed out a command before it too
			assertThat(fleet.fallbacks()).isPositive();
		}
		redis.start();
		onRedis(instances.toArray(new AssertableApplicationContext[0]));
		for (AssertableApplicationContext context : instances) {
			// the announcements' subscription renewed by Lettuce on the new server, as the poll resumed
			CooldownChannel channel = context.getBean(RedisFleetStore.class).channel().orElseThrow();
			await().atMost(Duration.ofSeconds(15)).until(() -> channel.subscriptions() >= 2);
		}
		assertThat(status(client(instances.get(1)), "/after")).isEqualTo(200);
		// on the new, empty server: two retries took a token each, the one that succeeded gave its token back
		await().atMost(Duration.ofSeconds(1))
			.until(() -> redis.command("HGET", "{" + this.prefix + "}:budget:default", "t").contains("999"));
	}

	private void fleet(String[] properties, Fleet body) {
		ApplicationContextRunner runner = this.instance.withPropertyValues(properties);
		runner.run((a) -> runner.run((b) -> runner.run((c) -> {
			onRedis(a, b, c);
			body.run(List.of(a, b, c));
		})));
	}

	private RestClient client(AssertableApplicationContext context) {
		return context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
	}

	private static int status(RestClient client, String path) {
		return client.get()
			.uri(path)
			.retrieve()
			.onStatus((status) -> true, (request, response) -> {
			})
			.toBodilessEntity()
			.getStatusCode()
			.value();
	}

	private static void onRedis(AssertableApplicationContext... contexts) {
		for (AssertableApplicationContext context : contexts) {
			RedisFleet fleet = context.getBean(RedisFleet.class);
			await().atMost(Duration.ofSeconds(10)).until(fleet::onRedis);
		}
	}

	@FunctionalInterface
	private interface Fleet {

		void run(List<AssertableApplicationContext> instances) throws Exception;

	}

}
