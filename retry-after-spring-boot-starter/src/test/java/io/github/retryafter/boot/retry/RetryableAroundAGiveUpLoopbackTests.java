package io.github.retryafter.boot.retry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30's acceptance for {@code @Retryable}: a Spring 7 {@code @Retryable} method around a {@code RestClient}
 * call that retry-after gave up on ({@code WAIT_TOO_LONG}: the provider asks for 40 s, {@code max-wait} is 30 s)
 * makes its next attempt no earlier than the provider's instant. Loopback server, fake clock: the wait is the fake
 * clock's, and the server's second request is stamped with it.
 */
class RetryableAroundAGiveUpLoopbackTests {

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withBean(FakeClock.class, FakeClock::create)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withUserConfiguration(Service.class)
		.withPropertyValues("retry.after.max-wait=30s", "spring.http.clients.imperative.factory=jdk");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@Test
	void theNextAttemptComesNoEarlierThanTheProvidersInstant() {
		this.server.script((out, connection) -> {
			out.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 40\r\nContent-Length: 0\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		}, RawHttpServer.Behaviour.ok());
		this.contextRunner.run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			Instant start = clock.instant();
			assertThat(quotes.quote(this.server.uri().toString())).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
			List<Instant> calledAt = quotes.calledAt();
			assertThat(calledAt).hasSize(2);
			assertThat(Duration.between(calledAt.get(0), calledAt.get(1)))
				.as("the second call starts once the provider's 40 s have passed on the clock retry-after reads")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(40));
			assertThat(clock.sleeps()).as("the starter slept nothing (WAIT_TOO_LONG); the predicate slept the 40 s")
				.containsExactly(Duration.ofSeconds(40));
			assertThat(clock.instant()).isEqualTo(start.plusSeconds(40));
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class Service {

		@Bean
		Quotes quotes(RestClient.Builder builder, FakeClock clock) {
			return new Quotes(builder.build(), clock);
		}

	}

	static class Quotes {

		private final List<Instant> calledAt = new CopyOnWriteArrayList<>();

		private final RestClient client;

		private final FakeClock clock;


		Quotes(RestClient client, FakeClock clock) {
			this.client = client;
			this.clock = clock;
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, maxRetries = 2, delay = 0)
		public String quote(String url) {
			this.calledAt.add(this.clock.instant());
			return this.client.get().uri(url).retrieve().body(String.class);
		}

		// public, so the proxy @Retryable puts around this bean passes it to the instance that holds the list
		public List<Instant> calledAt() {
			return List.copyOf(this.calledAt);
		}

	}

}
