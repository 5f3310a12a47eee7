package io.github.retryafter.boot.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.env.PropertyResolver;

/**
 * The Spring AI model clients the starter sits under: per vendor whose module is present, how many of its HTTP clients
 * were built with the starter's interceptor, and the retry count its SDK keeps above it (0 unless the application set
 * one: then two retry layers are stacked, and every call may send up to {@code (sdk + 1) × max-attempts} requests);
 * per model family on Spring Boot's builders ({@link BuilderModel}), the retry count of Spring AI's own
 * {@code RetryTemplate} above it, the same way. The endpoint and the startup log read it. Thread-safe.
 */
public final class ModelClients {

	private final PropertyResolver environment;

	// per application: one count per vendor whose module is present, at most ModelVendor's values
	private final ConcurrentMap<ModelVendor, AtomicInteger> wrapped = new ConcurrentHashMap<>();

	// per application: the model families on Boot's builders that are present, at most BuilderModel's values
	private final Set<BuilderModel> builderModels = ConcurrentHashMap.newKeySet();

	/**
	 * Creates the record.
	 * @param environment where the SDKs' retry counts are read
	 */
	public ModelClients(PropertyResolver environment) {
		this.environment = Objects.requireNonNull(environment, "environment");
	}

	/**
	 * Records that the vendor's module is present, so it is listed before any of its clients is built.
	 * @param vendor the vendor
	 */
	public void present(ModelVendor vendor) {
		this.wrapped.computeIfAbsent(vendor, (v) -> new AtomicInteger());
	}

	/**
	 * Records that a model family on Spring Boot's builders is present, its requests under the starter.
	 * @param model the family
	 */
	public void present(BuilderModel model) {
		this.builderModels.add(model);
	}

	/**
	 * Records that one more of the vendor's HTTP clients was built with the starter's interceptor.
	 * @param vendor the vendor
	 */
	public void wrapped(ModelVendor vendor) {
		this.wrapped.computeIfAbsent(vendor, (v) -> new AtomicInteger()).incrementAndGet();
	}

	/**
	 * Returns every vendor whose module is present, in declaration order.
	 * @return the model clients
	 */
	public List<ModelClient> all() {
		List<ModelClient> all = new ArrayList<>();
		for (ModelVendor vendor : ModelVendor.values()) {
			AtomicInteger count = this.wrapped.get(vendor);
			if (count != null) {
				Map.Entry<String, Integer> sdk = vendor.sdkRetries(this.environment);
				all.add(new ModelClient(vendor.provider(), count.get(), sdk.getValue(), sdk.getKey(), sdk.getValue() > 0));
			}
		}
		for (BuilderModel model : BuilderModel.values()) {
			if (this.builderModels.contains(model)) {
				int retries = BuilderModel.springAiRetries(this.environment);
				all.add(new ModelClient(model.provider(), 0, retries, BuilderModel.SPRING_AI_RETRIES_PROPERTY,
						retries > 0, ModelClient.BOOT_BUILDERS));
			}
		}
		return all;
	}

	/**
	 * Returns the startup line: which model clients are under the starter, and their SDKs' retry counts.
	 * @return the line, empty when no model client was built with the starter's interceptor
	 */
	public Optional<String> summary() {
		List<String> parts = new ArrayList<>();
		for (ModelClient client : all()) {
			if (client.onBootBuilders()) {
				parts.add(client.provider() + " (Spring Boot's RestClient and WebClient builders, provider '"
						+ client.provider() + "', Spring AI retries " + client.sdkMaxRetries() + " from "
						+ client.sdkRetriesProperty() + ")");
			}
			else if (client.httpClients() > 0) {
				parts.add(client.provider() + " (" + client.httpClients() + " OkHttp clients, provider '"
						+ client.provider() + "', SDK retries " + client.sdkMaxRetries() + " from "
						+ client.sdkRetriesProperty() + ")");
			}
		}
		return parts.isEmpty() ? Optional.empty()
				: Optional.of("retry-after is the retry layer under Spring AI's model clients: " + String.join(", ", parts));
	}

