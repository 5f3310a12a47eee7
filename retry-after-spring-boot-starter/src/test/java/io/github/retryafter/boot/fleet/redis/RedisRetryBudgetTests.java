package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Scope;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.actuate.RetryAfterFleetHealthIndicator;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.metrics.RetryAfterFleetMetrics;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.SharedCooldown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fleet budget against a real {@code redis-server}: atomic on the server, shared by instances, batched deposits,
 * keys that expire, and a fallback within the command timeout when Redis is slow.
 */
class RedisRetryBudgetTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private final String prefix = "budget-test-" + fleets.incrementAndGet();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.providers.default.scope=provider", "retry.after.fleet.key-prefix=" + this.prefix,
				// generous, so that a busy machine's scheduling never turns a sharing test into a fallback test
				"retry.after.fleet.command-timeout=1s");

	@Test
	void backsOffUnlessTheStoreIsRedis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedisFleet.class);
				assertThat(context.getBean(RetryBudget.class)).isInstanceOf(TokenBucketRetryBudget.class);
			});
	}

	@Test
	void backsOffWithoutSpringDataRedis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedisFleet.class);
				assertThat(context.getBean(RetryBudget.class)).isInstanceOf(TokenBucketRetryBudget.class);
			});
	}

	@Test
	void needsNeitherMicrometerNorHealthOnTheClasspath() {
		this.contextRunner
			.withClassLoader(new FilteredClassLoader("io.micrometer", "org.springframework.boot.health"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RetryBudget.class)).isInstanceOf(FleetRetryBudget.class);
				assertThat(context).doesNotHaveBean(RetryAfterFleetMetrics.class);
				assertThat(context).doesNotHaveBean(RetryAfterFleetHealthIndicator.class);
				onRedis(context);
			});
	}

	@Test
	void replacesTheLocalBudgetAndKeysDefaultToTheApplicationName() {
		this.contextRunner.withPropertyValues("retry.after.fleet.key-prefix=", "spring.application.name=orders")
			.run((context) -> {
				assertThat(context).hasSingleBean(RetryBudget.class);
				assertThat(context.getBean(RetryBudget.class)).isInstanceOf(FleetRetryBudget.class);
				RedisFleet fleet = onRedis(context);
				assertThat(fleet.settings().keyPrefix()).isEqualTo("orders");
				assertThat(fleet.fleetStatus().state()).isEqualTo("REDIS");
			});
	}

	@Test
	void twoInstancesTakeFromOneBucketAndNeverMoreThanItHolds() {
		String[] small = { "retry.after.budget.capacity=5", "retry.after.budget.refill-per-second=0" };
		this.contextRunner.withPropertyValues(small).run((first) -> this.contextRunner.withPropertyValues(small)
			.run((second) -> {
				onRedis(first);
				onRedis(second);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				// both instances race for the five shared tokens from four threads
				AtomicInteger granted = new AtomicInteger();
				CompletableFuture<?>[] racers = new CompletableFuture<?>[4];
				for (int i = 0; i < racers.length; i++) {
					RetryBudget budget = (i % 2 == 0) ? a : b;
					racers[i] = CompletableFuture.runAsync(() -> {
						for (int n = 0; n < 10; n++) {
							if (budget.tryAcquire("default")) {
								granted.incrementAndGet();
							}
						}
					});
				}
				CompletableFuture.allOf(racers).get(10, TimeUnit.SECONDS);
				assertThat(granted).hasValue(5);
				assertThat(a.availableTokens("default")).isLessThan(1);
				await().atMost(Duration.ofSeconds(2)).until(() -> b.availableTokens("default") < 1);
				assertThat(onRedis(first).fallbacks()).isZero();
				assertThat(redis.command("HGET", "{" + this.prefix + "}:budget:default", "t")).contains("0");
			}));
	}

	@Test
	void onEventLoopsTwoInstancesLeaseTheBucketsTokensByDemandAndNeverMoreThanItHolds() {
		String[] small = { "retry.after.budget.capacity=2", "retry.after.budget.refill-per-second=0" };
		Scope scope = Scope.provider("default");
		this.contextRunner.withPropertyValues(small).run((first) -> this.contextRunner.withPropertyValues(small)
			.run((second) -> {
				RedisFleet fleet = onRedis(first);
				onRedis(second);
				await().atMost(Duration.ofSeconds(2)).until(() -> fleet.instances() == 2);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				// no round trip on an event loop: the first ask finds no token here and starts a lease
				assertThat(onEventLoop(() -> a.tryAcquire(scope))).isFalse();
				assertThat(a.pendingTokens(scope)).as("a lease is on its way: the retry waits").isPositive();
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> a.tryAcquire(scope)));
				// b leases what a does not hold: never more than the bucket's two tokens between them
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> b.tryAcquire(scope)));
				assertThat(onEventLoop(() -> a.tryAcquire(scope)) || onEventLoop(() -> b.tryAcquire(scope))).isFalse();
				assertThat(redis.command("HGET", "{" + this.prefix + "}:budget:default", "t")).contains("0");
				// a's retry succeeds: its token goes to a's pool at once, for a's next retry
				a.refund(scope);
				assertThat(onEventLoop(() -> a.tryAcquire(scope))).isTrue();
				// b's retry fails: its token stays spent, and with nothing in flight nor on lease b gives up
				b.settle(scope);
				a.settle(scope);
				await().atMost(Duration.ofSeconds(2)).until(() -> !onEventLoop(() -> b.tryAcquire(scope))
						&& b.pendingTokens(scope) == 0);
				assertThat(redis.command("HGET", "{" + this.prefix + "}:budget:default", "t")).contains("0");
			}));
	}

	@Test
	void aRetryThatFindsNoTokenAsksTheFleetBeforeItGivesUpSoTokensAnotherInstanceHoldsInFlightReachIt() {
		String[] small = { "retry.after.budget.capacity=2", "retry.after.budget.refill-per-second=0" };
		Scope scope = Scope.provider("default");
		this.contextRunner.withPropertyValues(small).run((first) -> this.contextRunner.withPropertyValues(small)
			.run((second) -> {
				RedisFleet fleet = onRedis(first);
				onRedis(second);
				await().atMost(Duration.ofSeconds(2)).until(() -> fleet.instances() == 2);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				// a's two retries lease the bucket's two tokens and are in flight
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> a.tryAcquire(scope)));
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> a.tryAcquire(scope)));
				// b has read the empty bucket, and has never asked what the fleet's members hold
				await().atMost(Duration.ofSeconds(2)).until(() -> b.availableTokens(scope) < 1);
				assertThat(onEventLoop(() -> b.tryAcquire(scope))).isFalse();
				assertThat(b.pendingTokens(scope)).as("a holds both tokens in flight: b's retry waits for them")
					.isPositive();
				// a's retries succeed: their tokens go back to the fleet, and b's waiting retry gets one
				a.refund(scope);
				a.refund(scope);
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> b.tryAcquire(scope)));
				assertThat(onEventLoop(() -> b.tryAcquire(scope)) && onEventLoop(() -> a.tryAcquire(scope)))
					.as("never more than the bucket's two tokens between them")
					.isFalse();
			}));
	}

	@Test
	void aRetryThatFindsNoTokenGivesUpWithinARoundTripOnceTheFleetHoldsNoneRatherThanWaitForItsDeadline() {
		String[] small = { "retry.after.budget.capacity=1", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0" };
		Scope scope = Scope.provider("default");
		this.contextRunner.withPropertyValues(small).run((first) -> this.contextRunner.withPropertyValues(small)
			.run((second) -> {
				RedisFleet fleet = onRedis(first);
				onRedis(second);
				await().atMost(Duration.ofSeconds(2)).until(() -> fleet.instances() == 2);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				assertThat(a.tryAcquire(scope)).isTrue();
				// a's retry fails: the fleet's only token is spent
				a.settle(scope);
				// b has not read what the others hold lately: it asks, and ends once the answer says nobody holds any
				assertThat(b.tryAcquire(scope)).isFalse();
				await().atMost(Duration.ofSeconds(1))
					.until(() -> !b.tryAcquire(scope) && b.pendingTokens(scope) == 0);
				assertThat(b.pendingTokens(scope)).as("the answer is known for a while: no round trip per ask").isZero();
			}));
	}

	@Test
	void aRetryThatFindsNoTokenWaitsForDepositsNotYetFlushedAndTheyGoOutAtOnceWhileTheFleetIsShort() {
		// a flush interval far longer than the test: deposits reach Redis only because the fleet is short of tokens
		String[] small = { "retry.after.budget.capacity=1", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0.5", "retry.after.fleet.flush-interval=1h" };
		Scope scope = Scope.provider("default");
		String key = "{" + this.prefix + "}:budget:default";
		this.contextRunner.withPropertyValues(small).run((first) -> this.contextRunner.withPropertyValues(small)
			.run((second) -> {
				onRedis(first);
				onRedis(second);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				// b joined second, so its heartbeat counted both (a counts again only at its next interval)
				await().atMost(Duration.ofSeconds(2)).until(() -> second.getBean(RedisFleet.class).instances() == 2);
				// a's retry takes the fleet's only token and fails: the bucket is empty and nobody holds a token
				assertThat(a.tryAcquire(scope)).isTrue();
				a.settle(scope);
				assertThat(redis.command("HGET", key, "t")).contains("0");
				// b reads the empty bucket, then two first attempts succeed on b: one token, not yet flushed
				await().atMost(Duration.ofSeconds(2)).until(() -> !onEventLoop(() -> b.tryAcquire(scope))
						&& b.availableTokens(scope) < 1);
				b.recordSuccess(scope);
				b.recordSuccess(scope);
				assertThat(b.pendingTokens(scope)).as("b's own deposits will pay for the retry: it waits").isPositive();
				await().atMost(Duration.ofSeconds(2)).until(() -> onEventLoop(() -> b.tryAcquire(scope)));
				// a first attempt that succeeds on a, with the fleet short, reaches Redis within a round trip
				a.recordSuccess(scope);
				a.recordSuccess(scope);
				await().atMost(Duration.ofSeconds(2)).until(() -> redis.command("HGET", key, "t").contains("1"));
				assertThat(a.tryAcquire(scope)).as("the deposit is a's next retry's token").isTrue();
			}));
	}

	private static boolean onEventLoop(java.util.concurrent.Callable<Boolean> decision) {
		return reactor.core.publisher.Mono.fromCallable(decision)
			.subscribeOn(reactor.core.scheduler.Schedulers.parallel())
			.block(Duration.ofSeconds(5));
	}

	@Test
	void aRefundNotYetFlushedIsTakenOverByTheNextRetryAndTheFleetsCountStaysExact() {
		// a flush interval far longer than the test: refunds stay with this instance until it ends
		String[] settings = { "retry.after.budget.capacity=2", "retry.after.budget.refill-per-second=0",
				"retry.after.fleet.flush-interval=1h" };
		this.contextRunner.withPropertyValues(settings).run((context) -> {
			onRedis(context);
			RetryBudget budget = context.getBean(RetryBudget.class);
			assertThat(budget.tryAcquire("default")).isTrue();
			assertThat(budget.tryAcquire("default")).isTrue();
			assertThat(budget.tryAcquire("default")).as("the fleet's two tokens are out").isFalse();
			budget.refund("default");
			assertThat(budget.availableTokens("default")).as("the unflushed refund counts").isEqualTo(1.0);
			assertThat(budget.tryAcquire("default")).as("the next retry takes the refund over").isTrue();
			assertThat(budget.tryAcquire("default")).isFalse();
			assertThat(redis.command("HGET", "{" + this.prefix + "}:budget:default", "t")).contains("0");
		});
	}

	@Test
	void aHugeHintClosesTheFleetForMaxCooldownAtMostAndTheResetOpensItForTheFleet() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RetryAfterEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=retryafter",
					"retry.after.pacing.max-cooldown=2s")
			.run((context) -> {
				onRedis(context);
				assertThat(context.getBean(SharedCooldown.class).cap("default")).contains(Duration.ofSeconds(2));
				RetryEngine engine = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().engine();
				RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.create());
				operation.beforeAttempt();
				long now = System.nanoTime();
				assertThat(operation.afterAttempt(new AttemptOutcome.Response(503,
						HeaderSource.of(Map.of("Retry-After", List.of("99999999999"))), now, now)))
					.isInstanceOfSatisfying(Decision.Stop.class,
							(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG));
				String key = "{" + this.prefix + "}:cooldown:default";
				await().atMost(Duration.ofSeconds(2)).until(() -> !redis.command("EXISTS", key).contains("0"));
				long ttl = Long.parseLong(redis.command("PTTL", key).trim().substring(1));
				assertThat(ttl).as("the cap plus one second at most").isBetween(1L, 3000L);
				context.getBean(RetryAfterEndpoint.class).reset("default", null);
				await().atMost(Duration.ofSeconds(2)).until(() -> redis.command("EXISTS", key).contains("0"));
				await().atMost(Duration.ofSeconds(2)).until(() -> engine.gate("default").cooldownRemaining().isZero());
			});
	}

	@Test
	void depositsFromFirstAttemptsAreBatchedAndReachTheOtherInstance() {
		String[] settings = { "retry.after.budget.capacity=4", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0.5", "retry.after.fleet.flush-interval=50ms" };
		this.contextRunner.withPropertyValues(settings).run((first) -> this.contextRunner.withPropertyValues(settings)
			.run((second) -> {
				onRedis(first);
				onRedis(second);
				RetryBudget a = first.getBean(RetryBudget.class);
				RetryBudget b = second.getBean(RetryBudget.class);
				for (int i = 0; i < 4; i++) {
					assertThat(a.tryAcquire("default")).isTrue();
				}
				assertThat(b.tryAcquire("default")).isFalse();
				// four successful first attempts on the first instance earn 4 × 0.5 = 2 tokens for the fleet
				for (int i = 0; i < 4; i++) {
					a.recordSuccess("default");
				}
				await().atMost(Duration.ofSeconds(1)).until(() -> b.availableTokens("default") >= 2);
				assertThat(b.tryAcquire("default")).isTrue();
				assertThat(b.tryAcquire("default")).isTrue();
				assertThat(b.tryAcquire("default")).isFalse();
			}));
	}

	@Test
	void theGlobalBucketCapsEveryProviderTogether() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.billing.hosts=billing.example.com",
					"retry.after.global-budget.capacity=3", "retry.after.global-budget.refill-per-second=0",
					"retry.after.budget.refill-per-second=0")
			.run((context) -> {
				onRedis(context);
				RetryBudget budget = context.getBean(RetryBudget.class);
				assertThat(budget.tryAcquire("default")).isTrue();
				assertThat(budget.tryAcquire("billing")).isTrue();
				assertThat(budget.tryAcquire("billing")).isTrue();
				assertThat(budget.tryAcquire("default")).isFalse();
				// the refused retry took nothing from its provider's bucket either
				assertThat(redis.command("HGET", "{" + this.prefix + "}:budget:default", "t")).contains("19");
				assertThat(budget.globalTokens()).isLessThan(1);
			});
	}

	@Test
	void keysExpireOnceTheFloorHasRefilledTheBucket() {
		this.contextRunner
			.withPropertyValues("retry.after.budget.capacity=2", "retry.after.budget.refill-per-second=1",
					"retry.after.global-budget.refill-per-second=10")
			.run((context) -> {
				onRedis(context);
				assertThat(context.getBean(RetryBudget.class).tryAcquire("default")).isTrue();
				String key = "{" + this.prefix + "}:budget:default";
				long ttl = Long.parseLong(redis.command("PTTL", key).trim().substring(1));
				// one token short at 1 token/s: full again in 1 s, the key lives 1 s more at most
				assertThat(ttl).isBetween(1L, 2000L);
				await().atMost(Duration.ofMillis(2500)).until(() -> redis.command("EXISTS", key).startsWith(":0"));
				assertThat(context.getBean(RetryBudget.class).availableTokens("default")).isEqualTo(2);
			});
	}

	@Test
	void aSlowRedisFallsBackWithinTheCommandTimeoutAndIsCounted() {
		this.contextRunner.withPropertyValues("retry.after.fleet.command-timeout=50ms",
				"retry.after.fleet.probe-interval=100ms")
			.run((context) -> {
				RedisFleet fleet = onRedis(context);
				RetryBudget budget = context.getBean(RetryBudget.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				context.getBean(RetryAfterFleetMetrics.class).bindTo(registry);
				CompletableFuture<String> sleeping = CompletableFuture.supplyAsync(() -> {
					try {
						return redis.command("DEBUG", "SLEEP", "0.4");
					}
					catch (IOException ex) {
						throw new IllegalStateException(ex);
					}
				});
				await().atMost(Duration.ofSeconds(1)).until(() -> !fleet.onRedis() || slow(budget));
				long started = System.nanoTime();
				assertThat(budget.tryAcquire("default")).isTrue();
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(50));
				assertThat(fleet.state()).isEqualTo(RedisFleet.State.LOCAL_FALLBACK);
				assertThat(fleet.fallbacks()).isEqualTo(1);
				assertThat(registry.get(RetryAfterFleetMetrics.FALLBACKS)
					.functionCounter()
					.count()).isEqualTo(1);
				sleeping.get(2, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(2)).until(fleet::onRedis);
				assertThat(fleet.fallbacks()).isEqualTo(1);
			});
	}

	@Test
	void theEndpointSaysHowManyInstancesTheFleetCountsAndWhichProvidersItShares() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RetryAfterEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=retryafter",
					"retry.after.providers.default.scope=origin",
					"retry.after.providers.billing.hosts=billing.example.com")
			.run((context) -> {
				onRedis(context);
				RetryAfterEndpoint.RetryAfterDescriptor shown = context.getBean(RetryAfterEndpoint.class).retryAfter();
				assertThat(shown.fleet().instances()).isEqualTo(1);
				// a named provider's state is the fleet's; the default provider's, kept per origin, is this instance's
				assertThat(shown.providers().get("billing").scope()).isEqualTo("PROVIDER");
				assertThat(shown.providers().get("billing").sharedByFleet()).isTrue();
				assertThat(shown.providers().get("default").scope()).isEqualTo("ORIGIN");
				assertThat(shown.providers().get("default").sharedByFleet()).isFalse();
			});
	}

	@Test
	void theEndpointAndHealthShowTheFleetAndHealthStaysUpOnTheLocalFallback() throws IOException {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RetryAfterEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=retryafter",
					"retry.after.fleet.probe-interval=1h")
			.run((context) -> {
				RedisFleet fleet = onRedis(context);
				RetryAfterEndpoint.FleetDescriptor shown = context.getBean(RetryAfterEndpoint.class).retryAfter().fleet();
				assertThat(shown.store()).isEqualTo("redis");
				assertThat(shown.state()).isEqualTo("REDIS");
				assertThat(shown.keyPrefix()).isEqualTo(this.prefix);
				assertThat(shown.fallbacks()).isZero();
				Health health = context.getBean(RetryAfterFleetHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("state", "REDIS");
				fleet.fallBack(new IllegalStateException("connection reset"));
				shown = context.getBean(RetryAfterEndpoint.class).retryAfter().fleet();
				assertThat(shown.state()).isEqualTo("LOCAL_FALLBACK");
				assertThat(shown.fallbacks()).isEqualTo(1);
				assertThat(shown.lastError()).isEqualTo("IllegalStateException: connection reset");
				health = context.getBean(RetryAfterFleetHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("state", "LOCAL_FALLBACK").containsEntry("fallbacks", 1L);
			});
	}

	/** Takes a token and reports whether that took longer than a healthy loopback round trip. */
	private static boolean slow(RetryBudget budget) {
		long started = System.nanoTime();
		budget.tryAcquire("default");
		long took = System.nanoTime() - started;
		// never longer than the 50 ms timeout, plus scheduling slack on a busy machine
		assertThat(Duration.ofNanos(took)).isLessThan(Duration.ofMillis(200));
		return took >= TimeUnit.MILLISECONDS.toNanos(40);
	}

	static RedisFleet onRedis(AssertableApplicationContext context) {
		RedisFleet fleet = context.getBean(RedisFleet.class);
		await().atMost(Duration.ofSeconds(5)).until(fleet::onRedis);
		return fleet;
	}

}
