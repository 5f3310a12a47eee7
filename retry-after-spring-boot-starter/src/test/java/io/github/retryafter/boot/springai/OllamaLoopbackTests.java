package io.github.retryafter.boot.springai;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.ollama.autoconfigure.OllamaApiAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.ai.retry.autoconfigure.SpringAiRetryAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;

import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterSpringAiAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.ScriptedServer;
import io.github.retryafter.boot.testing.ScriptedServer.Answer;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

/**
 * Spring AI's Ollama chat model under the starter, end to end over loopback, on the starter's defaults: its requests
 * go to provider {@code ollama} (profile {@code ollama}) whatever its base URL, Spring AI's own retry is off, so the
 * starter is the one layer: a short outage answered {@code 503} + {@code Retry-After: 1} costs no call, no request
 * leaves before the instant it names, a refused connection costs {@code max-attempts} requests, and what the starter
 * gives up on reaches the caller as Spring AI's own {@link TransientAiException}, with the hand-over attached.
 */
class OllamaLoopbackTests {

	private static final String CHAT_OK = "{\"model\":\"m\",\"created_at\":\"2026-01-01T00:00:00Z\","
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":true,\"done_reason\":\"stop\"}";

	private static final Pattern CALL = Pattern.compile("call-(\\d+)");

	private ScriptedServer server;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withInitializer((context) -> new SpringAiRetryDefaults().postProcessEnvironment(context.getEnvironment(),
				new SpringApplication()))
		.withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, WebClientAutoConfiguration.class,
				SpringAiRetryAutoConfiguration.class, OllamaApiAutoConfiguration.class,
				OllamaChatAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				RetryAfterSpringAiAutoConfiguration.class))
		.withBean(ToolCallingManager.class, () -> ToolCallingManager.builder().build())
		.withPropertyValues("spring.http.clients.imperative.factory=jdk", "spring.ai.ollama.chat.model=m");

	@AfterEach
	void stop() {
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void tenCallsThroughAShortOutageAnsweredWithRetryAfterAllSucceed() throws Exception {
		AtomicLong outageStarted = new AtomicLong();
		Duration outage = Duration.ofMillis(1500);
		this.server = new ScriptedServer((request) -> {
			outageStarted.compareAndSet(0, request.arrivedAt());
			boolean down = request.arrivedAt() - outageStarted.get() < outage.toNanos();
			return down ? Answer.of(503, "{\"error\":\"server busy, please try again.\"}", "Retry-After", "1")
					: Answer.of(200, CHAT_OK);
		});
		this.contextRunner.withPropertyValues("spring.ai.ollama.base-url=" + this.server.baseUrl()).run((context) -> {
			OllamaChatModel model = context.getBean(OllamaChatModel.class);
			ExecutorService callers = Executors.newFixedThreadPool(10);
			try {
				List<Future<ChatResponse>> calls = new ArrayList<>();
				for (int i = 0; i < 10; i++) {
					String prompt = "call-" + i;
					calls.add(callers.submit(() -> model.call(new Prompt(prompt))));
				}
				for (Future<ChatResponse> call : calls) {
					assertThat(call.get(20, TimeUnit.SECONDS).getResult().getOutput().getText()).isEqualTo("hi");
				}
			}
			finally {
				callers.shutdownNow();
			}
		});
		Map<String, List<ScriptedServer.Seen>> perCall = this.server.seen()
			.stream()
			.collect(Collectors.groupingBy(OllamaLoopbackTests::call));
		assertThat(perCall).hasSize(10);
		perCall.forEach((call, requests) -> {
			// the starter's default max-attempts
			assertThat(requests).as(call).hasSizeBetween(1, 4);
			for (int i = 1; i < requests.size(); i++) {
				long gap = requests.get(i).arrivedAt() - requests.get(i - 1).arrivedAt();
				// Retry-After: 1 is whole seconds, so the next request leaves no sooner than 1 s after the refusal
				assertThat(Duration.ofNanos(gap)).as(call + " retry " + i)
					.isGreaterThanOrEqualTo(Duration.ofMillis(950));
			}
		});
	}

	@Test
	void whenTheStarterGivesUpTheCallerGetsSpringAisTransientAiExceptionWithTheHandOver() {
		this.server = new ScriptedServer((request) -> Answer.of(503, "{\"error\":\"loading model\"}", "Retry-After",
				"120"));
		this.contextRunner.withPropertyValues("spring.ai.ollama.base-url=" + this.server.baseUrl()).run((context) -> {
			Instant before = Instant.now();
			Throwable thrown = catchThrowable(() -> context.getBean(OllamaChatModel.class).call(new Prompt("hello")));
			assertThat(thrown).isInstanceOf(TransientAiException.class).hasMessageContaining("503")
				.hasMessageContaining("loading model");
			NotBefore notBefore = NotBefore.find(thrown).orElseThrow();
			assertThat(notBefore.instant()).isCloseTo(before.plusSeconds(120),
					within(5, java.time.temporal.ChronoUnit.SECONDS));
			assertThat(thrown.getSuppressed()).singleElement()
				.isInstanceOfSatisfying(RetryAfterOutcomeException.class, (outcome) -> {
					assertThat(outcome.outcome().outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
					assertThat(outcome.outcome().provider()).isEqualTo("ollama");
				});
		});
		assertThat(this.server.seen()).hasSize(1);
	}

	@Test
	void aRefusedConnectionCostsAtMostMaxAttemptsRequestsPerCall() {
		AtomicInteger attempts = new AtomicInteger();
		this.contextRunner.withBean(ClientHttpRequestFactoryBuilder.class, () -> counting(attempts))
			.withPropertyValues("spring.ai.ollama.base-url=" + ScriptedServer.refusingBaseUrl(),
					"retry.after.backoff.delay=10ms")
			.run((context) -> {
				Throwable thrown = catchThrowable(() -> context.getBean(OllamaChatModel.class).call(new Prompt("hi")));
				// what Spring AI's Ollama model throws for a refused connection without the starter
				assertThat(thrown).isInstanceOf(ResourceAccessException.class);
				assertThat(NotBefore.find(thrown)).isEmpty();
				assertThat(attempts).hasValue(4);
			});
	}

	@Test
	void springAisRetryTurnedBackOnStacksItsAttemptsAndIsReported() {
		AtomicInteger attempts = new AtomicInteger();
		this.contextRunner.withBean(ClientHttpRequestFactoryBuilder.class, () -> counting(attempts))
			.withPropertyValues("spring.ai.ollama.base-url=" + ScriptedServer.refusingBaseUrl(),
					"retry.after.backoff.delay=10ms", "spring.ai.retry.max-attempts=1",
					"spring.ai.retry.backoff.initial-interval=10ms")
			.run((context) -> {
				catchThrowable(() -> context.getBean(OllamaChatModel.class).call(new Prompt("hi")));
				assertThat(attempts).hasValue(8);
				ModelClients clients = context.getBean(ModelClients.class);
				assertThat(clients.all()).contains(new ModelClients.ModelClient("ollama", 0, 1,
						"spring.ai.retry.max-attempts", true, ModelClients.ModelClient.BOOT_BUILDERS));
				assertThat(clients.stackedWarnings((provider) -> 4)).containsExactly("two retry layers are stacked"
						+ " under Spring AI's ollama model: Spring AI's RetryTemplate retries 1 times"
						+ " (spring.ai.retry.max-attempts=1) above retry-after's 4 attempts, so one call may send up"
						+ " to 8 requests; set spring.ai.retry.max-attempts=0 to keep one layer");
			});
	}

	@Test
	void ollamasOriginIsItsProviderWhileOtherRequestsToItsHostKeepTheirs() {
		this.contextRunner.withPropertyValues("spring.ai.ollama.base-url=http://localhost:11434/",
				"retry.after.providers.local.hosts=localhost").run((context) -> {
					RetryAfterOperations operations = context.getBean(RetryAfterOperations.class);
					assertThat(provider(operations, "http://localhost:11434/api/chat")).isEqualTo("ollama");
					assertThat(provider(operations, "http://LOCALHOST:11434/api/embed")).isEqualTo("ollama");
					assertThat(provider(operations, "http://localhost:8080/orders")).isEqualTo("local");
					assertThat(provider(operations, "https://localhost:11434/api/chat")).isEqualTo("local");
				});
	}

	private static String provider(RetryAfterOperations operations, String uri) {
		return operations.prepare("POST", URI.create(uri), (name) -> null, Map.of(), 2).provider().name();
	}

	/** The JDK's request factory, counting every request it creates: one per attempt, sent or refused. */
	private static ClientHttpRequestFactoryBuilder<ClientHttpRequestFactory> counting(AtomicInteger attempts) {
		return (settings) -> {
			ClientHttpRequestFactory jdk = ClientHttpRequestFactoryBuilder.jdk().build(settings);
			return (uri, method) -> {
				attempts.incrementAndGet();
				return jdk.createRequest(uri, method);
			};
		};
	}

	private static String call(ScriptedServer.Seen request) {
		Matcher matcher = CALL.matcher(request.body());
		return matcher.find() ? matcher.group() : "unknown";
	}

}
