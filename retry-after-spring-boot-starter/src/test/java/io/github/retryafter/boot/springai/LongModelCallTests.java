package io.github.retryafter.boot.springai;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.ReflectionTestUtils;

import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterSpringAiAutoConfiguration;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A model call is long: under Spring AI's model clients the starter never ends an attempt before the client itself
 * would. The model answers inside the starter's interceptor on a fake clock, after the time a completion takes, or
 * fails as OkHttp's read timeout would if the attempt's read timeout is shorter; nothing waits for real. Before the
 * starter kept the client's timeouts, a 15 s completion failed at the 10 s attempt timeout, and a 35 s one at the 30 s
 * deadline even with {@code attempt-timeout: 120s}.
 */
class LongModelCallTests {

	/** What {@code spring.ai.openai.timeout} is unless set: the OpenAI client's connect, read, write and call timeout. */
	private static final Duration SPRING_AI_TIMEOUT = Duration.ofSeconds(60);

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withInitializer((context) -> new SpringAiRetryDefaults().postProcessEnvironment(context.getEnvironment(),
				new SpringApplication()))
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, RetryAfterSpringAiAutoConfiguration.class))
		.withBean(FakeClock.class, () -> this.clock);

	@Test
	void aFifteenSecondCompletionSucceedsOnDefaults() {
		this.contextRunner.run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(15));
			assertThat(call(openAi(context, model))).isEqualTo(200);
			assertThat(model.readTimeouts).containsExactly((int) SPRING_AI_TIMEOUT.toMillis());
		});
	}

	@Test
	void aThirtyFiveSecondCompletionSucceedsOnDefaults() {
		this.contextRunner.run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(35));
			assertThat(call(openAi(context, model))).isEqualTo(200);
			assertThat(model.readTimeouts).containsExactly((int) SPRING_AI_TIMEOUT.toMillis());
		});
	}

	@Test
	void aThirtyFiveSecondCompletionSucceedsWithALongerAttemptTimeoutForEveryProvider() {
		this.contextRunner.withPropertyValues("retry.after.attempt-timeout=120s").run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(35));
			assertThat(call(openAi(context, model))).isEqualTo(200);
		});
	}

	@Test
	void aRetryAfterARefusalKeepsTheClientsOwnReadTimeoutToo() {
		this.contextRunner.run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(35)).refusedFirst();
			assertThat(call(openAi(context, model))).isEqualTo(200);
			// the retry is bounded by what is left of the 10-minute deadline, above the client's own 60 s
			assertThat(model.readTimeouts).containsExactly((int) SPRING_AI_TIMEOUT.toMillis(),
					(int) SPRING_AI_TIMEOUT.toMillis());
		});
	}

	@Test
	void theDeadlineInForceForAModelProviderFitsALongCompletion() {
		this.contextRunner.run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			for (String provider : List.of("openai", "anthropic")) {
				assertThat(providers.get(provider).orElseThrow().policy().deadline()).as(provider)
					.isGreaterThan(Duration.ofSeconds(35));
			}
		});
	}

	@Test
	void anAnthropicAttemptKeepsTheClientsOwnReadTimeout() {
		this.contextRunner.run((context) -> {
			SpringAiAnthropicHttpClient.Builder builder = SpringAiAnthropicHttpClient.builder()
				.backend(com.anthropic.backends.AnthropicBackend.builder().apiKey("test-key").build());
			context.getBean(AnthropicHttpClientBuilderCustomizer.class).customize(builder);
			// its accessor is package-private: the client it built is read as the model would use it
			OkHttpClient anthropic = (OkHttpClient) ReflectionTestUtils.getField(builder.build(), "okHttpClient");
			Completion model = new Completion(Duration.ofSeconds(15));
			assertThat(call(anthropic.newBuilder().addInterceptor(model).build())).isEqualTo(200);
			assertThat(model.readTimeouts).containsExactly(anthropic.readTimeoutMillis());
		});
	}

	@Test
	void anAttemptTimeoutSetForTheProviderIsTheUsersChoiceAndBoundsTheAttempt() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.attempt-timeout=5s").run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(15));
			OkHttpClient client = openAi(context, model);
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> call(client));
			assertThat(model.readTimeouts).containsExactly(5000);
		});
	}

	@Test
	void aProviderWithoutAModelProfileHasItsReadTimeoutLoweredToTheAttemptTimeoutAsBefore() {
		this.contextRunner.run((context) -> {
			Completion model = new Completion(Duration.ofSeconds(15));
			OkHttpClient client = context.getBean(RetryAfterOkHttp.class)
				.apply(new OkHttpClient.Builder().readTimeout(SPRING_AI_TIMEOUT))
				.addInterceptor(model)
				.build();
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> call(client));
			assertThat(model.readTimeouts).containsExactly(10_000);
		});
	}

	/** Spring AI's OpenAI client as its auto-configuration builds it, the model inside the starter's interceptors. */
	private static OkHttpClient openAi(AssertableApplicationContext context, Completion model) {
		SpringAiOpenAiHttpClient.Builder builder = SpringAiOpenAiHttpClient.builder().timeout(SPRING_AI_TIMEOUT);
		context.getBean(OpenAiHttpClientBuilderCustomizer.class).customize(builder);
		return builder.build().getOkHttpClient().newBuilder().addInterceptor(model).build();
	}

	/** A chat completion: a POST the starter does not repeat once it may have been processed. */
	private static int call(OkHttpClient client) throws IOException {
		Request request = new Request.Builder().url("https://api.openai.com/v1/chat/completions")
			.post(RequestBody.create("{\"model\":\"m\"}", MediaType.get("application/json")))
			.build();
		try (Response response = client.newCall(request).execute()) {
			return response.code();
		}
	}

	/**
	 * The model, inside the starter's interceptor: it answers {@code 200} once the completion's time has passed on the
	 * fake clock, or, when the attempt's read timeout is shorter, fails as OkHttp does when no byte arrives within it
	 * (a completion that is not streamed sends nothing until it is done). Records each attempt's read timeout.
	 */
	private final class Completion implements Interceptor {

		private final Duration takes;

		final List<Integer> readTimeouts = new CopyOnWriteArrayList<>();

		private boolean refuseFirst;

		Completion(Duration takes) {
			this.takes = takes;
		}

		/** The first attempt is refused at once, {@code 429} with {@code retry-after: 1}, as a rate limit does. */
		Completion refusedFirst() {
			this.refuseFirst = true;
			return this;
		}

		@Override
		public Response intercept(Chain chain) throws IOException {
			this.readTimeouts.add(chain.readTimeoutMillis());
			if (this.refuseFirst && this.readTimeouts.size() == 1) {
				return new Response.Builder().request(chain.request())
					.protocol(Protocol.HTTP_1_1)
					.code(429)
					.message("Too Many Requests")
					.header("retry-after", "1")
					.body(ResponseBody.create("{}", MediaType.get("application/json")))
					.build();
			}
			Duration read = Duration.ofMillis(chain.readTimeoutMillis());
			if (!read.isZero() && this.takes.compareTo(read) > 0) {
				LongModelCallTests.this.clock.advance(read);
				throw new SocketTimeoutException("timeout");
			}
			LongModelCallTests.this.clock.advance(this.takes);
			return new Response.Builder().request(chain.request())
				.protocol(Protocol.HTTP_1_1)
				.code(200)
				.message("OK")
				.body(ResponseBody.create("{\"choices\":[]}", MediaType.get("application/json")))
				.build();
		}

	}

}
