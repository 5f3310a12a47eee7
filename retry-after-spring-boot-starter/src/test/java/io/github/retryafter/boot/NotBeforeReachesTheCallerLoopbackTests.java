package io.github.retryafter.boot;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

/**
 * Issue 30 item 4: when retry-after gives up on a failed response (here {@code WAIT_TOO_LONG}: the provider asks for
 * two minutes, the policy waits at most ten seconds), the exception the caller catches is still the client's own
 * ({@code TooManyRequests}, its body readable) and carries how the operation ended and the instant the provider
 * named, so an outer retry layer can honour it. Loopback, both Spring clients, nothing waited out.
 */
class NotBeforeReachesTheCallerLoopbackTests {

	private static final String REFUSAL = "{\"error\":\"slow down\"}";

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				WebClientAutoConfiguration.class))
		.withPropertyValues("retry.after.max-wait=10s", "spring.http.clients.imperative.factory=jdk");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "RestClient", "WebClient" })
	void aWaitTooLongReachesTheCallerOnTheClientsOwnException(String client) {
		this.server.script((out, connection) -> {
			out.write(("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\nContent-Type: application/json\r\n"
					+ "Content-Length: " + REFUSAL.length() + "\r\n\r\n" + REFUSAL)
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		});
		this.contextRunner.run((context) -> {
			Instant before = Instant.now();
			Throwable thrown = catchThrowable(() -> get(client, context));
			assertThat(thrown).isInstanceOfAny(HttpClientErrorException.TooManyRequests.class,
					WebClientResponseException.TooManyRequests.class);
			assertThat(this.server.requests()).hasSize(1);
			RetryAfterOutcomeException outcome = outcomeOn(thrown);
			assertThat(outcome.outcome().outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
			NotBefore notBefore = NotBefore.find(thrown).orElseThrow();
			assertThat(outcome.notBefore()).contains(notBefore);
			assertThat(notBefore.remaining()).isBetween(Duration.ofSeconds(119), Duration.ofSeconds(120));
			assertThat(notBefore.instant()).isCloseTo(before.plusSeconds(120), within(Duration.ofSeconds(3)));
			assertThat(outcome.getMessage()).contains("WAIT_TOO_LONG").contains("no request before");
			Map<String, String> body = (thrown instanceof RestClientResponseException rest)
					? rest.getResponseBodyAs(new ParameterizedTypeReference<Map<String, String>>() {
					}) : ((WebClientResponseException) thrown).getResponseBodyAs(
							new ParameterizedTypeReference<Map<String, String>>() {
							});
			assertThat(body).containsEntry("error", "slow down");
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "RestClient", "WebClient" })
	void aPlainNotFoundCarriesNothingMore(String client) {
		this.server.script((out, connection) -> {
			out.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
		});
		this.contextRunner.run((context) -> {
			Throwable thrown = catchThrowable(() -> get(client, context));
			assertThat(thrown).isInstanceOfAny(HttpClientErrorException.NotFound.class,
					WebClientResponseException.NotFound.class);
			// (Reactor may add its assembly trace as a suppressed exception of its own)
			assertThat(thrown.getSuppressed()).noneMatch(RetryAfterOutcomeException.class::isInstance);
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "RestClient", "WebClient" })
	void aRequestsOwnStatusHandlerStillDecides(String client) {
		this.server.script((out, connection) -> {
			out.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\nContent-Length: 0\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		});
		this.contextRunner.run((context) -> {
			Throwable thrown = catchThrowable(() -> {
				if (client.equals("RestClient")) {
					context.getBean(RestClient.Builder.class)
						.build()
						.get()
						.uri(this.server.uri())
						.retrieve()
						.onStatus((status) -> status.value() == 429, (request, response) -> {
							throw new IllegalStateException("mine");
						})
						.toBodilessEntity();
				}
				else {
					context.getBean(WebClient.Builder.class)
						.build()
						.get()
						.uri(this.server.uri())
						.retrieve()
						.onStatus((status) -> status.value() == 429,
								(response) -> reactor.core.publisher.Mono.error(new IllegalStateException("mine")))
						.toBodilessEntity()
						.block(Duration.ofSeconds(10));
				}
			});
			assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("mine");
		});
	}

	private static RetryAfterOutcomeException outcomeOn(Throwable thrown) {
		return java.util.Arrays.stream(thrown.getSuppressed())
			.filter(RetryAfterOutcomeException.class::isInstance)
			.map(RetryAfterOutcomeException.class::cast)
			.findFirst()
			.orElseThrow();
	}

	private void get(String client, ApplicationContext context) {
		if (client.equals("RestClient")) {
			context.getBean(RestClient.Builder.class).build().get().uri(this.server.uri()).retrieve().toBodilessEntity();
		}
		else {
			context.getBean(WebClient.Builder.class)
				.build()
				.get()
				.uri(this.server.uri())
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(10));
		}
	}

}
