package io.github.retryafter.boot.pacing;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With no provider configured, every host falls into {@code default}, which keeps its state per origin: one loopback
 * server reached as {@code localhost} and as {@code 127.0.0.1} is two origins, so one's {@code Retry-After} never
 * pauses the other, and a cooldown never outlasts {@code max-cooldown} and ends with one probe. Both clients, on the
 * real clock (the only wait is a 1 s cooldown per test).
 */
class OriginScopeLoopbackTests {

	/** What a call answers when it ended with an exception (the operation refused it before sending). */
	private static final int NOT_SENT = -1;

	private static final ExecutorService CALLERS = Executors.newCachedThreadPool();

	private final FlakyProvider server = new FlakyProvider();

	private final ApplicationContextRunner restClients = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class));

	private final ApplicationContextRunner webClients = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class));

	@AfterEach
	void stop() {
		this.server.close();
	}

	private URI on(String host, String path) {
		return URI.create("http://" + host + ":" + this.server.uri("/").getPort() + path);
	}

	@Test
	void restClientAHostsHugeRetryAfterLeavesAnotherHostUntouched() {
		this.restClients.withPropertyValues("retry.after.deadline=20s")
			.run((context) -> hugeHintStaysWithItsHost(context, restCall(context)));
	}

	@Test
	void webClientAHostsHugeRetryAfterLeavesAnotherHostUntouched() {
		this.webClients.withPropertyValues("retry.after.deadline=20s")
			.run((context) -> hugeHintStaysWithItsHost(context, webCall(context)));
	}

	@Test
	void restClientAHostIsProbedOnceItsCooldownCapHasPassedAndTheOthersFollowTheAnswer() {
		this.restClients.withPropertyValues("retry.after.pacing.max-cooldown=1s")
			.run((context) -> probedAfterTheCap(restCall(context)));
	}

	@Test
	void webClientAHostIsProbedOnceItsCooldownCapHasPassedAndTheOthersFollowTheAnswer() {
		this.webClients.withPropertyValues("retry.after.pacing.max-cooldown=1s")
			.run((context) -> probedAfterTheCap(webCall(context)));
	}

	private void hugeHintStaysWithItsHost(AssertableApplicationContext context,
			BiFunction<URI, Void, CompletableFuture<Integer>> call) throws Exception {
		this.server.script("/a", Reply.status(503).retryAfter("99999999999"), Reply.ok());
		this.server.script("/b", Reply.ok());
		assertThat(call.apply(on("localhost", "/a"), null).get(10, TimeUnit.SECONDS)).isEqualTo(503);
		long started = System.nanoTime();
		assertThat(call.apply(on("127.0.0.1", "/b"), null).get(10, TimeUnit.SECONDS)).isEqualTo(200);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("sent at once").isLessThan(Duration.ofSeconds(2));
		assertThat(this.server.requests("/b")).isEqualTo(1);
		// host A itself cools down for max-cooldown (30 s), which the 20 s deadline cannot cover: refused, not sent
		assertThat(call.apply(on("localhost", "/a"), null).get(10, TimeUnit.SECONDS)).isEqualTo(NOT_SENT);
		assertThat(this.server.requests("/a")).isEqualTo(1);
		RetryAfterProviders.Provider defaults = context.getBean(RetryAfterProviders.class).get("default").orElseThrow();
		assertThat(defaults.activeGates()).singleElement()
			.satisfies((gate) -> assertThat(gate.scope().origin()).contains("http://localhost:" + on("x", "/").getPort()));
		assertThat(defaults.cooldownRemaining()).isLessThanOrEqualTo(Duration.ofSeconds(30)).isPositive();
	}

	private void probedAfterTheCap(BiFunction<URI, Void, CompletableFuture<Integer>> call) throws Exception {
		this.server.script("/a", Reply.status(503).retryAfter("99999999999"), Reply.ok().delayed(Duration.ofMillis(300)),
				Reply.ok());
		assertThat(call.apply(on("localhost", "/a"), null).get(10, TimeUnit.SECONDS)).isEqualTo(503);
		List<CompletableFuture<Integer>> calls = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			calls.add(call.apply(on("localhost", "/a"), null));
		}
		for (CompletableFuture<Integer> each : calls) {
			assertThat(each.get(10, TimeUnit.SECONDS)).isEqualTo(200);
		}
		List<Long> arrivals = this.server.arrivalNanos("/a");
		assertThat(arrivals).hasSize(5);
		long probe = arrivals.get(1);
		assertThat(Duration.ofNanos(probe - arrivals.get(0))).as("nothing before the 1 s cap")
			.isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		for (long other : arrivals.subList(2, 5)) {
			assertThat(Duration.ofNanos(other - probe)).as("the others after the probe's answer, 300 ms later")
				.isGreaterThanOrEqualTo(Duration.ofMillis(290));
		}
	}

	private static BiFunction<URI, Void, CompletableFuture<Integer>> restCall(AssertableApplicationContext context) {
		RestClient client = context.getBean(RestClient.Builder.class).build();
		return (uri, ignored) -> CompletableFuture.supplyAsync(() -> {
			try {
				return client.get()
					.uri(uri)
					.retrieve()
					.onStatus(HttpStatusCode::isError, (request, response) -> {
					})
					.toBodilessEntity()
					.getStatusCode()
					.value();
			}
			catch (RuntimeException ex) {
				return NOT_SENT;
			}
		}, CALLERS);
	}

	private static BiFunction<URI, Void, CompletableFuture<Integer>> webCall(AssertableApplicationContext context) {
		WebClient client = context.getBean(WebClient.Builder.class).build();
		return (uri, ignored) -> client.get()
			.uri(uri)
			.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.onErrorReturn(NOT_SENT)
			.toFuture();
	}

}
