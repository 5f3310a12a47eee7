package io.github.retryafter.boot.fleet.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.engine.RetryListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 11's fleet acceptance, on three application contexts (each with its own RestClient, engines and Redis
 * connection) against one real {@code redis-server} and one loopback provider, judged by what the provider saw: an
 * instance started during a cooldown waits for the fleet's instant before its first request, a Redis link that flaps
 * hands out no new budget, and values the fleet did not write throw nothing into a request.
 */
class FleetAcceptanceTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "acceptance-" + fleets.incrementAndGet();

	private final FlakyProvider provider = new FlakyProvider();

	private final ExecutorService threads = Executors.newCachedThreadPool();

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
		this.threads.shutdownNow();
		this.provider.close();
	}

	/**
	 * The scenario with a 2 s hint instead of 8 s, to keep the test short. The late instances poll the fleet
	 * every 10 s only, so nothing but the startup read can have closed their gates before their first request.
	 */
	@Test
	void instancesStartedAfterARetryAfterDoNotReachTheProviderBeforeTheFleetsInstant() throws Exception {
		this.provider.script("/a", Reply.status(503).retryAfter("2"), Reply.ok());
		this.provider.script("/b", Reply.ok());
		this.provider.script("/c", Reply.ok());
		RecordingListener first = new RecordingListener();
		this.instance.withBean(RetryListener.class, () -> first).run((a) -> {
			onRedis(a);
			CompletableFuture<Integer> told = CompletableFuture.supplyAsync(() -> status(client(a), "/a"));
			await().atMost(Duration.ofSeconds(15)).until(() -> !first.retries.isEmpty());
			long toldAt = this.provider.arrivalNanos("/a").get(0);
			long instant = toldAt + Duration.ofSeconds(2).toNanos();
			// pushed to Redis at once from a's background thread
			await().atMost(Duration.ofSeconds(1)).until(() -> redis.command("EXISTS", cooldownKey()).startsWith(":1"));
			ApplicationContextRunner late = this.instance.withPropertyValues("retry.after.fleet.flush-interval=10s");
			late.run((b) -> {
				// b sends its first request the moment its context is ready, then c starts and does the same
				long readyB = System.nanoTime();
				CompletableFuture<Integer> fromB = CompletableFuture.supplyAsync(() -> status(client(b), "/b"),
						this.threads);
				late.run((c) -> {
					CompletableFuture<Integer> fromC = CompletableFuture.supplyAsync(() -> status(client(c), "/c"),
							this.threads);
					assertThat(fromB.get(10, TimeUnit.SECONDS)).isEqualTo(200);
					assertThat(fromC.get(10, TimeUnit.SECONDS)).isEqualTo(200);
				});
				assertThat(told.get(10, TimeUnit.SECONDS)).isEqualTo(200);
				// b was started, and sent its first request, well before the provider's instant...
				assertThat(Duration.ofNanos(instant - readyB)).isGreaterThan(Duration.ofMillis(200));
				// ...and the provider saw neither late instance before it
				assertThat(this.provider.arrivalNanos("/b")).singleElement()
					.satisfies((at) -> assertThat(at).isGreaterThanOrEqualTo(instant));
				assertThat(this.provider.arrivalNanos("/c")).singleElement()
					.satisfies((at) -> assertThat(at).isGreaterThanOrEqualTo(instant));
			});
		});
	}

	/**
	 * Redis pauses every client for 100 ms every 200 ms for 3 s (longer than the 50 ms command timeout), while six
	 * threads on three instances send requests that always fail. The fleet's budget is 6 tokens with no refill and no
	 * deposits: the instances fall back and rejoin, but spend together what the shared bucket held, not a fresh budget
	 * per fallback (which would be 3 × 6 tokens at every flap).
	 */
	@Test
	void aRedisLinkThatFlapsKeepsTheFleetsFailedRetriesWithinOneBudget() throws Exception {
		this.provider.script("/down", Reply.status(503));
		ApplicationContextRunner runner = this.instance.withPropertyValues("retry.after.budget.capacity=6",
				"retry.after.budget.refill-per-second=0", "retry.after.budget.deposit-ratio=0",
				"retry.after.global-budget.capacity=1000", "retry.after.max-attempts=5",
				"retry.after.fleet.command-timeout=50ms", "retry.after.fleet.probe-interval=100ms");
		runner.run((a) -> runner.run((b) -> runner.run((c) -> {
			List<AssertableApplicationContext> fleet = List.of(a, b, c);
			for (AssertableApplicationContext context : fleet) {
				RedisFleet link = onRedis(context);
				await().atMost(Duration.ofSeconds(5)).until(() -> link.instances() == 3);
			}
			AtomicBoolean flapping = new AtomicBoolean(true);
			AtomicInteger operations = new AtomicInteger();
			ScheduledExecutorService flapper = Executors.newSingleThreadScheduledExecutor();
			try {
				flapper.scheduleAtFixedRate(() -> {
					try {
						redis.command("CLIENT", "PAUSE", "100");
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}, 0, 200, TimeUnit.MILLISECONDS);
				List<CompletableFuture<Void>> load = new ArrayList<>();
				for (AssertableApplicationContext context : fleet) {
					RestClient client = client(context);
					for (int thread = 0; thread < 2; thread++) {
						load.add(CompletableFuture.runAsync(() -> {
							while (flapping.get()) {
								assertThat(status(client, "/down")).isEqualTo(503);
								operations.incrementAndGet();
							}
						}, this.threads));
					}
				}
				CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS).execute(() -> flapping.set(false));
				CompletableFuture.allOf(load.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
			}
			finally {
				flapper.shutdownNow();
			}
			long fallbacks = fleet.stream().mapToLong((context) -> context.getBean(RedisFleet.class).fallbacks()).sum();
			int retries = this.provider.requests("/down") - operations.get();
			// the flapping did bite: instances fell back while requests were failing
			assertThat(fallbacks).isGreaterThanOrEqualTo(3);
			assertThat(operations.get()).isGreaterThan(30);
			// one budget: 6 tokens, plus at most one per instance decided on a reading one flush interval stale (a
			// token a timed-out command took on Redis is lost to the fleet, so it may be fewer)
			assertThat(retries).isBetween(1, 6 + 3);
		})));
	}

	@Test
	void valuesTheFleetDidNotWriteThrowNothingIntoARequestAndOnlyTheirKeysFallBack() throws Exception {
		redis.command("SET", "{" + this.prefix + "}:budget:default", "garbage");
		redis.command("HSET", "{" + this.prefix + "}:budget:global", "t", "NaN", "at", "1");
		redis.command("HSET", cooldownKey(), "not", "a string");
		redis.command("SET", "{" + this.prefix + "}:members:instances", "12abc");
		for (int i = 0; i < 6; i++) {
			this.provider.script("/g/" + i, Reply.status(503).retryAfter("0"), Reply.ok());
		}
		this.instance.run((context) -> {
			RedisFleet fleet = onRedis(context);
			RestClient client = client(context);
			for (int i = 0; i < 6; i++) {
				assertThat(status(client, "/g/" + i)).isEqualTo(200);
			}
			assertThat(this.provider.requests("/g/0")).isEqualTo(2);
			// each of the four keys fell back once, counted; the fleet itself stayed on Redis
			await().atMost(Duration.ofSeconds(1)).until(() -> fleet.keyFallbacks() >= 4);
			assertThat(fleet.keyFallbacks()).isEqualTo(4);
			assertThat(fleet.fallbacks()).isZero();
			assertThat(fleet.state()).isEqualTo(RedisFleet.State.REDIS);
			// and the values are left alone
			assertThat(redis.command("GET", "{" + this.prefix + "}:budget:default")).contains("garbage");
			// once the keys are gone the fleet writes them again
			redis.command("DEL", "{" + this.prefix + "}:budget:default", "{" + this.prefix + "}:budget:global",
					cooldownKey(), "{" + this.prefix + "}:members:instances");
			await().atMost(Duration.ofSeconds(1))
				.until(() -> redis.command("TYPE", "{" + this.prefix + "}:members:instances").startsWith("+zset"));
			RetryBudget budget = context.getBean(RetryBudget.class);
			await().atMost(Duration.ofSeconds(1)).until(() -> {
				budget.tryAcquire("default");
				return redis.command("TYPE", "{" + this.prefix + "}:budget:default").startsWith("+hash");
			});
		});
	}

	private String cooldownKey() {
		return "{" + this.prefix + "}:cooldown:default";
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

	private static RedisFleet onRedis(AssertableApplicationContext context) {
		RedisFleet fleet = context.getBean(RedisFleet.class);
		await().atMost(Duration.ofSeconds(10)).until(fleet::onRedis);
		return fleet;
	}

}
