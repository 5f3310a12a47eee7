package io.github.retryafter.boot.httpservice;

import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceGroup;

/**
 * Gives the {@code WebClient} of each HTTP service group that maps to a provider ({@link ServiceGroupProviders}) a
 * default request that names the provider, which the starter's filter then uses whatever the request's host.
 * The filter itself reaches the group's client as every {@code WebClientCustomizer} does. Thread-safe.
 */
public final class RetryAfterWebClientHttpServiceGroupConfigurer implements WebClientHttpServiceGroupConfigurer {

	private static final Log logger = LogFactory.getLog(RetryAfterWebClientHttpServiceGroupConfigurer.class);

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
		groups.forEachClient(this::configure);
	}

	private void configure(HttpServiceGroup group, WebClient.Builder builder) {
		this.providers.defaultAttributes(group.name()).ifPresent((attributes) -> {
			log(group);
			builder.defaultRequest((request) -> request.attributes(attributes));
		});
	}

	private void log(HttpServiceGroup group) {
		if (logger.isDebugEnabled()) {
			logger.debug("HTTP service group '" + group.name() + "' uses provider '"
					+ this.providers.providerOf(group.name()).orElseThrow() + "'");
		}
	}

}
