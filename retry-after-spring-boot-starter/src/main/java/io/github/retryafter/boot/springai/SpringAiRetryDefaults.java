package io.github.retryafter.boot.springai;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * One retry layer under Spring AI, as the lowest-precedence defaults of the application's environment (a property
 * source of its own, {@value #PROPERTY_SOURCE_NAME}, after every other: whatever the application sets wins, key by
 * key):
 * <ul>
 * <li>for each model vendor whose module is on the classpath and whose SDK sends over OkHttp ({@link ModelVendor}),
 * its SDK's own retries off ({@code spring.ai.openai.max-retries=0}, {@code spring.ai.anthropic.max-retries=0};
 * Gemini's have no property and are turned off where its {@code Client} is built, {@link GeminiClients}) and its
 * provider's profile ({@code retry.after.providers.openai.profile=openai}, ..., {@code ...gemini.profile=gemini});
 * unless
 * {@code retry.after.ok-http.enabled} is {@code false} or OkHttp is absent;</li>
 * <li>when a model family on Spring Boot's builders is on the classpath ({@link BuilderModel}: Ollama), Spring AI's
 * own {@code RetryTemplate} off ({@code spring.ai.retry.max-attempts=0}: one attempt, the starter's retries inside
 * it) and the family's provider's profile ({@code retry.after.providers.ollama.profile=ollama}); unless
 * {@code retry.after.rest-client.enabled} is {@code false} or Spring's {@code RestClient} is absent.</li>
 * </ul>
 * Adds nothing when {@code retry.after.enabled} or {@code retry.after.spring-ai.enabled} is {@code false}: the
 * starter is then not under the model clients, and they keep their own retries.
 */
public final class SpringAiRetryDefaults implements EnvironmentPostProcessor, Ordered {

	/** The name of the property source the defaults are in. */
	public static final String PROPERTY_SOURCE_NAME = "retryAfterSpringAiDefaults";

	@Override
	public int getOrder() {
		// after the application's own configuration is loaded, so its switches are read
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		ClassLoader classLoader = (application != null) ? application.getClassLoader() : getClass().getClassLoader();
		if (!on(environment, "retry.after.enabled") || !on(environment, "retry.after.spring-ai.enabled")) {
			return;
		}
		Map<String, Object> defaults = new LinkedHashMap<>();
		if (on(environment, "retry.after.ok-http.enabled")
				&& ClassUtils.isPresent("okhttp3.OkHttpClient", classLoader)) {
			for (ModelVendor vendor : ModelVendor.values()) {
				if (ClassUtils.isPresent(vendor.customizer(), classLoader)) {
					if (vendor.retriesProperty() != null) {
						defaults.put(vendor.retriesProperty(), 0);
					}
					defaults.putAll(vendor.preset());
				}
			}
		}
		if (on(environment, "retry.after.rest-client.enabled")
				&& ClassUtils.isPresent("org.springframework.web.client.RestClient", classLoader)) {
			for (BuilderModel model : BuilderModel.values()) {
				if (ClassUtils.isPresent(model.apiClass(), classLoader)) {
					defaults.put(BuilderModel.SPRING_AI_RETRIES_PROPERTY, 0);
					defaults.putAll(model.preset());
				}
			}
		}
		if (!defaults.isEmpty() && !environment.getPropertySources().contains(PROPERTY_SOURCE_NAME)) {
			environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, defaults));
		}
	}

	private static boolean on(ConfigurableEnvironment environment, String property) {
		return environment.getProperty(property, Boolean.class, true);
	}

}
