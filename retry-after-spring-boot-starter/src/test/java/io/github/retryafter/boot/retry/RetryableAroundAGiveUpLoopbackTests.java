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
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOuterRetryAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A Spring 7 {@code @Retryable} method around a {@code RestClient} call that retry-after gave up on. When the provider's
 * instant lies within its {@code max-wait} (retry-after ran out of attempts, {@code max-attempts: 1}), the method's
 * next attempt comes no earlier than it; when the provider asked for more than {@code max-wait} ({@code WAIT_TOO_LONG}:
 * 40 s against 30 s), nothing blocks for it and the caller gets the client's own {@code 429} with the instant on it.
 * Loopback server, fake clock: the wait is the fake clock's, and the server's second request is stamped with it.
 */
class RetryableAroundAGiveUpLoopbackTests {

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterOuterRetryAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class))
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
		this.server.script(refusal(3), RawHttpServer.Behaviour.ok());
		this.contextRunner.withPropertyValues("retry.after.max-attempts=1").run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			Instant start = clock.instant();
			assertThat(quotes.quote(this.server.uri().toString())).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
			List<Instant> calledAt = quotes.calledAt();
			assertThat(calledAt).hasSize(2);
			assertThat(Duration.between(calledAt.get(0), calledAt.get(1)))
				.as("the second call starts once the provider's 3 s have passed on the clock retry-after reads")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(3));
			assertThat(clock.sleeps()).as("the starter slept nothing (no attempt left); the predicate slept the 3 s")
				.containsExactly(Duration.ofSeconds(3));
			assertThat(clock.instant()).isEqualTo(start.plusSeconds(3));
		});
	}

	@Test
	void anInstantBeyondMaxWaitReachesTheCallerWithoutAWait() {
		this.server.script(refusal(40), RawHttpServer.Behaviour.ok());
		this.contextRunner.run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			Throwable thrown = catchThrowable(() -> quotes.quote(this.server.uri().toString()));
			assertThat(thrown).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(NotBefore.find(thrown)).map(NotBefore::remaining).contains(Duration.ofSeconds(40));
			assertThat(this.server.requests()).hasSize(1);
			assertThat(clock.sleeps()).as("WAIT_TOO_LONG: neither retry-after nor the predicate blocks for 40 s")
				.isEmpty();
		});
	}

	private static RawHttpServer.Behaviour refusal(int seconds) {
		return (out, connection) -> {
			out.write(("HTTP/1.1 429 Too Many Requests\r\nRetry-After: " + seconds + "\r\nContent-Length: 0\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		};
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

		// as docs/outer-retry-layers.md shows it: Spring's own 500-700 ms delay is real, the predicate's wait is fake
		@Retryable(predicate = NotBeforeRetryPredicate.class, maxRetries = 2, delay = 500, jitter = 200, timeout = 10_000)
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
