package io.github.retryafter.boot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What is wired under each provider, as configured at startup: the profile that says what its API means, the HTTP
 * service groups whose requests it takes whatever their host, and the client integrations that are on (they route a
 * request to a provider by its host, or by {@link RetryAfterAttributes#provider(String)}). The startup's INFO line
 * per provider and the {@code retryafter} endpoint both read it. Immutable and thread-safe.
 *
 * @param providers what is wired under each provider, by name, {@code default} included, in configuration order
 * @param clientIntegrations the client integrations that are on, as a user names them ({@code RestClient},
 * {@code RestTemplate}, {@code WebClient}, {@code OkHttp builders})
 */
public record RetryAfterWiring(Map<String, Provider> providers, List<String> clientIntegrations) {

	/**
	 * Checks the arguments and copies them, keeping the providers' order.
	 * @param providers what is wired under each provider, by name
	 * @param clientIntegrations the client integrations that are on
	 */
	public RetryAfterWiring {
		providers = Collections.unmodifiableMap(new LinkedHashMap<>(providers));
		clientIntegrations = List.copyOf(clientIntegrations);
	}

	/**
	 * Returns what is wired under one provider.
	 * @param name the provider's name
	 * @return its wiring, empty when no such provider is configured
	 */
	public Optional<Provider> provider(String name) {
		return Optional.ofNullable(this.providers.get(name));
	}

	/**
	 * What is wired under one provider.
	 *
	 * @param profile its profile's name ({@code standard} unless set, or set for it, as under Spring AI)
	 * @param serviceGroups the HTTP service groups pinned to it ({@code service-groups}), as configured
	 */
	public record Provider(String profile, List<String> serviceGroups) {

		/**
		 * Checks the arguments and copies the groups.
		 * @param profile its profile's name
		 * @param serviceGroups the HTTP service groups pinned to it
		 */
		public Provider {
			Objects.requireNonNull(profile, "profile");
			serviceGroups = List.copyOf(serviceGroups);
		}

	}

}