	/**
	 * Returns a warning for each vendor whose SDK still retries above the starter: two layers stacked.
	 * @param maxAttempts the most attempts the starter makes per call of the vendor's provider
	 * @return the warnings, one per stacked vendor
	 */
	public List<String> stackedWarnings(java.util.function.ToIntFunction<String> maxAttempts) {
		List<String> warnings = new ArrayList<>();
		for (ModelClient client : all()) {
			if (client.stacked() && client.onBootBuilders()) {
				int attempts = maxAttempts.applyAsInt(client.provider());
				String property = client.sdkRetriesProperty();
				warnings.add("two retry layers are stacked under Spring AI's " + client.provider() + " model: Spring"
						+ " AI's RetryTemplate retries " + client.sdkMaxRetries() + " times (" + property + "="
						+ client.sdkMaxRetries() + ") above retry-after's " + attempts + " attempts, so one call may"
						+ " send up to " + ((client.sdkMaxRetries() + 1) * attempts) + " requests; set " + property
						+ "=0 to keep one layer");
			}
			else if (client.stacked() && client.httpClients() > 0) {
				int attempts = maxAttempts.applyAsInt(client.provider());
				warnings.add("two retry layers are stacked under Spring AI's " + client.provider() + " clients: the SDK"
						+ " retries " + client.sdkMaxRetries() + " times (" + client.sdkRetriesProperty() + "="
						+ client.sdkMaxRetries() + ") above retry-after's " + attempts + " attempts, so one call may send"
						+ " up to " + ((client.sdkMaxRetries() + 1) * attempts) + " requests; set "
						+ client.sdkRetriesProperty() + "=0 to keep one layer");
			}
		}
		return warnings;
	}

	/**
	 * One vendor's (or model family's) model clients under the starter.
	 *
	 * @param provider the provider their requests belong to
	 * @param httpClients how many of the vendor's OkHttp clients were built with the starter's interceptor (0 for a
	 * family on Spring Boot's builders, whose clients are not counted)
	 * @param sdkMaxRetries the retry count kept above the starter: the vendor's SDK's (the largest among its models),
	 * or Spring AI's {@code RetryTemplate}'s for a family on Spring Boot's builders
	 * @param sdkRetriesProperty the property that sets it
	 * @param stacked whether that layer still retries above the starter ({@code sdkMaxRetries} above 0): two layers
	 * @param client how the model sends: {@value #OKHTTP} (a vendor SDK) or {@value #BOOT_BUILDERS}
	 */
	public record ModelClient(String provider, int httpClients, int sdkMaxRetries, String sdkRetriesProperty,
			boolean stacked, String client) {

		/** A vendor SDK over OkHttp. */
		public static final String OKHTTP = "okhttp";

		/** Spring Boot's {@code RestClient.Builder} and {@code WebClient.Builder}. */
		public static final String BOOT_BUILDERS = "boot-builders";

		/**
		 * One vendor's OkHttp clients.
		 * @param provider the provider their requests belong to
		 * @param httpClients how many of the vendor's HTTP clients were built with the starter's interceptor
		 * @param sdkMaxRetries the retry count the vendor's SDK keeps above the starter
		 * @param sdkRetriesProperty the property that sets it
		 * @param stacked whether the SDK still retries above the starter
		 */
		public ModelClient(String provider, int httpClients, int sdkMaxRetries, String sdkRetriesProperty,
				boolean stacked) {
			this(provider, httpClients, sdkMaxRetries, sdkRetriesProperty, stacked, OKHTTP);
		}

		/**
		 * Returns how the clients are named under their provider, at startup and on the endpoint: Spring AI's model
		 * of the provider, on Spring Boot's builders or over so many OkHttp clients.
		 * @return e.g. {@code Spring AI's openai model (1 OkHttp clients)}
		 */
		public String describe() {
			return "Spring AI's " + this.provider + " model ("
					+ (onBootBuilders() ? "Spring Boot's builders" : this.httpClients + " OkHttp clients") + ")";
		}

		/**
		 * Returns whether the model sends through Spring Boot's builders.
		 * @return {@code true} for a {@link BuilderModel}
		 */
		public boolean onBootBuilders() {
			return BOOT_BUILDERS.equals(this.client);
		}

	}

}
