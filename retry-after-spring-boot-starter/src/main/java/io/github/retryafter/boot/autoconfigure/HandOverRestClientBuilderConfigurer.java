package io.github.retryafter.boot.autoconfigure;

import org.springframework.boot.restclient.autoconfigure.RestClientBuilderConfigurer;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.restclient.HandOverRestClientBuilder;

/**
 * Spring Boot's {@link RestClientBuilderConfigurer}, configuring through a {@link HandOverRestClientBuilder}: the
 * builder it returns, and the one every {@code RestClientCustomizer} is given, attach the hand-over to what their
 * default status handlers throw. Everything else is the configurer's own. Thread-safe, like the configurer.
 */
final class HandOverRestClientBuilderConfigurer extends RestClientBuilderConfigurer {

	private final RestClientBuilderConfigurer configurer;

	HandOverRestClientBuilderConfigurer(RestClientBuilderConfigurer configurer) {
		this.configurer = configurer;
	}

	@Override
	public RestClient.Builder configure(RestClient.Builder builder) {
		return this.configurer.configure(HandOverRestClientBuilder.of(builder));
	}

}
