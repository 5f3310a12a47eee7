package io.github.retryafter.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.ollama.autoconfigure.OllamaApiAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.retry.autoconfigure.SpringAiRetryAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestTemplateAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterSpringAiAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.springai.SpringAiRetryDefaults;
import io.github.retryafter.boot.testing.ScriptedServer;
import io.github.retryafter.boot.testing.ScriptedServer.Answer;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.okhttp.RetryOutcomeException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Never worse than without the starter: the same loopback answers, with the starter's auto-configuration and without
 * it, reach the caller as the same exception (same type, same status, same body or message) for RestClient (with and
 * without a default status handler of the application's, added after the customizers as Spring AI adds its own, or by
 * a customizer), RestTemplate (with Spring's error handler, or the application's set on the builder or by a
 * customizer), WebClient, OkHttp and Spring AI's Ollama model; with the starter, what it gave up on carries the
 * hand-over (the outcome, and the instant when the provider named one) on that exception.
 * <p>
 * Spring AI's own retry is set to 0 retries in the runs without the starter: on its defaults it waits 2 s, 4 s, ... up
 * to 3 minutes between 11 attempts, and ends with the same exception as after its first (it rethrows the last).
 */
class NeverWorseMatrixTests {

	private static final String CHAT_OK = "{\"model\":\"m\",\"created_at\":\"2026-01-01T00:00:00Z\","
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":true,\"done_reason\":\"stop\"}";

	private final ScriptedServer server = new ScriptedServer(NeverWorseMatrixTests::answer);

