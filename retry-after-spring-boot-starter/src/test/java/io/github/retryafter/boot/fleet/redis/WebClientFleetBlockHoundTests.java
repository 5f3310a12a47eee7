package io.github.retryafter.boot.fleet.redis;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.AttemptKind;
import io.github.retryafter.engine.RetryListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * With BlockHound installed, the WebClient path with the fleet on Redis: every retry is decided on a Reactor thread
 * (a parallel timer or a Reactor Netty event loop), and none of them waits on Redis. BlockHound stays installed for
 * the life of the JVM, so this class runs in its own Surefire execution ({@code blockhound}, with
 * {@code -XX:+AllowRedefinitionToAddDeleteMethods}); in any other JVM it is skipped.
 */
class WebClientFleetBlockHoundTests {

	private static final String FLAG = "-XX:+AllowRedefinitionToAddDeleteMethods";

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private final FlakyProvider provider = new FlakyProvider();

	private final List<Boolean> retriesOnNonBlockingThreads = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withBean(RetryListener.class, () -> new RetryListener() {

			@Override
			public void onAttempt(AttemptEvent event) {
				if (event.kind() == AttemptKind.RETRY) {
					WebClientFleetBlockHoundTests.this.retriesOnNonBlockingThreads
						.add(Schedulers.isInNonBlockingThread());
				}
			}

		})
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.providers.default.scope=provider", "retry.after.fleet.key-prefix=blockhound",
				// generous: a round trip on an event loop would be caught by BlockHound however fast Redis is
				"retry.after.fleet.command-timeout=1s", "retry.after.backoff.delay=10ms",
				"retry.after.backoff.max-delay=20ms", "retry.after.budget.capacity=5",
				"retry.after.budget.refill-per-second=0", "retry.after.budget.deposit-ratio=0");

	@BeforeAll
	static void installBlockHound() {
		Assumptions.assumeTrue(ManagementFactory.getRuntimeMXBean().getInputArguments().contains(FLAG),
				"BlockHound runs in the 'blockhound' Surefire execution, with " + FLAG);
		BlockHound.install();
	}

	@AfterEach
	void stopProvider() {
		this.provider.close();
	}

	@Test
	void blockHoundIsWatchingReactorThreads() {
		// Thread.yield() is on BlockHound's list of blocking calls and waits on no clock
		Mono<Void> sleeps = Mono.<Void>fromRunnable(Thread::yield).subscribeOn(Schedulers.parallel());
		assertThatThrownBy(() -> sleeps.block(Duration.ofSeconds(5))).hasStackTraceContaining("Blocking call");
	}

	@Test
	void retryDecisionsOnTheWebClientPathNeverWaitOnRedis() {
		for (int i = 0; i < 8; i++) {
			this.provider.script("/w/" + i, Reply.status(503), Reply.ok());
		}
		this.provider.script("/spent", Reply.status(503), Reply.status(503), Reply.ok());
		this.contextRunner.run((context) -> {
			RedisFleet fleet = context.getBean(RedisFleet.class);
			await().atMost(Duration.ofSeconds(10)).until(fleet::onRedis);
			WebClient client = context.getBean(WebClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			for (int i = 0; i < 8; i++) {
				assertThat(status(client, "/w/" + i)).isEqualTo(200);
			}
			assertThat(this.retriesOnNonBlockingThreads).hasSize(8).containsOnly(true);
			assertThat(fleet.fallbacks()).isZero();
			assertThat(fleet.state()).isEqualTo(RedisFleet.State.REDIS);
			// the tokens those retries took locally reached Redis from the background thread
			assertThat(status(client, "/spent")).isEqualTo(200);
			await().atMost(Duration.ofSeconds(2))
				.until(() -> redis.command("HGET", "{blockhound}:budget:default", "t").contains("4"));
		});
	}

	private static int status(WebClient client, String path) {
		return client.get()
			.uri(path)
			.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.block(Duration.ofSeconds(10));
	}

}
