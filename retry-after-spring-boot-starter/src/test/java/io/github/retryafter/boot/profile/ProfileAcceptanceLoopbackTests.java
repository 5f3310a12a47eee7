package io.github.retryafter.boot.profile;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.test.scheduler.VirtualTimeScheduler;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.boot.testing.VendorServer;
import io.github.retryafter.boot.testing.VendorServer.Answer;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30's acceptance for profiles, on loopback through each client the starter retries under (RestClient,
 * WebClient, OkHttp), asserting what the server saw and how long the client waited. RestClient and OkHttp wait on a
 * fake clock; WebClient on Reactor's virtual time, stepped while a call is pending; nothing waits out a hint for real.
 * Each acceptance line is checked under the profile that reads the field and, where it changes anything, against
 * {@code standard}, which must behave as before profiles.
 */
class ProfileAcceptanceLoopbackTests {

	private static final String BODY = "{\"model\":\"m\",\"input\":\"hi\"}";

	private final VendorServer server = new VendorServer();

	private final FakeClock clock = FakeClock.create();

	private final VirtualTimeScheduler virtualTime = VirtualTimeScheduler.create();

	private final RecordingListener events = new RecordingListener();

	private final ApplicationContextRunner base = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> this.events)
		.withBean(OkHttpClient.Builder.class, OkHttpClient.Builder::new)
		.withPropertyValues("retry.after.providers.vendor.hosts=" + this.server.host());

	@AfterEach
	void stop() {
		this.server.close();
		this.virtualTime.dispose();
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void retryAfterMsOf2500WithRetryAfter1WaitsAtLeast2500MsUnderOpenAiAndAzure(Client client) {
		for (String profile : List.of("openai", "azure")) {
			String path = "/" + profile + "/ms";
			this.server.script(path, Answer.of(429, "retry-after-ms", "2500", "Retry-After", "1"), Answer.of(200));
			run(client, profile, (context) -> {
				Duration start = elapsed(client);
				assertThat(send(client, context, "GET", path)).isEqualTo(200);
				assertThat(this.server.requests(path)).hasSize(2);
				assertThat(elapsed(client).minus(start)).isGreaterThanOrEqualTo(Duration.ofMillis(2500));
				assertThat(this.events.retries.get(this.events.retries.size() - 1).delay())
					.isGreaterThanOrEqualTo(Duration.ofMillis(2500));
			});
		}
		this.server.script("/standard/ms", Answer.of(429, "retry-after-ms", "2500", "Retry-After", "1"),
				Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "GET", "/standard/ms")).isEqualTo(200);
			// standard does not read retry-after-ms: the one-second Retry-After and its jitter
			assertThat(this.events.retries.get(this.events.retries.size() - 1).delay())
				.isBetween(Duration.ofSeconds(1), Duration.ofMillis(1500));
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void xShouldRetryFalseOnA503EndsAfterOneAttemptUnderOpenAiAndAnthropic(Client client) {
		for (String profile : List.of("openai", "anthropic")) {
			String path = "/" + profile + "/veto";
			this.server.script(path, Answer.of(503, "x-should-retry", "false"), Answer.of(200));
			run(client, profile, (context) -> {
				assertThat(send(client, context, "GET", path)).isEqualTo(503);
				assertThat(this.server.requests(path)).hasSize(1);
			});
		}
		this.server.script("/standard/veto", Answer.of(503, "x-should-retry", "false", "Retry-After", "0"),
				Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "GET", "/standard/veto")).isEqualTo(200);
			assertThat(this.server.requests("/standard/veto")).hasSize(2);
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void stripeShouldRetryTrueOnA409RetriesUnderStripe(Client client) {
		this.server.script("/stripe/conflict", Answer.of(409, "Stripe-Should-Retry", "true"), Answer.of(200));
		run(client, "stripe", (context) -> {
			assertThat(send(client, context, "GET", "/stripe/conflict")).isEqualTo(200);
			assertThat(this.server.requests("/stripe/conflict")).hasSize(2);
		});
		this.server.script("/standard/conflict", Answer.of(409, "Stripe-Should-Retry", "true"), Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "GET", "/standard/conflict")).isEqualTo(409);
			assertThat(this.server.requests("/standard/conflict")).hasSize(1);
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void anExhaustedRequestWindowOnA200HoldsTheNextRequestAtLeast1point5sUnderOpenAi(Client client) {
		String[] window = { "x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "1.5s" };
		this.server.script("/openai/window", Answer.of(200, window), Answer.of(200));
		run(client, "openai", (context) -> {
			// measured from before the first call: the hold runs from that response's receipt, which is later, while
			// WebClient's virtual time may step past the receipt before the first call is seen to complete
			Duration before = elapsed(client);
			assertThat(send(client, context, "GET", "/openai/window")).isEqualTo(200);
			assertThat(send(client, context, "GET", "/openai/window")).isEqualTo(200);
			assertThat(elapsed(client).minus(before)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
			assertThat(this.server.requests("/openai/window")).hasSize(2);
		});
		this.server.script("/standard/window", Answer.of(200, window), Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "GET", "/standard/window")).isEqualTo(200);
			Duration first = elapsed(client);
			assertThat(send(client, context, "GET", "/standard/window")).isEqualTo(200);
			assertThat(elapsed(client).minus(first)).isLessThan(Duration.ofMillis(1500));
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void anAnthropic529WithRetryAfter1RetriesUnderAnthropic(Client client) {
		this.server.script("/anthropic/overloaded", Answer.of(529, "retry-after", "1"), Answer.of(200));
		run(client, "anthropic", (context) -> {
			Duration start = elapsed(client);
			assertThat(send(client, context, "GET", "/anthropic/overloaded")).isEqualTo(200);
			assertThat(this.server.requests("/anthropic/overloaded")).hasSize(2);
			assertThat(elapsed(client).minus(start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		});
		this.server.script("/standard/overloaded", Answer.of(529, "retry-after", "1"), Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "GET", "/standard/overloaded")).isEqualTo(529);
			assertThat(this.server.requests("/standard/overloaded")).hasSize(1);
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void aPostRefusedWith429IsRetriedUnderEveryVendorProfileAndNotUnderStandard(Client client) {
		for (String profile : List.of("openai", "anthropic", "azure", "stripe", "github")) {
			String path = "/" + profile + "/post";
			this.server.script(path, Answer.of(429, "Retry-After", "1"), Answer.of(200));
			run(client, profile, (context) -> {
				assertThat(send(client, context, "POST", path)).as(profile).isEqualTo(200);
				List<RecordedRequest> seen = this.server.requests(path);
				assertThat(seen).as(profile).extracting(RecordedRequest::getMethod).containsExactly("POST", "POST");
				assertThat(seen).as(profile).extracting((request) -> request.getBody().utf8())
					.containsExactly(BODY, BODY);
			});
		}
		this.server.script("/standard/post", Answer.of(429, "Retry-After", "1"), Answer.of(200));
		run(client, "standard", (context) -> {
			assertThat(send(client, context, "POST", "/standard/post")).isEqualTo(429);
			assertThat(this.server.requests("/standard/post")).hasSize(1);
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void aGitHubSecondaryLimit403WithRetryAfterRetriesUnderGitHub(Client client) {
		this.server.script("/github/secondary", Answer.of(403, "Retry-After", "1", "x-ratelimit-remaining", "0"),
				Answer.of(200));
		run(client, "github", (context) -> {
			assertThat(send(client, context, "GET", "/github/secondary")).isEqualTo(200);
			assertThat(this.server.requests("/github/secondary")).hasSize(2);
		});
	}

	/** Runs the assertions in a context whose provider {@code vendor} has the profile, for the client's clock. */
	private void run(Client client, String profile, ContextAssertions assertions) {
		ApplicationContextRunner runner = this.base
			.withPropertyValues("retry.after.providers.vendor.profile=" + profile);
		if (client == Client.WEB_CLIENT) {
			runner = runner.withBean(Ticker.class, () -> () -> this.virtualTime.now(TimeUnit.NANOSECONDS))
				.withBean(VirtualTimeScheduler.class, () -> this.virtualTime)
				.withUserConfiguration(VirtualTimeFilterConfiguration.class);
		}
		else {
			runner = runner.withBean(Ticker.class, () -> this.clock).withBean(Sleeper.class, () -> this.clock);
		}
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertions.accept(context);
		});
	}

	private Duration elapsed(Client client) {
		return (client == Client.WEB_CLIENT) ? Duration.ofNanos(this.virtualTime.now(TimeUnit.NANOSECONDS))
				: this.clock.elapsed();
	}

	private int send(Client client, AssertableApplicationContext context, String method, String path)
			throws Exception {
		String url = this.server.url(path);
		boolean post = "POST".equals(method);
		switch (client) {
			case REST_CLIENT: {
				RestClient rest = context.getBean(RestClient.Builder.class).build();
				RestClient.RequestBodySpec request = rest.method(org.springframework.http.HttpMethod.valueOf(method))
					.uri(url);
				if (post) {
					request.body(BODY);
				}
				return request.exchange((req, response) -> response.getStatusCode().value());
			}
			case WEB_CLIENT: {
				WebClient web = context.getBean(WebClient.Builder.class).build();
				WebClient.RequestBodySpec request = web.method(org.springframework.http.HttpMethod.valueOf(method))
					.uri(url);
				CompletableFuture<Integer> call = ((post) ? request.bodyValue(BODY) : request)
					.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
					.toFuture();
				return stepUntilDone(call);
			}
			default: {
				OkHttpClient okHttp = context.getBean(OkHttpClient.Builder.class).build();
				Request request = new Request.Builder().url(url)
					.method(method, post ? RequestBody.create(BODY, MediaType.get("application/json")) : null)
					.build();
				try (Response response = okHttp.newCall(request).execute()) {
					return response.code();
				}
			}
		}
	}

	/**
	 * Steps virtual time 10 ms per couple of real milliseconds while the call is pending, so a wait ends on virtual
	 * time only; loopback I/O in between may add virtual time, never take it away, so waits are bounded from below.
	 */
	private int stepUntilDone(CompletableFuture<Integer> call) throws Exception {
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < giveUp) {
			try {
				// the call itself is what is waited on, a couple of real milliseconds at a time
				return call.get(2, TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				this.virtualTime.advanceTimeBy(Duration.ofMillis(10));
			}
		}
		return call.get(1, TimeUnit.SECONDS);
	}

	/** The client kinds the starter retries under. */
	enum Client {

		REST_CLIENT, WEB_CLIENT, OK_HTTP

	}

	@FunctionalInterface
	interface ContextAssertions {

		void accept(AssertableApplicationContext context) throws Exception;

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
