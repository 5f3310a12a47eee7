package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.fleet.FleetThreads;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Values the fleet reads back from Redis are bounded before this instance acts on them or keeps them, against a real
 * {@code redis-server} whose keys (or, where the script computes the value itself, whose replies) are tampered with:
 * a lease grant is never more than was asked, a members count out of range is not the fleet's size, and a cooldown
 * instant beyond the cap is cut before it is kept.
 */
class FleetReplyBoundsTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	/** A score no heartbeat's window ever trims: far later than Redis's now, in microseconds. */
	private static final String FAR_FUTURE_MICROS = "9000000000000000";

	private final String prefix = "reply-bounds-test-" + fleets.incrementAndGet();

	private final RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aLeaseGrantLargerThanAskedIsClampedToWhatWasAsked() throws IOException {
		// another member, so that a retry on an event loop leases its token rather than decide on this instance's share
		redis.command("ZADD", membersKey(), FAR_FUTURE_MICROS, "another-instance");
		// Redis computes the grant itself: the reply to the first lease that asks for tokens is rewritten on its way
		// back, as something impersonating Redis would, to a grant of 1e9 while the bucket is empty
		AtomicInteger faked = new AtomicInteger();
		RedisFleet fleet = fleet(Duration.ofHours(1), Duration.ofMillis(100), rewriting(FleetScript.LEASE, (values) -> {
			List<Object> reply = new ArrayList<>(values);
			reply.set(0, "1000000000".getBytes(StandardCharsets.US_ASCII));
			return reply;
		}, faked));
		// the starter's wiring: no round trip on Reactor's non-blocking threads
		FleetRetryBudget budget = FleetRetryBudget.builder(new RedisFleetStore(fleet))
			.global(new BudgetSettings(1000, 0, 0))
			.providers(Map.of("default", new BudgetSettings(1, 0, 0)))
			.ticker(Ticker.system())
			.mayBlock(FleetThreads.mayBlock(getClass().getClassLoader()))
			.build();
		await().atMost(Duration.ofSeconds(2)).until(() -> fleet.instances() == 2);
		// the bucket's only token is spent, and its retry failed: the bucket reads 0 tokens, and nobody holds one
		assertThat(budget.tryAcquire("default")).isTrue();
		budget.settle(Scope.provider("default"));
		// a retry on an event loop finds no token and asks the fleet for one: the reply says 1e9 were granted
		assertThat(onEventLoop(() -> budget.tryAcquire("default"))).isFalse();
		await().atMost(Duration.ofSeconds(2)).until(() -> faked.get() == 1 && budget.availableTokens("default") >= 1);
		int granted = onEventLoop(() -> {
			int count = 0;
			for (int i = 0; i < 100_000; i++) {
				if (budget.tryAcquire("default")) {
					count++;
				}
			}
			return count;
		});
		assertThat(granted).as("retries of 100,000 that got a token: the one token asked for, not 1e9").isEqualTo(1);
		fleet.close();
	}

	@Test
	void aMembersCountOutOfRangeIsIgnoredAndTheLastCountStands() throws IOException {
		// 20,000 members that never were, scored so that no heartbeat's window trims them
		redis.command("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('ZADD', KEYS[1], ARGV[2], 'ghost-' .. i) end",
				"1", membersKey(), "20000", FAR_FUTURE_MICROS);
		RedisFleet fleet = fleet(Duration.ofHours(1), Duration.ofHours(1), UnaryOperator.identity());
		FleetRetryBudget budget = FleetRetryBudget.builder(new RedisFleetStore(fleet))
			.global(new BudgetSettings(1000, 0, 0))
			.providers(Map.of("default", new BudgetSettings(10, 0, 0)))
			.ticker(Ticker.system())
			.build();
		// the heartbeat at the join counted the members: either 20,001 became the fleet's size, or it was refused
		await().atMost(Duration.ofSeconds(2)).until(() -> fleet.instances() != 1 || fleet.keyFallbacks() > 0);
		assertThat(fleet.instances()).as("the fleet's size").isEqualTo(1);
		// a reading of the bucket (9 tokens left), then Redis goes away: this instance's share is the whole bucket
		assertThat(budget.tryAcquire("default")).isTrue();
		fleet.fallBack(new IllegalStateException("connection reset"));
		int taken = 0;
		while (taken < 100 && budget.tryAcquire("default")) {
			taken++;
		}
		assertThat(taken).as("tokens taken locally of the 9 the bucket held").isEqualTo(9);
		fleet.close();
	}

	@Test
	void anOutOfRangeFleetCooldownNeitherSticksNorBlocksALaterGenuineOne() throws IOException {
		Duration cap = Duration.ofMillis(300);
		Sibling a = new Sibling(cap);
		Sibling b = new Sibling(cap);
		// the key is set to 9e18 µs (by hand, or by an instance with a far longer cap): each gate closes for the cap
		redis.command("SET", cooldownKey(), "9000000000000000000");
		await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(5))
			.until(() -> !a.remaining().isZero() && !b.remaining().isZero());
		assertThat(b.remaining()).as("closed for the cap at most").isLessThanOrEqualTo(cap);
		// the cap passes: the gates open, and reading the same value again closes them no more
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10))
			.until(() -> a.remaining().isZero() && b.remaining().isZero());
		await().during(Duration.ofMillis(150)).atMost(Duration.ofSeconds(1))
			.until(() -> a.remaining().isZero() && b.remaining().isZero());
		// a is told to come back in 250 ms: the fleet's cooldown closes b's gate too
		a.gate.closeUntil(System.nanoTime() + Duration.ofMillis(250).toNanos());
		a.cooldown.publish();
		await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(5)).until(() -> !b.remaining().isZero());
		a.fleet.close();
		b.fleet.close();
	}

	private RedisFleet fleet(Duration flushInterval, Duration probeInterval,
			UnaryOperator<RedisClusterAsyncCommands<byte[], byte[]>> wrapper) {
		var connection = this.client.connect(ByteArrayCodec.INSTANCE);
		RedisFleet fleet = new RedisFleet(() -> wrapper.apply(connection.async()), new RedisFleetSettings(this.prefix,
				Duration.ofSeconds(1), flushInterval, probeInterval, Duration.ofHours(1), 1));
		await().atMost(Duration.ofSeconds(5)).until(fleet::onRedis);
		return fleet;
	}

	/**
	 * Wraps the commands so that the reply of {@code script}'s first run that asks for tokens (its seventh argument,
	 * the tokens wanted, is not zero) is rewritten by {@code rewrite}; every other reply is Redis's own.
	 */
	@SuppressWarnings("unchecked")
	private static UnaryOperator<RedisClusterAsyncCommands<byte[], byte[]>> rewriting(FleetScript script,
			UnaryOperator<List<Object>> rewrite, AtomicInteger rewritten) {
		return (commands) -> (RedisClusterAsyncCommands<byte[], byte[]>) Proxy.newProxyInstance(
				FleetReplyBoundsTests.class.getClassLoader(), new Class<?>[] { RedisClusterAsyncCommands.class },
				(proxy, method, args) -> {
					Object result = invoke(commands, method, args);
					if (method.getName().equals("evalsha") && script.sha().equals(args[0]) && asks(args)
							&& rewritten.compareAndSet(0, 1)) {
						return rewrittenFuture((RedisFuture<List<Object>>) result, rewrite);
					}
					return result;
				});
	}

	private static boolean asks(Object[] args) {
		byte[][] values = (byte[][]) args[args.length - 1];
		return values.length > 6 && !"0".equals(new String(values[6], StandardCharsets.US_ASCII));
	}

	@SuppressWarnings("unchecked")
	private static RedisFuture<List<Object>> rewrittenFuture(RedisFuture<List<Object>> future,
			UnaryOperator<List<Object>> rewrite) {
		InvocationHandler handler = (proxy, method, args) -> {
			Object result = invoke(future, method, args);
			return method.getName().equals("get") ? rewrite.apply((List<Object>) result) : result;
		};
		return (RedisFuture<List<Object>>) Proxy.newProxyInstance(FleetReplyBoundsTests.class.getClassLoader(),
				new Class<?>[] { RedisFuture.class }, handler);
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private static <T> T onEventLoop(Callable<T> decision) {
		return Mono.fromCallable(decision).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
	}

	/** One instance: its link to the fleet, its gate for provider 'default', and the cooldown bridging them. */
	private final class Sibling {

		final RedisFleet fleet = fleet(Duration.ofMillis(50), Duration.ofMillis(100), UnaryOperator.identity());

		final ProviderGate gate = new ProviderGate("default", PacingSettings.DEFAULTS, Ticker.system());

		final SharedCooldown cooldown;

		Sibling(Duration cap) {
			this.cooldown = SharedCooldown.builder(new RedisFleetStore(this.fleet))
				.provider("default", cap, SharedCooldown.DEFAULT_PROBE_LEASE)
				.ticker(Ticker.system())
				.build();
			this.cooldown.attach((name) -> Optional.of(this.gate.fleet()));
		}

		Duration remaining() {
			return this.gate.cooldownRemaining();
		}

	}

	private String membersKey() {
		return "{" + this.prefix + "}:members:instances";
	}

	private String cooldownKey() {
		return "{" + this.prefix + "}:cooldown:default";
	}

}
