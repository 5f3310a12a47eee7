package io.github.retryafter.boot.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.env.PropertyResolver;

/**
 * The Spring AI model clients the starter sits under: per vendor whose module is present, how many of its HTTP clients
 * were built with the starter's interceptor, and the retry count its SDK keeps above it (0 unless the application set
 * one: then two retry layers are stacked, and every call may send up to {@code (sdk + 1) × max-attempts} requests).
 * The endpoint and the startup log read it. Thread-safe.
 */
public final class ModelClients {

	private final PropertyResolver environment;

	private final ConcurrentMap<ModelVendor, AtomicInteger> wrapped = new ConcurrentHashMap<>();

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
		return all;
	}

	/**
	 * Returns the startup line: which model clients are under the starter, and their SDKs' retry counts.
	 * @return the line, empty when no model client was built with the starter's interceptor
	 */
	public Optional<String> summary() {
		List<String> parts = new ArrayList<>();
		for (ModelClient client : all()) {
			if (client.httpClients() > 0) {
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
			if (client.stacked() && client.httpClients() > 0) {
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
	 * One vendor's model clients under the starter.
	 *
	 * @param provider the provider their requests belong to
	 * @param httpClients how many of the vendor's HTTP clients were built with the starter's interceptor
	 * @param sdkMaxRetries the retry count the vendor's SDK keeps above the starter (the largest among its models)
	 * @param sdkRetriesProperty the property that sets it
	 * @param stacked whether the SDK still retries above the starter ({@code sdkMaxRetries} above 0): two layers
	 */
	public record ModelClient(String provider, int httpClients, int sdkMaxRetries, String sdkRetriesProperty,
			boolean stacked) {
	}

}
