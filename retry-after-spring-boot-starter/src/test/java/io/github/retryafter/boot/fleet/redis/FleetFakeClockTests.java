package io.github.retryafter.boot.fleet.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fake-clock recipe of docs/testing-with-a-fixed-clock.md with the fleet store on (issue 31): the application's
 * clock is a {@link FakeClock} while Redis keeps its own real clock, and a test still sees exactly the waits it would
 * see without the fleet. Before, the instance read its own cooldown back from Redis against the advanced fake clock and closed its
 * gate again, and the gate's 10 ms holds while the fleet picked its prober ran the fake clock on for as long as
 * Redis took to answer: {@code [3.375S, 0.01S, 0.01S, 2.99S, ...]} for one wait of 3.375 s, and under load the
 * fake deadline ran out.
 */
class FleetFakeClockTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private final FlakyProvider provider = new FlakyProvider();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withBean(FakeClock.class, FakeClock::create)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> new RetryListener() {

			// the fake sleeper returns at once: hold the retry until the store's thread has pushed the cooldown, as
			// it would have over a real wait, so the instance reads its own cooldown back after the wait
			@Override
			public void onRetryScheduled(RetryScheduledEvent event) {
				await().atMost(Duration.ofSeconds(5))
					.until(() -> redis.command("EXISTS", "{fake-clock}:cooldown:quotes").startsWith(":1"));
			}

		})
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.fleet.key-prefix=fake-clock",
				"retry.after.fleet.flush-interval=10ms", "retry.after.providers.quotes.hosts=localhost");

	@AfterEach
	void stopProvider() {
		this.provider.close();
	}

	@Test
	void aTestWithTheFleetOnSeesTheSameWaitsAsWithoutIt() {
		this.provider.script("/quote", Reply.status(503).retryAfter("3"), Reply.ok(), Reply.status(503).retryAfter("1"),
				Reply.ok());
		this.runner.run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			assertThat(client.get().uri("/quote").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			// the store's thread syncs every 10 ms of real time: let it read the cooldown back a few times
			long until = System.nanoTime() + Duration.ofMillis(200).toNanos();
			while (System.nanoTime() - until < 0) {
				Thread.onSpinWait();
			}
			assertThat(client.get().uri("/quote").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			// 3 s + 0.375 s of jitter, then 1 s + 0.125 s, on the fake clock, and nothing else: the fleet's answer to
			// who probes after the cooldown is waited for on real time (the caller may block), not slept on the fake
			assertThat(clock.sleeps()).containsExactly(Duration.ofMillis(3375), Duration.ofMillis(1125));
			assertThat(this.provider.requests("/quote")).isEqualTo(4);
		});
	}

}
