package io.github.retryafter.boot.httpservice;

import java.util.Objects;

import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;

/**
 * Gives the {@code WebClient} of each HTTP service group that maps to a provider ({@link ServiceGroupProviders}) a
 * default request that names the provider, which the starter's filter then uses whatever the request's host.
 * The filter itself reaches the group's client as every {@code WebClientCustomizer} does. Thread-safe.
 */
public final class RetryAfterWebClientHttpServiceGroupConfigurer implements WebClientHttpServiceGroupConfigurer {

	private final ServiceGroupProviders providers;

	/**
	 * Creates the configurer.
	 * @param providers which provider each group uses
	 */
	public RetryAfterWebClientHttpServiceGroupConfigurer(ServiceGroupProviders providers) {
		this.providers = Objects.requireNonNull(providers, "providers");
	}

	@Override
	public void configureGroups(Groups<WebClient.Builder> groups) {
		groups.forEachClient((group, builder) -> this.providers.configure(group.name(),
				(attributes) -> builder.defaultRequest((request) -> request.attributes(attributes))));
	}

}
