package io.github.retryafter.boot.springai;

import java.net.URI;
import java.util.Map;

import org.springframework.core.env.PropertyResolver;

import io.github.retryafter.engine.ProviderProfile;

/**
 * A Spring AI model family that sends through Spring Boot's {@code RestClient.Builder} (and {@code WebClient.Builder}
 * for streaming) and is wrapped by Spring AI's own {@code RetryTemplate} ({@code spring.ai.retry.*}): the provider
 * its requests belong to, where its base URL is set, and its profile. Its requests reach the starter's interceptor
 * and filter as every request of Boot's builders does; the provider is given by the base URL's origin
 * ({@link io.github.retryafter.boot.ProviderOrigins}), whatever that is.
 */
public enum BuilderModel {

	/**
	 * Ollama ({@code spring-ai-ollama}): {@code spring.ai.ollama.base-url}, {@code http://localhost:11434} unless set.
	 */
	OLLAMA("ollama", "org.springframework.ai.ollama.api.OllamaApi", "spring.ai.ollama.base-url",
			"http://localhost:11434", ProviderProfile.OLLAMA);

	/** The property that sets how many times Spring AI's {@code RetryTemplate} retries: retries, not attempts. */
	public static final String SPRING_AI_RETRIES_PROPERTY = "spring.ai.retry.max-attempts";

	/** Spring AI's retry count when nothing sets it (10 retries: 11 attempts). */
	public static final int SPRING_AI_RETRIES_DEFAULT = 10;

	private final String provider;

	private final String apiClass;

	private final String baseUrlProperty;

	private final String defaultBaseUrl;

	private final ProviderProfile profile;

	BuilderModel(String provider, String apiClass, String baseUrlProperty, String defaultBaseUrl,
			ProviderProfile profile) {
		this.provider = provider;
		this.apiClass = apiClass;
		this.baseUrlProperty = baseUrlProperty;
		this.defaultBaseUrl = defaultBaseUrl;
		this.profile = profile;
	}

	/**
	 * Returns the provider the family's requests belong to, whatever base URL is configured.
	 * @return the provider's name
	 */
	public String provider() {
		return this.provider;
	}

	/**
	 * Returns the class whose presence says the family's module is on the classpath.
	 * @return the class's name
	 */
	public String apiClass() {
		return this.apiClass;
	}

	/**
	 * Returns the property that sets the family's base URL.
	 * @return the property's name
	 */
	public String baseUrlProperty() {
		return this.baseUrlProperty;
	}

	/**
	 * Returns the profile that says what the family's server means.
	 * @return the profile
	 */
	public ProviderProfile profile() {
		return this.profile;
	}

	/**
	 * Returns the family's base URL as Spring AI resolves it: its property, else Spring AI's default.
	 * @param environment where the property is read
	 * @return the base URL
	 */
	public String baseUrl(PropertyResolver environment) {
		String configured = environment.getProperty(this.baseUrlProperty);
		return (configured != null && !configured.isBlank()) ? configured.trim() : this.defaultBaseUrl;
	}

	/**
	 * Returns whether the family's base URL is one the starter can route by: absolute, with a host.
	 * @param environment where the property is read
	 * @return {@code true} when its origin can be pinned
	 */
	public boolean routable(PropertyResolver environment) {
		try {
			URI uri = URI.create(baseUrl(environment));
			return uri.getScheme() != null && uri.getHost() != null;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	/**
	 * Returns the family's preset, as the lowest-precedence value of its provider's properties: its
	 * {@linkplain #profile() profile}.
	 * @return the property and its value
	 */
	public Map<String, Object> preset() {
		return Map.of("retry.after.providers." + this.provider + ".profile", this.profile.name());
	}

	/**
	 * Returns Spring AI's retry count in force (retries above the starter's attempts).
	 * @param environment where the property is read
	 * @return the count
	 */
	public static int springAiRetries(PropertyResolver environment) {
		return environment.getProperty(SPRING_AI_RETRIES_PROPERTY, Integer.class, SPRING_AI_RETRIES_DEFAULT);
	}

}
