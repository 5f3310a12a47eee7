package io.github.retryafter.boot.httpservice;

import java.util.Objects;

import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;

/**
 * Gives the {@code RestClient} of each HTTP service group that maps to a provider ({@link ServiceGroupProviders}) a
 * default request that names the provider, which the starter's interceptor then uses whatever the request's host.
 * The interceptor itself reaches the group's client as every {@code RestClientCustomizer} does. Thread-safe.
 */
public final class RetryAfterRestClientHttpServiceGroupConfigurer implements RestClientHttpServiceGroupConfigurer {

	private final ServiceGroupProviders providers;

	/**
	 * Creates the configurer.
	 * @param providers which provider each group uses
	 */
	public RetryAfterRestClientHttpServiceGroupConfigurer(ServiceGroupProviders providers) {
		this.providers = Objects.requireNonNull(providers, "providers");
	}

	@Override
	public void configureGroups(Groups<RestClient.Builder> groups) {
		groups.forEachClient((group, builder) -> this.providers.configure(group.name(),
				(attributes) -> builder.defaultRequest((request) -> request.attributes(attributes))));
	}

}
