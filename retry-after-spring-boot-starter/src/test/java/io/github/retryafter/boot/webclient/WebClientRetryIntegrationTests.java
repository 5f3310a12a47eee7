package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.scheduler.VirtualTimeScheduler;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The WebClient filter against a real server on loopback. Waits run on Reactor's virtual time: the test advances the
 * clock, so nothing waits out a Retry-After for real; only the loopback I/O itself takes real time.
 */
class WebClientRetryIntegrationTests {

	private final FlakyProvider provider = new FlakyProvider();

	private final RecordingListener events = new RecordingListener();

	private final VirtualTimeScheduler virtualTime = VirtualTimeScheduler.create();

	private final ApplicationContextRunner realTimeRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class));

	private final ApplicationContextRunner contextRunner = this.realTimeRunner
		.withBean(Ticker.class, () -> () -> this.virtualTime.now(TimeUnit.NANOSECONDS))
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> this.events)
		.withBean(VirtualTimeScheduler.class, () -> this.virtualTime)
		.withUserConfiguration(VirtualTimeFilterConfiguration.class);

	@AfterEach
	void stop() {
		this.provider.close();
		this.virtualTime.dispose();
	}

	@Test
	void retriesAfterTheServersDelayAndNotOneVirtualMillisecondEarlier() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		this.contextRunner.run((context) -> {
			WebClient client = client(context.getBean(WebClient.Builder.class));
			CompletableFuture<ResponseEntity<String>> call = client.get()
				.uri("/seconds")
				.retrieve()
				.toEntity(String.class)
				.toFuture();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == 1);
			// floor 3 s plus jitter 0.375 s: nothing may leave before 3.375 s of virtual time
			this.virtualTime.advanceTimeBy(Duration.ofMillis(3374));
			assertThat(call).isNotDone();
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			this.virtualTime.advanceTimeBy(Duration.ofMillis(1));
			assertThat(call.get(5, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/seconds")).isEqualTo(2);
			assertThat(this.events.retries.get(0).delay()).isEqualTo(Duration.ofMillis(3375));
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.SUCCESS);
		});
	}

	@Test
	void dateFormAgainstAServerFortySecondsFastWaitsSevenSeconds() {
		this.provider.clockOffset(Duration.ofSeconds(40))
			.script("/date", Reply.status(503).retryAfterDate(Duration.ofSeconds(7)), Reply.ok());
		this.contextRunner.withPropertyValues("retry.after.hint-mode=exact").run((context) -> {
			CompletableFuture<ResponseEntity<Void>> call = client(context.getBean(WebClient.Builder.class)).get()
				.uri("/date")
				.retrieve()
				.toBodilessEntity()
				.toFuture();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == 1);
			assertThat(this.events.retries.get(0).delay()).isEqualTo(Duration.ofSeconds(7));
			this.virtualTime.advanceTimeBy(Duration.ofSeconds(7));
			assertThat(call.get(5, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/date")).isEqualTo(2);
		});
	}

	@Test
	void cancellingDuringTheWaitSendsNoFurtherRequest() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		this.contextRunner.run((context) -> {
			Disposable subscription = client(context.getBean(WebClient.Builder.class)).get()
				.uri("/seconds")
				.retrieve()
				.toBodilessEntity()
				.subscribe();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == 1);
			subscription.dispose();
			this.virtualTime.advanceTimeBy(Duration.ofMinutes(1));
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.CANCELLED);
			assertThat(this.events.attempts).hasSize(1);
		});
	}

	@Test
	void closingTheApplicationCancelsPendingWaits() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		this.contextRunner.run((context) -> {
			CompletableFuture<ResponseEntity<Void>> call = client(context.getBean(WebClient.Builder.class)).get()
				.uri("/seconds")
				.retrieve()
				.toBodilessEntity()
				.toFuture();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == 1);
			context.getBean(RetryAfterOperations.class).close();
			await().atMost(Duration.ofSeconds(5)).until(call::isDone);
			this.virtualTime.advanceTimeBy(Duration.ofMinutes(1));
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.CANCELLED);
		});
	}

	@Test
	void clientErrorsAndUnkeyedPostsAreSentOnce() {
		this.provider.script("/e422", Reply.status(422));
		this.provider.script("/orders", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			WebClient client = client(context.getBean(WebClient.Builder.class));
			assertThat(client.get().uri("/e422").exchangeToMono((r) -> r.releaseBody().thenReturn(r.statusCode().value()))
				.block(Duration.ofSeconds(5))).isEqualTo(422);
			assertThat(client.post().uri("/orders").bodyValue("{}")
				.exchangeToMono((r) -> r.releaseBody().thenReturn(r.statusCode().value()))
				.block(Duration.ofSeconds(5))).isEqualTo(503);
			assertThat(this.provider.requests("/e422")).isEqualTo(1);
			assertThat(this.provider.requests("/orders")).isEqualTo(1);
		});
	}

	@Test
	void keyedCreateWhoseResponseIsLostIsHeldOnceByTheServer() {
		this.provider.script("/orders", Reply.status(201).creates().responseLost(), Reply.status(201).creates());
		this.contextRunner.withPropertyValues("retry.after.idempotency-key.enabled=true").run((context) -> {
			CompletableFuture<ResponseEntity<Void>> call = client(context.getBean(WebClient.Builder.class)).post()
				.uri("/orders")
				.bodyValue("{}")
				.retrieve()
				.toBodilessEntity()
				.toFuture();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == 1);
			this.virtualTime.advanceTimeBy(Duration.ofSeconds(1));
			assertThat(call.get(5, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(201);
			assertThat(this.provider.requests("/orders")).isEqualTo(2);
			String key = this.provider.recorded().get(0).getHeaders().get("Idempotency-Key");
			assertThat(this.provider.recorded().get(1).getHeaders().get("Idempotency-Key")).isEqualTo(key);
			assertThat(this.provider.records(key)).isEqualTo(1);
			assertThat(this.provider.totalRecords()).isEqualTo(1);
		});
	}

	@Test
	void failedAttemptsReleaseTheirConnections() {
		this.provider.script("/down", Reply.status(503).retryAfter("0"));
		this.provider.script("/ok", Reply.ok());
		this.realTimeRunner
			.withPropertyValues("retry.after.hint-mode=exact", "retry.after.max-attempts=3",
					"retry.after.budget.capacity=1000", "retry.after.global-budget.capacity=1000")
			.run((context) -> {
				ConnectionProvider pool = ConnectionProvider.builder("two")
					.maxConnections(2)
					.pendingAcquireTimeout(Duration.ofSeconds(3))
					.build();
				RetryAfterExchangeFilterFunction realTime = context.getBean(RetryAfterExchangeFilterFunction.class);
				WebClient client = WebClient.builder()
					.baseUrl(this.provider.baseUrl())
					.clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
					.filter(realTime)
					.build();
				List<Integer> statuses = Flux.range(0, 30)
					.flatMap((i) -> client.get().uri("/down").exchangeToMono((r) -> r.releaseBody().thenReturn(r.statusCode().value())), 4)
					.collectList()
					.block(Duration.ofSeconds(30));
				assertThat(statuses).hasSize(30).containsOnly(503);
				assertThat(this.provider.requests("/down")).isEqualTo(90);
				assertThat(client.get().uri("/ok").retrieve().toBodilessEntity().block(Duration.ofSeconds(5))
					.getStatusCode().value()).isEqualTo(200);
				pool.disposeLater().block(Duration.ofSeconds(5));
			});
	}

	private WebClient client(WebClient.Builder builder) {
		return builder.baseUrl(this.provider.baseUrl()).build();
	}

	@Configuration(proxyBeanMethods = false)
	static class VirtualTimeFilterConfiguration {

		@Bean
		RetryAfterExchangeFilterFunction virtualTimeFilter(RetryAfterOperations operations, Ticker ticker,
				VirtualTimeScheduler scheduler) {
			return new RetryAfterExchangeFilterFunction(operations, ticker, scheduler);
		}

	}

}
