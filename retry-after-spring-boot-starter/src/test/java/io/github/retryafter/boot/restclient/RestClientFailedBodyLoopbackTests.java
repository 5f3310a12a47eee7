package io.github.retryafter.boot.restclient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.boot.testing.RawHttpServer.Behaviour;
import io.github.retryafter.engine.Outcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failed body that trickles, against each request factory Spring Boot picks, on the real clock: the retry leaves
 * when its {@code Retry-After} is due, not when the server has finished trickling, and the failed response's
 * connection is closed, not pooled. Each case waits one real 1 s hint.
 */
class RestClientFailedBodyLoopbackTests {

	private static final Duration TRICKLE = Duration.ofMillis(200);

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		// no jitter: the retry is due exactly when the server's Retry-After says
		.withBean(RandomSource.class, () -> () -> 0.0)
		.withAllowBeanDefinitionOverriding(true);

	@AfterEach
	void stopServer() {
		this.server.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "jdk", "reactor", "http-components", "jetty" })
	void tricklingFailedBodyIsAbandonedWhenItsRetryIsDueAndItsConnectionClosed(String factory) {
		// 125 bytes at 1 byte / 200 ms: 25 s of trickling if the client read it all
		this.server.script(Behaviour.ok(), Behaviour.trickling503("1", 125, TRICKLE), Behaviour.ok());
		this.contextRunner.withPropertyValues("spring.http.clients.imperative.factory=" + factory).run((context) -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.server.uri().toString()).build();
			client.get().uri("/warm-up").retrieve().toBodilessEntity();
			AtomicReference<RetryOutcome> outcome = new AtomicReference<>();
			long start = System.nanoTime();
			ResponseEntity<String> response = client.get()
				.uri("/trickle")
				.attributes(RetryAfterAttributes.onOutcome(outcome::set))
				.retrieve()
				.toEntity(String.class);
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(response.getBody()).isEqualTo("ok");
			assertThat(outcome.get().outcome()).isEqualTo(Outcome.SUCCESS);
			assertThat(took).isBetween(Duration.ofSeconds(1), Duration.ofMillis(1800));
			List<RawHttpServer.Request> requests = this.server.requests();
			assertThat(requests).hasSize(3);
			RawHttpServer.Request failed = requests.get(1);
			RawHttpServer.Request retry = requests.get(2);
			Duration retriedAfter = Duration.ofNanos(retry.arrivedAt() - failed.arrivedAt());
			assertThat(retriedAfter).as("retry after the 1 s hint, not after the trickle")
				.isBetween(Duration.ofSeconds(1), Duration.ofMillis(1600));
			assertThat(retry.connection()).as("the failed response's connection is not reused")
				.isNotEqualTo(failed.connection());
			long closedAt = this.server.closedAt(failed.connection(), Duration.ofSeconds(1)).orElseThrow();
			assertThat(Duration.ofNanos(closedAt - failed.arrivedAt())).as("connection closed by the client")
				.isLessThan(Duration.ofMillis(1600));
			RawHttpServer.Connection trickled = this.server.connections().get(failed.connection() - 1);
			assertThat(trickled.bodyBytesWritten()).isLessThan(15);
		});
	}

}