	private final ApplicationContextRunner without = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestTemplateAutoConfiguration.class, WebClientAutoConfiguration.class,
				SpringAiRetryAutoConfiguration.class, OllamaApiAutoConfiguration.class,
				OllamaChatAutoConfiguration.class))
		.withBean(ToolCallingManager.class, () -> ToolCallingManager.builder().build())
		.withBean(OkHttpClient.Builder.class, OkHttpClient.Builder::new)
		.withPropertyValues("spring.http.clients.imperative.factory=jdk", "spring.ai.ollama.chat.model=m");

	private final ApplicationContextRunner with = this.without
		.withInitializer((context) -> new SpringAiRetryDefaults().postProcessEnvironment(context.getEnvironment(),
				new SpringApplication()))
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterRestTemplateAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, RetryAfterSpringAiAutoConfiguration.class))
		.withPropertyValues("retry.after.max-attempts=2", "retry.after.max-wait=10s",
				"retry.after.backoff.delay=10ms");

	@AfterEach
	void stop() {
		this.server.close();
	}

	/** What the loopback server answers, by the scenario's path segment. */
	private static Answer answer(ScriptedServer.Seen request) {
		String path = request.path();
		if (path.startsWith("/given-up")) {
			return Answer.of(503, "{\"error\":\"busy\"}", "Retry-After", "0");
		}
		if (path.startsWith("/too-long")) {
			return Answer.of(429, "{\"error\":\"slow down\"}", "Retry-After", "120");
		}
		if (path.startsWith("/bad")) {
			return Answer.of(400, "{\"error\":\"bad request\"}");
		}
		if (path.startsWith("/post-503")) {
			return Answer.of(503, "{\"error\":\"unavailable\"}", "Retry-After", "1");
		}
		return Answer.of(200, CHAT_OK);
	}

	/**
	 * The scenarios, and whether the starter hands over on what it ended. In this order because a refusal's hint closes
	 * the provider's gate for the requests after it (the {@code 429}'s 120 s for up to {@code max-wait}): the long one
	 * comes last.
	 */
	enum Scenario {

		BAD_400("GET", "/bad", false), GIVEN_UP_503("GET", "/given-up", true), CONNECTION_REFUSED("GET", null, true),
		POST_503_NOT_RETRIED("POST", "/post-503", true), TOO_LONG_429("GET", "/too-long", true);

		final String method;

		final String path;

		final boolean handsOver;

		Scenario(String method, String path, boolean handsOver) {
			this.method = method;
			this.path = path;
			this.handsOver = handsOver;
		}

	}

	@Test
	void restClientThrowsWhatItThrowsWithoutTheStarter() {
		assertSameEndings((context, scenario) -> restClient(context.getBean(RestClient.Builder.class), scenario));
	}

	@Test
	void restClientRunsTheApplicationsDefaultStatusHandlerAddedAfterTheCustomizers() {
		assertSameEndings((context, scenario) -> restClient(context.getBean(RestClient.Builder.class)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
				throw new AppStatusException(response.getStatusCode().value(), response.getBody().readAllBytes());
			}), scenario));
	}

	@Test
	void restClientRunsTheApplicationsDefaultStatusHandlerAddedByACustomizer() {
		RestClientCustomizer customizer = (builder) -> builder.defaultStatusHandler(HttpStatusCode::isError,
				(request, response) -> {
					throw new AppStatusException(response.getStatusCode().value(), response.getBody().readAllBytes());
				});
		assertSameEndings((runner) -> runner.withBean(RestClientCustomizer.class, () -> customizer),
				(context, scenario) -> restClient(context.getBean(RestClient.Builder.class), scenario));
	}

	@Test
	void aMutatedRestClientStillRunsAHandlerAddedToItsBuilder() {
		assertSameEndings((context, scenario) -> restClient(context.getBean(RestClient.Builder.class)
			.build()
			.mutate()
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
				throw new AppStatusException(response.getStatusCode().value(), response.getBody().readAllBytes());
			}), scenario));
	}

	@Test
	void restTemplateThrowsWhatItThrowsWithoutTheStarter() {
		assertSameEndings((context, scenario) -> restTemplate(context.getBean(RestTemplateBuilder.class), scenario));
	}

	@Test
	void restTemplateRunsTheApplicationsErrorHandlerSetOnTheBuilder() {
		assertSameEndings((context, scenario) -> restTemplate(
				context.getBean(RestTemplateBuilder.class).errorHandler(new AppErrorHandler()), scenario));
	}

	@Test
	void restTemplateRunsTheErrorHandlerACustomizerSets() {
		RestTemplateCustomizer customizer = (template) -> template.setErrorHandler(new AppErrorHandler());
		assertSameEndings((runner) -> runner.withBean(RestTemplateCustomizer.class, () -> customizer),
				(context, scenario) -> restTemplate(context.getBean(RestTemplateBuilder.class), scenario));
	}

	@Test
	void webClientSignalsWhatItSignalsWithoutTheStarter() {
		assertSameEndings((context, scenario) -> {
			String base = base(scenario);
			try {
				return context.getBean(WebClient.Builder.class)
					.baseUrl(base)
					.build()
					.method(HttpMethod.valueOf(scenario.method))
					.uri(path(scenario))
					.retrieve()
					.toBodilessEntity()
					.block();
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
	}

	@Test
	void okHttpAnswersWhatItAnswersWithoutTheStarter() {
		assertSameEndings((context, scenario) -> {
			OkHttpClient client = context.getBean(OkHttpClient.Builder.class).build();
			Request.Builder request = new Request.Builder().url(base(scenario) + path(scenario));
			if (scenario.method.equals("POST")) {
				request.post(RequestBody.create("{}", MediaType.get("application/json")));
			}
			try (Response response = client.newCall(request.build()).execute()) {
				return new OkHttpEnding(response.code(), response.body().string(),
						RetryOutcomeException.of(response).orElse(null));
			}
			catch (java.io.IOException ex) {
				return ex;
			}
		});
	}

	@Test
	void ollamaThrowsSpringAisOwnExceptionsAsWithoutTheStarter() {
		for (Scenario scenario : Scenario.values()) {
			Map<Boolean, Object> endings = new LinkedHashMap<>();
			for (boolean starter : new boolean[] { false, true }) {
				ApplicationContextRunner runner = (starter ? this.with : this.without)
					.withPropertyValues("spring.ai.ollama.base-url=" + base(scenario)
							+ ((scenario.path != null) ? scenario.path : ""));
				if (!starter) {
					runner = runner.withPropertyValues("spring.ai.retry.max-attempts=0");
				}
				runner.run((context) -> {
					assertThat(context).hasNotFailed();
					Object ending;
					try {
						ending = context.getBean(OllamaChatModel.class).call(new Prompt("hello"));
					}
					catch (RuntimeException ex) {
						ending = ex;
					}
					endings.put(starter, ending);
				});
			}
			assertSame(scenario, endings.get(false), endings.get(true), scenario.handsOver);
		}
	}

	private void assertSameEndings(Call call) {
		assertSameEndings(Function.identity(), call);
	}

	private void assertSameEndings(Function<ApplicationContextRunner, ApplicationContextRunner> runners, Call call) {
		Map<Scenario, Object> without = new LinkedHashMap<>();
		Map<Scenario, Object> with = new LinkedHashMap<>();
		runners.apply(this.without).run((context) -> {
			for (Scenario scenario : Scenario.values()) {
				without.put(scenario, call.end(context, scenario));
			}
		});
		runners.apply(this.with).run((context) -> {
			for (Scenario scenario : Scenario.values()) {
				with.put(scenario, call.end(context, scenario));
			}
		});
		for (Scenario scenario : Scenario.values()) {
			assertSame(scenario, without.get(scenario), with.get(scenario), scenario.handsOver);
		}
	}

	private static void assertSame(Scenario scenario, Object without, Object with, boolean handsOver) {
		assertThat(describe(with)).as(scenario + ": what the caller gets with the starter")
			.isEqualTo(describe(without));
		assertThat(handOver(without)).as(scenario + ": without the starter nothing is handed over").isFalse();
		assertThat(handOver(with)).as(scenario + ": the hand-over with the starter").isEqualTo(handsOver);
	}

	/** The type, and the status and body (or message) the caller reads: what must not change. */
	private static String describe(Object ending) {
		if (ending instanceof RestClientResponseException ex) {
			return ex.getClass().getName() + " " + ex.getStatusCode().value() + " " + ex.getResponseBodyAsString();
		}
		if (ending instanceof WebClientResponseException ex) {
			return ex.getClass().getName() + " " + ex.getStatusCode().value() + " " + ex.getResponseBodyAsString();
		}
		if (ending instanceof AppStatusException ex) {
			return ex.getClass().getName() + " " + ex.getMessage();
		}
		if (ending instanceof org.springframework.ai.retry.TransientAiException
				|| ending instanceof org.springframework.ai.retry.NonTransientAiException) {
			return ending.getClass().getName() + " " + ((Throwable) ending).getMessage();
		}
		if (ending instanceof Throwable ex) {
			Throwable root = ex;
			while (root.getCause() != null) {
				root = root.getCause();
			}
			return ex.getClass().getName() + " caused by " + root.getClass().getName();
		}
		if (ending instanceof OkHttpEnding response) {
			return "response " + response.status() + " " + response.body();
		}
		return "success";
	}

	/** Whether the ending carries the outcome retry-after ended on. */
	private static boolean handOver(Object ending) {
		if (ending instanceof OkHttpEnding response) {
			return response.outcome() != null;
		}
		if (!(ending instanceof Throwable thrown)) {
			return false;
		}
		List<Throwable> seen = new ArrayList<>();
		for (Throwable each = thrown; each != null && !seen.contains(each); each = each.getCause()) {
			seen.add(each);
			for (Throwable suppressed : each.getSuppressed()) {
				if (suppressed instanceof NotBefore.Carrier) {
					return true;
				}
			}
		}
		return false;
	}

	private Object restClient(RestClient.Builder builder, Scenario scenario) {
		try {
			return builder.baseUrl(base(scenario))
				.build()
				.method(HttpMethod.valueOf(scenario.method))
				.uri(path(scenario))
				.retrieve()
				.toBodilessEntity();
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private Object restTemplate(RestTemplateBuilder builder, Scenario scenario) {
		try {
			return builder.rootUri(base(scenario))
				.build()
				.exchange(path(scenario), HttpMethod.valueOf(scenario.method), null, Void.class);
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private String base(Scenario scenario) {
		return (scenario == Scenario.CONNECTION_REFUSED) ? REFUSING : this.server.baseUrl();
	}

	private static String path(Scenario scenario) {
		return (scenario.path != null) ? scenario.path : "/refused";
	}

	private static final String REFUSING = ScriptedServer.refusingBaseUrl();

	@FunctionalInterface
	interface Call {

		Object end(ApplicationContext context, Scenario scenario) throws Exception;

	}

	/** What an OkHttp call answered: its status, its body, and the outcome tagged on it. */
	record OkHttpEnding(int status, String body, RetryOutcomeException outcome) {
	}

	/** An application's own error handler for a {@code RestTemplate}: its own exception for an error status. */
	static final class AppErrorHandler implements ResponseErrorHandler {

		@Override
		public boolean hasError(org.springframework.http.client.ClientHttpResponse response)
				throws java.io.IOException {
			return response.getStatusCode().isError();
		}

		@Override
		public void handleError(java.net.URI url, HttpMethod method,
				org.springframework.http.client.ClientHttpResponse response) throws java.io.IOException {
			throw new AppStatusException(response.getStatusCode().value(), response.getBody().readAllBytes());
		}

	}

	/** An application's own exception for an error status, thrown by its default status handler. */
	static final class AppStatusException extends RuntimeException {

		AppStatusException(int status, byte[] body) {
			super(status + " " + new String(body, java.nio.charset.StandardCharsets.UTF_8));
		}

	}

}
