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
 * One retry layer under Spring AI: for each model vendor whose module is on the classpath, adds the lowest-precedence
 * defaults that turn its SDK's own retries off ({@code spring.ai.openai.max-retries=0},
 * {@code spring.ai.anthropic.max-retries=0}; Gemini's have no property and are turned off where its {@code Client} is
 * built, {@link GeminiClients}) and set its provider's profile ({@link ModelVendor#preset()}:
 * {@code retry.after.providers.openai.profile=openai}, {@code ...anthropic.profile=anthropic},
 * {@code ...gemini.profile=gemini}). Every value is a
 * default in a property source of its own ({@value #PROPERTY_SOURCE_NAME}), after every other: whatever the
 * application sets wins, key by key. Adds nothing when {@code retry.after.enabled}, {@code retry.after.ok-http.enabled}
 * or {@code retry.after.spring-ai.enabled} is {@code false}, or OkHttp is absent (the starter is then not under the
 * model clients, and their SDKs keep their own retries).
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
		if (!on(environment, "retry.after.enabled") || !on(environment, "retry.after.ok-http.enabled")
				|| !on(environment, "retry.after.spring-ai.enabled")
				|| !ClassUtils.isPresent("okhttp3.OkHttpClient", classLoader)) {
			return;
		}
		Map<String, Object> defaults = new LinkedHashMap<>();
		for (ModelVendor vendor : ModelVendor.values()) {
			if (ClassUtils.isPresent(vendor.customizer(), classLoader)) {
				if (vendor.retriesProperty() != null) {
					defaults.put(vendor.retriesProperty(), 0);
				}
				defaults.putAll(vendor.preset());
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
