package io.github.retryafter.boot;

import java.util.List;
import java.util.function.Function;

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
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30 item 3 and issue 29 item 3 on loopback, through each client kind: with {@code retry-refused-requests} a
 * {@code POST} without a key refused with {@code 429} is sent again, the server seeing two identical bodies, each
 * attempt numbered in the attempt header; a {@code POST} answered {@code 500} is sent once, even with 500 retryable.
 */
class RefusedRequestsLoopbackTests {

	private static final String ATTEMPT_HEADER = "x-stainless-retry-count";

	private static final String BODY = "{\"model\":\"gpt\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

	private final FlakyProvider provider = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.clock)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(OkHttpClient.Builder.class, OkHttpClient.Builder::new)
		// Retry-After: 0 with exact hints: the reactive filter waits on its own scheduler, so nothing waits here
		.withPropertyValues("retry.after.hint-mode=exact", "retry.after.retryable-statuses=429,500,503",
				"retry.after.attempt-header=" + ATTEMPT_HEADER);

	@AfterEach
	void stop() {
		this.provider.close();
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void aPostRefusedWith429IsSentAgainWithTheSameBodyAndItsAttemptNumbered(Client client) {
		this.provider.script("/v1/chat/completions", Reply.status(429).retryAfter("0"), Reply.ok());
		this.contextRunner.withPropertyValues("retry.after.retry-refused-requests=true").run((context) -> {
			assertThat(client.post(context, this.provider.baseUrl() + "/v1/chat/completions")).isEqualTo(200);
			List<RecordedRequest> seen = this.provider.recorded();
			assertThat(seen).extracting(RecordedRequest::getMethod).containsExactly("POST", "POST");
			assertThat(seen).extracting((request) -> request.getBody().utf8()).containsExactly(BODY, BODY);
			assertThat(seen).extracting((request) -> request.getHeaders().get(ATTEMPT_HEADER)).containsExactly("0", "1");
			assertThat(seen).extracting((request) -> request.getHeaders().get("Idempotency-Key")).containsOnlyNulls();
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void aPostAnswered500IsSentOnceEvenWithRefusalsRetried(Client client) {
		this.provider.script("/v1/chat/completions", Reply.status(500).retryAfter("0"), Reply.ok());
		this.contextRunner.withPropertyValues("retry.after.retry-refused-requests=true").run((context) -> {
			assertThat(client.post(context, this.provider.baseUrl() + "/v1/chat/completions")).isEqualTo(500);
			assertThat(this.provider.requests("/v1/chat/completions")).isEqualTo(1);
		});
	}

	@ParameterizedTest
	@EnumSource(Client.class)
	void withoutTheRuleAPostRefusedWith429IsSentOnce(Client client) {
		this.provider.script("/v1/chat/completions", Reply.status(429).retryAfter("0"), Reply.ok());
		this.contextRunner.run((context) -> {
			assertThat(client.post(context, this.provider.baseUrl() + "/v1/chat/completions")).isEqualTo(429);
			assertThat(this.provider.requests("/v1/chat/completions")).isEqualTo(1);
			assertThat(this.provider.recorded().get(0).getHeaders().get(ATTEMPT_HEADER)).isEqualTo("0");
		});
	}

	/** The client kinds the starter retries under, each posting {@link #BODY} and answering the final status. */
	enum Client {

		REST_CLIENT((context) -> (url) -> context.getBean(RestClient.Builder.class).build().post().uri(url)
			.body(BODY)
			.exchange((request, response) -> response.getStatusCode().value())),

		WEB_CLIENT((context) -> (url) -> context.getBean(WebClient.Builder.class).build().post().uri(url)
			.bodyValue(BODY)
			.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.block(java.time.Duration.ofSeconds(10))),

		OK_HTTP((context) -> (url) -> {
			OkHttpClient client = context.getBean(OkHttpClient.Builder.class).build();
			Request request = new Request.Builder().url(url)
				.post(RequestBody.create(BODY, MediaType.get("application/json")))
				.build();
			try (Response response = client.newCall(request).execute()) {
				return response.code();
			}
		});

		private final Function<AssertableApplicationContext, Poster> poster;

		Client(Function<AssertableApplicationContext, Poster> poster) {
			this.poster = poster;
		}

		int post(AssertableApplicationContext context, String url) throws Exception {
			assertThat(context).hasNotFailed();
			return this.poster.apply(context).post(url);
		}

	}

	@FunctionalInterface
	interface Poster {

		int post(String url) throws Exception;

	}

}
