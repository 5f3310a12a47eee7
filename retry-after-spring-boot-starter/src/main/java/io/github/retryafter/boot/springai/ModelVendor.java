package io.github.retryafter.boot.springai;

import java.util.List;
import java.util.Map;

import org.springframework.core.env.PropertyResolver;

import io.github.retryafter.engine.ProviderProfile;

/**
 * A model vendor whose Spring AI clients send through an SDK over OkHttp: the provider its requests belong to, the
 * class whose presence says its module is there (the customizer Spring AI offers, or the model), and where its SDK's
 * retry count is set, if anywhere. Each reads the retry count in force as Spring AI 2.0.1 resolves it.
 */
public enum ModelVendor {

	/**
	 * OpenAI ({@code openai-java}, 3 retries unless set): {@code spring.ai.openai.max-retries}, which a model's own
	 * {@code spring.ai.openai.<model>.max-retries} overrides when set to anything but 3.
	 */
	OPENAI("openai", "org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer",
			"spring.ai.openai.max-retries", 3,
			List.of("chat", "embedding", "image", "audio.speech", "audio.transcription", "moderation"),
			ProviderProfile.OPENAI),

	/** Anthropic ({@code anthropic-java}, 2 retries unless set): {@code spring.ai.anthropic.max-retries}. */
	ANTHROPIC("anthropic", "org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer",
			"spring.ai.anthropic.max-retries", 2, List.of(), ProviderProfile.ANTHROPIC),

	/**
	 * Google GenAI ({@code com.google.genai}, 5 attempts unless set): no Spring AI property sets its retries; the
	 * starter builds the SDK's {@code Client} with its retries off ({@link GeminiClients}), so the count in force is 0
	 * for every client built that way.
	 */
	GEMINI("gemini", "org.springframework.ai.google.genai.GoogleGenAiChatModel", null, 0, List.of(),
			ProviderProfile.GEMINI);

	/** What the endpoint and the log name as Gemini's retry setting: the SDK option the starter sets. */
	static final String GEMINI_RETRIES = "HttpRetryOptions.attempts=1 (GeminiClients)";

	/** The header the vendors' SDKs send each attempt's retry count in. */
	public static final String STAINLESS_RETRY_COUNT = ProviderProfile.STAINLESS_RETRY_COUNT;

	private final String provider;

	private final String customizer;

	private final String retriesProperty;

	private final int sdkDefault;

	private final List<String> models;

	private final ProviderProfile profile;

	ModelVendor(String provider, String customizer, String retriesProperty, int sdkDefault, List<String> models,
			ProviderProfile profile) {
		this.provider = provider;
		this.customizer = customizer;
		this.retriesProperty = retriesProperty;
		this.sdkDefault = sdkDefault;
		this.models = models;
		this.profile = profile;
	}

	/**
	 * Returns the provider the vendor's requests belong to, whatever base URL is configured.
	 * @return the provider's name
	 */
	public String provider() {
		return this.provider;
	}

	/**
	 * Returns the class name whose presence says the vendor's module is there: the customizer Spring AI calls for
	 * each of the vendor's HTTP clients, or (Gemini, which has none) its chat model.
	 * @return the class name
	 */
	public String customizer() {
		return this.customizer;
	}

	/**
	 * Returns the property that sets the SDK's retry count for every model of the vendor.
	 * @return the property's name; {@code null} for a vendor Spring AI has no such property for (Gemini)
	 */
	public String retriesProperty() {
		return this.retriesProperty;
	}

	/**
	 * Returns the SDK's retry count when nothing sets it.
	 * @return the count
	 */
	public int sdkDefault() {
		return this.sdkDefault;
	}

	/**
	 * Returns the profile that says what the vendor's API means ({@link ProviderProfile#OPENAI},
	 * {@link ProviderProfile#ANTHROPIC}, {@link ProviderProfile#GEMINI}): the one place a vendor's fields, statuses, refusals and attempt header are
	 * written down.
	 * @return the profile
	 */
	public ProviderProfile profile() {
		return this.profile;
	}

	/**
	 * Returns the vendor's preset, as the lowest-precedence value of its provider's properties: its
	 * {@linkplain #profile() profile} ({@code retry.after.providers.<provider>.profile}). Whatever the application
	 * sets wins: another profile, or any single setting of the provider's.
	 * @return the property and its value
	 */
	public Map<String, Object> preset() {
		return Map.of("retry.after.providers." + this.provider + ".profile", this.profile.name());
	}

	/**
	 * Returns the largest SDK retry count in force among the vendor's models, and the property that sets it.
	 * @param environment where the properties are read
	 * @return the count and its property
	 */
	public Map.Entry<String, Integer> sdkRetries(PropertyResolver environment) {
		if (this.retriesProperty == null) {
			return Map.entry(GEMINI_RETRIES, this.sdkDefault);
		}
		int common = environment.getProperty(this.retriesProperty, Integer.class, this.sdkDefault);
		Map.Entry<String, Integer> largest = Map.entry(this.retriesProperty, common);
		for (String model : this.models) {
			String property = this.retriesProperty.replace(".max-retries", "." + model + ".max-retries");
			Integer own = environment.getProperty(property, Integer.class);
			// Spring AI takes a model's own count only when it differs from the SDK's default
			if (own != null && own != this.sdkDefault && own > largest.getValue()) {
				largest = Map.entry(property, own);
			}
		}
		return largest;
	}

}
