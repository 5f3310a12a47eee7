package io.github.retryafter.boot.springai;

import java.util.List;
import java.util.Map;

import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.actuate.RetryAfterActivity;
import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterSpringAiAutoConfiguration;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.github.retryafter.engine.ProviderConventions;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter under Spring AI's model clients: a customizer per vendor whose module is present, pinning its clients to
 * the vendor's provider; the SDKs' retries off by a default the application can override; the vendors' presets; the
 * startup line and the warning when two layers are stacked.
 */
class RetryAfterSpringAiAutoConfigurationTests {

	/** What a Spring application sees: the defaults the starter's EnvironmentPostProcessor adds. */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withInitializer((context) -> new SpringAiRetryDefaults().postProcessEnvironment(context.getEnvironment(),
				new SpringApplication()))
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, RetryAfterSpringAiAutoConfiguration.class));

	@Test
	void eachVendorsClientsAreSentToItsProviderThroughTheStartersInterceptor() {
		this.contextRunner.run((context) -> {
			RetryAfterOkHttp okHttp = context.getBean(RetryAfterOkHttp.class);
			SpringAiOpenAiHttpClient.Builder openAi = SpringAiOpenAiHttpClient.builder();
			context.getBean(OpenAiHttpClientBuilderCustomizer.class).customize(openAi);
			SpringAiAnthropicHttpClient.Builder anthropic = SpringAiAnthropicHttpClient.builder()
				.backend(com.anthropic.backends.AnthropicBackend.builder().apiKey("test-key").build());
			context.getBean(AnthropicHttpClientBuilderCustomizer.class).customize(anthropic);

			assertThat(tail(openAi.build().getOkHttpClient(), 2)).isEqualTo(okHttp.interceptors("openai"));
			// its accessor is package-private: the client it built is read as the model would use it
			OkHttpClient anthropicClient = (OkHttpClient) org.springframework.test.util.ReflectionTestUtils
				.getField(anthropic.build(), "okHttpClient");
			assertThat(tail(anthropicClient, 2)).isEqualTo(okHttp.interceptors("anthropic"));
			assertThat(context.getBean(ModelClients.class).all()).containsExactly(
					new ModelClients.ModelClient("openai", 1, 0, "spring.ai.openai.max-retries", false),
					new ModelClients.ModelClient("anthropic", 1, 0, "spring.ai.anthropic.max-retries", false),
					new ModelClients.ModelClient("ollama", 0, 0, "spring.ai.retry.max-attempts", false,
							ModelClients.ModelClient.BOOT_BUILDERS));
		});
	}

	@Test
	void eachVendorsProviderIsPresetForItsApi() {
		this.contextRunner.run((context) -> {
			assertThat(context.getEnvironment().getProperty("retry.after.providers.openai.profile")).isEqualTo("openai");
			assertThat(context.getEnvironment().getProperty("retry.after.providers.anthropic.profile"))
				.isEqualTo("anthropic");
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(providers.get("anthropic").orElseThrow().policy().retryableStatuses()).contains(529);
			assertThat(providers.get("openai").orElseThrow().policy().planner().fields())
				.isEqualTo(io.github.retryafter.engine.ProviderProfile.OPENAI.fields());
			assertThat(conventions(providers, "openai")).isEqualTo(new ProviderConventions(true,
					java.util.Set.of(429, 503), java.util.Optional.of("x-stainless-retry-count")));
			assertThat(conventions(providers, "anthropic")).isEqualTo(new ProviderConventions(true,
					java.util.Set.of(429, 529), java.util.Optional.of("x-stainless-retry-count")));
			assertThat(conventions(providers, "default")).isEqualTo(ProviderConventions.NONE);
		});
	}

	@Test
	void theUsersOwnProfileWinsOverThePreset() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.profile=azure").run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(conventions(providers, "openai")).isEqualTo(
					io.github.retryafter.engine.ProviderProfile.AZURE.conventions());
		});
	}

	@Test
	void theUsersOwnProviderPropertiesWinKeyByKey() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.refusal-statuses=429",
				"retry.after.providers.openai.max-attempts=2", "retry.after.providers.anthropic.attempt-header=x-try")
			.run((context) -> {
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				assertThat(conventions(providers, "openai").refusalStatuses()).containsExactly(429);
				assertThat(conventions(providers, "openai").retryRefusedRequests()).isTrue();
				assertThat(providers.get("openai").orElseThrow().policy().maxAttempts()).isEqualTo(2);
				assertThat(conventions(providers, "anthropic").attemptHeader()).contains("x-try");
			});
	}

	@Test
	void theSdksRetriesAreOffByADefaultTheApplicationCanOverride() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("application", Map.of("spring.ai.anthropic.max-retries", 2)));
		new SpringAiRetryDefaults().postProcessEnvironment(environment, new SpringApplication());

		assertThat(environment.getProperty("spring.ai.openai.max-retries")).isEqualTo("0");
		assertThat(environment.getProperty("spring.ai.anthropic.max-retries")).isEqualTo("2");
		assertThat(environment.getPropertySources().stream().toList()).last()
			.satisfies((source) -> assertThat(source.getName()).isEqualTo(SpringAiRetryDefaults.PROPERTY_SOURCE_NAME));
	}

	@Test
	void nothingIsTurnedOffWhenTheStarterIsNotUnderTheModelClients() {
		for (String off : List.of("retry.after.enabled", "retry.after.ok-http.enabled", "retry.after.spring-ai.enabled")) {
			StandardEnvironment environment = new StandardEnvironment();
			environment.getPropertySources().addFirst(new MapPropertySource("application", Map.of(off, "false")));
			new SpringAiRetryDefaults().postProcessEnvironment(environment, new SpringApplication());
			assertThat(environment.getProperty("spring.ai.openai.max-retries")).as(off).isNull();
			assertThat(environment.getProperty("spring.ai.anthropic.max-retries")).as(off).isNull();
			// Ollama sends through Boot's RestClient, not OkHttp: only the switches of all of Spring AI turn it off
			boolean ollamaUnder = off.equals("retry.after.ok-http.enabled");
			assertThat(environment.getProperty("spring.ai.retry.max-attempts")).as(off)
				.isEqualTo(ollamaUnder ? "0" : null);
			assertThat(environment.getPropertySources().contains(SpringAiRetryDefaults.PROPERTY_SOURCE_NAME)).as(off)
				.isEqualTo(ollamaUnder);
		}
	}

	@Test
	void aVendorWhoseModuleIsAbsentGetsNoCustomizer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(AnthropicHttpClientBuilderCustomizer.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(OpenAiHttpClientBuilderCustomizer.class);
				assertThat(context).doesNotHaveBean(AnthropicHttpClientBuilderCustomizer.class);
			});
		this.contextRunner.withClassLoader(new FilteredClassLoader(OpenAiHttpClientBuilderCustomizer.class))
			.run((context) -> assertThat(context).doesNotHaveBean(OpenAiHttpClientBuilderCustomizer.class)
				.hasSingleBean(AnthropicHttpClientBuilderCustomizer.class));
	}

	@Test
	void backsOffWhenSwitchedOffOrWithoutOkHttp() {
		this.contextRunner.withPropertyValues("retry.after.spring-ai.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(OpenAiHttpClientBuilderCustomizer.class)
				.doesNotHaveBean(ModelClients.class));
		this.contextRunner.withPropertyValues("retry.after.ok-http.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(OpenAiHttpClientBuilderCustomizer.class));
	}

	@Test
	void backsOffWhenTheUserDefinesTheirOwnCustomizer() {
		this.contextRunner.withBean("retryAfterOpenAiHttpClientBuilderCustomizer",
				OpenAiHttpClientBuilderCustomizer.class, () -> (builder) -> {
				})
			.run((context) -> assertThat(context).getBeans(OpenAiHttpClientBuilderCustomizer.class).hasSize(1));
	}

	@Test
	void oneLineSaysWhichClientsAreUnderTheStarterAndAStackedLayerIsNamed() {
		this.contextRunner.withPropertyValues("spring.ai.openai.chat.max-retries=2")
			.run((context) -> {
				ModelClients clients = context.getBean(ModelClients.class);
				clients.wrapped(ModelVendor.OPENAI);
				clients.wrapped(ModelVendor.ANTHROPIC);
				assertThat(clients.summary()).contains("retry-after is the retry layer under Spring AI's model clients: "
						+ "openai (1 OkHttp clients, provider 'openai', SDK retries 2 from spring.ai.openai.chat.max-retries), "
						+ "anthropic (1 OkHttp clients, provider 'anthropic', SDK retries 0 from "
						+ "spring.ai.anthropic.max-retries), ollama (Spring Boot's RestClient and WebClient builders, "
						+ "provider 'ollama', Spring AI retries 0 from spring.ai.retry.max-attempts)");
				assertThat(clients.stackedWarnings((provider) -> RetryPolicy.DEFAULTS.maxAttempts())).containsExactly(
						"two retry layers are stacked under Spring AI's openai clients: the SDK retries 2 times "
								+ "(spring.ai.openai.chat.max-retries=2) above retry-after's 4 attempts, so one call may "
								+ "send up to 12 requests; set spring.ai.openai.chat.max-retries=0 to keep one layer");
			});
	}

	@Test
	void theEndpointNamesTheModelClientsUnderTheStarterAndAStackedLayer() {
		this.contextRunner.withPropertyValues("spring.ai.anthropic.max-retries=2").run((context) -> {
			ModelClients clients = context.getBean(ModelClients.class);
			clients.wrapped(ModelVendor.ANTHROPIC);
			RetryAfterEndpoint endpoint = new RetryAfterEndpoint(context.getBean(RetryAfterProviders.class),
					new RetryAfterActivity(java.time.InstantSource.system(), io.github.retryafter.Ticker.system()), null,
					null, null, clients);
			assertThat(endpoint.retryAfter().modelClients()).containsExactly(
					new ModelClients.ModelClient("openai", 0, 0, "spring.ai.openai.max-retries", false),
					new ModelClients.ModelClient("anthropic", 1, 2, "spring.ai.anthropic.max-retries", true),
					new ModelClients.ModelClient("ollama", 0, 0, "spring.ai.retry.max-attempts", false,
							ModelClients.ModelClient.BOOT_BUILDERS));
			assertThat(endpoint.retryAfter().modelClients().get(1).stacked()).isTrue();
		});
	}

	@Test
	void theEndpointNamesEachModelUnderItsProviderWithTheProfileSpringAiSetsForIt() {
		this.contextRunner.run((context) -> {
			ModelClients clients = context.getBean(ModelClients.class);
			clients.wrapped(ModelVendor.ANTHROPIC);
			RetryAfterEndpoint endpoint = new RetryAfterEndpoint(context.getBean(RetryAfterProviders.class),
					new RetryAfterActivity(java.time.InstantSource.system(), io.github.retryafter.Ticker.system()), null,
					null, null, clients, context.getBean(io.github.retryafter.boot.RetryAfterWiring.class));
			RetryAfterEndpoint.WiringDescriptor anthropic = endpoint.provider("anthropic").wiring();
			assertThat(anthropic.profile()).isEqualTo("anthropic");
			assertThat(anthropic.clients()).endsWith("Spring AI's anthropic model (1 OkHttp clients)");
			assertThat(endpoint.provider("ollama").wiring().clients())
				.endsWith("Spring AI's ollama model (Spring Boot's builders)");
		});
	}

	@Test
	void ollamasProviderIsPresetAndSpringAisRetryIsOffByDefaults() {
		this.contextRunner.run((context) -> {
			assertThat(context.getEnvironment().getProperty("spring.ai.retry.max-attempts")).isEqualTo("0");
			assertThat(context.getEnvironment().getProperty("retry.after.providers.ollama.profile"))
				.isEqualTo("ollama");
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(conventions(providers, "ollama")).isEqualTo(new ProviderConventions(true,
					java.util.Set.of(429, 503), java.util.Optional.empty()));
			assertThat(context.getBean(io.github.retryafter.boot.ProviderOrigins.class).asMap())
				.containsExactly(Map.entry("http://localhost:11434", "ollama"));
		});
	}

	@Test
	void theApplicationsOwnSpringAiRetryAndOllamaValuesWinKeyByKey() {
		this.contextRunner
			.withPropertyValues("spring.ai.retry.max-attempts=3", "retry.after.providers.ollama.max-attempts=2",
					"retry.after.providers.ollama.refusal-statuses=503",
					"spring.ai.ollama.base-url=http://models.internal:8080/ollama")
			.run((context) -> {
				assertThat(context.getEnvironment().getProperty("spring.ai.retry.max-attempts")).isEqualTo("3");
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				assertThat(providers.get("ollama").orElseThrow().policy().maxAttempts()).isEqualTo(2);
				assertThat(conventions(providers, "ollama").refusalStatuses()).containsExactly(503);
				assertThat(conventions(providers, "ollama").retryRefusedRequests()).isTrue();
				assertThat(context.getBean(io.github.retryafter.boot.ProviderOrigins.class).asMap())
					.containsExactly(Map.entry("http://models.internal:8080", "ollama"));
				ModelClients clients = context.getBean(ModelClients.class);
				assertThat(clients.all()).contains(new ModelClients.ModelClient("ollama", 0, 3,
						"spring.ai.retry.max-attempts", true, ModelClients.ModelClient.BOOT_BUILDERS));
				assertThat(clients.stackedWarnings((provider) -> 2)).containsExactly("two retry layers are stacked"
						+ " under Spring AI's ollama model: Spring AI's RetryTemplate retries 3 times"
						+ " (spring.ai.retry.max-attempts=3) above retry-after's 2 attempts, so one call may send up"
						+ " to 8 requests; set spring.ai.retry.max-attempts=0 to keep one layer");
			});
		this.contextRunner.withPropertyValues("retry.after.providers.ollama.profile=standard").run((context) -> {
			assertThat(conventions(context.getBean(RetryAfterProviders.class), "ollama"))
				.isEqualTo(ProviderConventions.NONE);
			assertThat(context.getEnvironment().getProperty("spring.ai.retry.max-attempts")).isEqualTo("0");
		});
	}

	@Test
	void springAisRetryIsLeftAloneWhenNoModelOnBootsBuildersIsPresentOrRestClientIsOff() {
		StandardEnvironment environment = new StandardEnvironment();
		new SpringAiRetryDefaults().postProcessEnvironment(environment, new SpringApplication(
				new org.springframework.core.io.DefaultResourceLoader(new FilteredClassLoader(
						org.springframework.ai.ollama.api.OllamaApi.class))));
		assertThat(environment.getProperty("spring.ai.retry.max-attempts")).isNull();
		assertThat(environment.getProperty("retry.after.providers.ollama.profile")).isNull();
		assertThat(environment.getProperty("spring.ai.openai.max-retries")).isEqualTo("0");

		StandardEnvironment restClientOff = new StandardEnvironment();
		restClientOff.getPropertySources()
			.addFirst(new MapPropertySource("application", Map.of("retry.after.rest-client.enabled", "false")));
		new SpringAiRetryDefaults().postProcessEnvironment(restClientOff, new SpringApplication());
		assertThat(restClientOff.getProperty("spring.ai.retry.max-attempts")).isNull();
		assertThat(restClientOff.getProperty("spring.ai.openai.max-retries")).isEqualTo("0");
	}

	private static ProviderConventions conventions(RetryAfterProviders providers, String name) {
		return providers.get(name).orElseThrow().policy().conventions();
	}

	private static List<Interceptor> tail(OkHttpClient client, int count) {
		List<Interceptor> interceptors = client.interceptors();
		return interceptors.subList(interceptors.size() - count, interceptors.size());
	}

}
