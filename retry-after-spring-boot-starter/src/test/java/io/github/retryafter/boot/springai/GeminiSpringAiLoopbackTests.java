package io.github.retryafter.boot.springai;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import com.google.genai.Client;
import com.google.genai.errors.ClientException;
import com.google.genai.types.HttpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.model.google.genai.autoconfigure.chat.GoogleGenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.retryafter.HintField;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterGeminiAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterSpringAiAutoConfiguration;
import io.github.retryafter.boot.testing.GeminiServer;
import io.github.retryafter.boot.testing.GeminiServer.Seen;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.ProviderProfile;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Spring AI's Google GenAI chat model under the starter with no bean of the application's, against a loopback Gemini:
 * a refusal's {@code RetryInfo} and {@code Retry-After} are waited (real waits of about a second), a daily quota is
 * not, the SDK's own retries are off, the caller gets the SDK's own exception with the body it sent, and an
 * application's own {@code Client} bean starts. The SDK is pointed at the loopback with
 * {@link Client#setDefaultBaseUrls}, reset after each test.
 */
@ExtendWith(OutputCaptureExtension.class)
class GeminiSpringAiLoopbackTests {

	private final GeminiServer server = new GeminiServer();

	/** What the starter saw: without it under the SDK (Spring AI's own Client), nothing. */
	private final List<OperationFinishedEvent> finished = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withInitializer((context) -> new SpringAiRetryDefaults().postProcessEnvironment(context.getEnvironment(),
				new SpringApplication()))
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, RetryAfterSpringAiAutoConfiguration.class,
				RetryAfterGeminiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
				GoogleGenAiChatAutoConfiguration.class))
		.withBean(RetryListener.class, () -> new RetryListener() {

			@Override
			public void onOperationFinished(OperationFinishedEvent event) {
				GeminiSpringAiLoopbackTests.this.finished.add(event);
			}

		})
		.withPropertyValues("spring.ai.google.genai.api-key=test-key", "retry.after.pacing.mode=off");

	@BeforeEach
	void pointTheSdkAtTheLoopback() {
		Client.setDefaultBaseUrls(Optional.of(this.server.baseUrl()), Optional.empty());
	}

	@AfterEach
	void stop() {
		Client.setDefaultBaseUrls(Optional.empty(), Optional.empty());
		this.server.close();
	}

	@Test
	void aRefusalWhoseRetryInfoSaysOneSecondIsWaitedAtLeastThatAndTheCallSucceeds() {
		this.server.script(GeminiServer.refusal("1s"), GeminiServer.ok());
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(ChatModel.class).call("ping")).isEqualTo(GeminiServer.ANSWER);
			assertThat(this.server.seen()).hasSize(2);
			assertThat(gap(this.server.seen())).as("no request before the body's instant")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(1))
				.isLessThan(Duration.ofSeconds(3));
			assertThat(this.finished).singleElement().satisfies((operation) -> {
				assertThat(operation.spec().provider()).isEqualTo("gemini");
				assertThat(operation.outcome()).isEqualTo(Outcome.SUCCESS);
				assertThat(operation.attempts()).isEqualTo(2);
			});
		});
	}

	@Test
	void aRetryAfterHeaderOnARefusalWithoutRetryInfoIsWaitedToo() {
		this.server.script(GeminiServer.refusal(null, "Retry-After", "1"), GeminiServer.ok());
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(ChatModel.class).call("ping")).isEqualTo(GeminiServer.ANSWER);
			assertThat(this.server.seen()).hasSize(2);
			assertThat(gap(this.server.seen())).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
				.isLessThan(Duration.ofSeconds(3));
			assertThat(this.finished).extracting(OperationFinishedEvent::attempts).containsExactly(2);
		});
	}

	@Test
	void aDailyQuotaIsNeverWaitedAndTheCallerGetsTheSdksOwnExceptionWithTheWholeBody() {
		this.server.script(GeminiServer.refusal("52758s"));
		Throwable withoutStarter = sdkAloneFailure();
		this.contextRunner.run((context) -> {
			long start = System.nanoTime();
			Throwable failure = catchThrowable(() -> context.getBean(ChatModel.class).call("ping"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
			assertThat(this.server.seen()).as("one request, the one before the sdk-alone one").hasSize(2);
			assertThat(failure).isInstanceOf(RuntimeException.class).hasMessage("Failed to generate content");
			assertThat(failure.getCause()).isExactlyInstanceOf(ClientException.class)
				.hasMessage(withoutStarter.getMessage())
				.hasMessageContaining("You exceeded your current quota");
			assertThat(((ClientException) failure.getCause()).code()).isEqualTo(429);
			assertThat(this.finished).extracting(OperationFinishedEvent::outcome).containsExactly(Outcome.WAIT_TOO_LONG);
			// the SDK builds its exception from the response after the interceptors returned it: nothing to carry
			assertThat(NotBefore.find(failure)).isEmpty();
		});
	}

	/** The same refusal through the SDK alone (its retries off, or it would sleep 1-2 s after its last attempt). */
	private Throwable sdkAloneFailure() {
		try (Client client = Client.builder().apiKey("test-key")
			.httpOptions(HttpOptions.builder().retryOptions(GeminiClients.SDK_RETRIES_OFF).build())
			.build()) {
			Throwable failure = catchThrowable(() -> client.models.generateContent("gemini-2.0-flash", "ping", null));
			assertThat(failure).isExactlyInstanceOf(ClientException.class);
			return failure;
		}
	}

	@Test
	void theSdksOwnRetriesAreOffSoACallSendsNoMoreThanMaxAttempts() {
		this.server.script(GeminiServer.unavailable());
		this.contextRunner.withBean(FakeClock.class, FakeClock::create)
			.withPropertyValues("retry.after.providers.gemini.max-attempts=3")
			.run((context) -> {
				Throwable failure = catchThrowable(() -> context.getBean(ChatModel.class).call("ping"));
				assertThat(failure.getCause()).isInstanceOf(com.google.genai.errors.ServerException.class);
				assertThat(this.server.seen()).as("3 attempts of the starter's, 1 of the SDK's in each").hasSize(3);
			});
	}

	@Test
	void theGeminiProviderHasItsProfileAndTheModelClientIsRecorded(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(providers.get("gemini").orElseThrow().policy().planner().fields().reads(
					HintField.GOOGLE_RETRY_INFO)).isTrue();
			assertThat(providers.get("gemini").orElseThrow().policy().conventions())
				.isEqualTo(ProviderProfile.GEMINI.conventions());
			assertThat(context.getBean(ModelClients.class).all()).contains(
					new ModelClients.ModelClient("gemini", 1, 0, ModelVendor.GEMINI_RETRIES, false));
			assertThat(context.getBean(GoogleGenAiChatModel.class)).isNotNull();
		});
		assertThat(output).contains("retry-after is the retry layer under Spring AI's model clients: gemini (1 OkHttp"
				+ " clients, provider 'gemini'");
	}

	@Test
	void anApplicationsOwnClientBuiltThroughGeminiClientsStartsAndSendsThroughTheStarter() {
		this.server.script(GeminiServer.refusal("1s"), GeminiServer.ok());
		this.contextRunner.withUserConfiguration(OwnClientThroughTheStarter.class)
			.withBean(FakeClock.class, FakeClock::create)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ChatModel.class).call("ping")).isEqualTo(GeminiServer.ANSWER);
				assertThat(this.server.seen()).hasSize(2);
				assertThat(context.getBean(FakeClock.class).sleeps().stream().reduce(Duration.ZERO, Duration::plus))
					.as("the body's second, waited on the starter's clock")
					.isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			});
	}

	@Test
	void anOwnClientThroughGeminiClientsSendsUnderTheProvidersSettingsAsConfigured() {
		this.server.script(GeminiServer.unavailable());
		this.contextRunner.withUserConfiguration(OwnClientThroughTheStarter.class)
			.withBean(FakeClock.class, FakeClock::create)
			.withPropertyValues("retry.after.providers.gemini.max-attempts=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(catchThrowable(() -> context.getBean(ChatModel.class).call("ping"))).isNotNull();
				assertThat(this.server.seen()).as("the gemini provider's max-attempts, as configured")
					.hasSize(2);
			});
	}

	@Test
	void anApplicationsOwnPlainClientStartsAndIsReportedAsNotUnderTheStarter(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(OwnPlainClient.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Client.class).hasBean("ownClient");
			assertThat(context.getBean(ModelClients.class).all()).contains(
					new ModelClients.ModelClient("gemini", 0, 0, ModelVendor.GEMINI_RETRIES, false));
		});
		assertThat(output).contains("which retry-after is not under");
	}

	@Test
	void backsOffWithoutTheSdkOrWhenSwitchedOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Client.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(GeminiClients.class)
				.doesNotHaveBean(Client.class));
		this.contextRunner.withPropertyValues("retry.after.spring-ai.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(GeminiClients.class)
				.hasSingleBean(Client.class)
				.hasBean("googleGenAiClient"));
		this.contextRunner.withPropertyValues("spring.ai.model.chat=openai")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Client.class));
	}

	private static Duration gap(List<Seen> seen) {
		return Duration.ofNanos(seen.get(1).arrivedAt() - seen.get(0).arrivedAt());
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnClientThroughTheStarter {

		@Bean
		Client ownClient(GeminiClients gemini) {
			return gemini.apply(Client.builder().apiKey("own-key")).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnPlainClient {

		@Bean
		Client ownClient() {
			return Client.builder().apiKey("own-key").build();
		}

	}

}
