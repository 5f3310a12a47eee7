package io.github.retryafter.boot.autoconfigure;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import io.github.retryafter.boot.ProviderOrigins;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.github.retryafter.boot.springai.BuilderModel;
import io.github.retryafter.boot.springai.ModelClients;
import io.github.retryafter.boot.springai.ModelVendor;

/**
 * Puts the starter's engine under Spring AI's model clients, as their one retry layer. For each vendor whose module is
 * present and whose SDK sends over OkHttp (OpenAI, Anthropic), a customizer of the vendor's
 * {@code SpringAi*HttpClient.Builder} adds the interceptors that send every request to the vendor's provider
 * ({@code openai}, {@code anthropic}) whatever base URL is configured. For each model family on Spring Boot's
 * builders (Ollama), the origin of its base URL is pinned to its provider ({@code ollama}). The layers above are off by
 * default ({@link io.github.retryafter.boot.springai.SpringAiRetryDefaults}); a startup line names the clients under
 * the starter and the retry count kept above it, and warns once per vendor or family that still retries above it.
 * Only with Spring AI on the classpath, and unless {@code retry.after.spring-ai.enabled=false}.
 */
@AutoConfiguration(after = { RetryAfterAutoConfiguration.class, RetryAfterOkHttpAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.ai.model.Model")
@ConditionalOnBean(RetryAfterOperations.class)
@ConditionalOnBooleanProperty(name = "retry.after.spring-ai.enabled", matchIfMissing = true)
public final class RetryAfterSpringAiAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RetryAfterSpringAiAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	ModelClients retryAfterModelClients(Environment environment) {
		ModelClients clients = new ModelClients(environment);
		for (BuilderModel model : present(environment)) {
			clients.present(model);
		}
		return clients;
	}

	/**
	 * The origin of each present model family's base URL, pinned to its provider: its requests come through Boot's
	 * builders with nothing else to tell them from the application's own requests to the same host.
	 */
	@Bean
	@ConditionalOnMissingBean
	ProviderOrigins retryAfterModelOrigins(Environment environment) {
		Map<String, String> baseUrls = new LinkedHashMap<>();
		for (BuilderModel model : present(environment)) {
			if (model.routable(environment)) {
				baseUrls.put(model.baseUrl(environment), model.provider());
			}
		}
		return ProviderOrigins.of(baseUrls);
	}

	/** Once every singleton (the model clients among them) is built: one INFO line, a WARN per stacked layer. */
	@Bean
	SmartInitializingSingleton retryAfterModelClientsReport(ModelClients clients, RetryAfterProviders providers) {
		return () -> {
			clients.summary().ifPresent(logger::info);
			clients.stackedWarnings((provider) -> providers.get(provider)
				.map((found) -> found.policy().maxAttempts())
				.orElse(1)).forEach(logger::warn);
		};
	}

	/** The model families on Boot's builders whose module is present, when Boot's RestClient is under the starter. */
	private static List<BuilderModel> present(Environment environment) {
		ClassLoader classLoader = RetryAfterSpringAiAutoConfiguration.class.getClassLoader();
		if (!environment.getProperty("retry.after.rest-client.enabled", Boolean.class, true)) {
			return List.of();
		}
		return Arrays.stream(BuilderModel.values())
			.filter((model) -> ClassUtils.isPresent(model.apiClass(), classLoader))
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(OkHttpClient.class)
	@ConditionalOnBean(RetryAfterOkHttp.class)
	static class OkHttpModelsConfiguration {

		/** The interceptors of one vendor's clients, and the record that they were applied. */
		private static List<Interceptor> interceptors(RetryAfterOkHttp okHttp, ModelClients clients,
				ModelVendor vendor) {
			clients.present(vendor);
			return okHttp.interceptors(vendor.provider());
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(OpenAiHttpClientBuilderCustomizer.class)
		static class OpenAiConfiguration {

			/** First among the customizers, so the interceptors other customizers add run inside each attempt. */
			@Bean
			@Order(0)
			@ConditionalOnMissingBean(name = "retryAfterOpenAiHttpClientBuilderCustomizer")
			OpenAiHttpClientBuilderCustomizer retryAfterOpenAiHttpClientBuilderCustomizer(RetryAfterOkHttp okHttp,
					ModelClients clients) {
				List<Interceptor> interceptors = interceptors(okHttp, clients, ModelVendor.OPENAI);
				return (builder) -> {
					interceptors.forEach(builder::interceptor);
					clients.wrapped(ModelVendor.OPENAI);
				};
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(AnthropicHttpClientBuilderCustomizer.class)
		static class AnthropicConfiguration {

			/** First among the customizers, so the interceptors other customizers add run inside each attempt. */
			@Bean
			@Order(0)
			@ConditionalOnMissingBean(name = "retryAfterAnthropicHttpClientBuilderCustomizer")
			AnthropicHttpClientBuilderCustomizer retryAfterAnthropicHttpClientBuilderCustomizer(
					RetryAfterOkHttp okHttp, ModelClients clients) {
				List<Interceptor> interceptors = interceptors(okHttp, clients, ModelVendor.ANTHROPIC);
				return (builder) -> {
					interceptors.forEach(builder::interceptor);
					clients.wrapped(ModelVendor.ANTHROPIC);
				};
			}

		}

	}

}
