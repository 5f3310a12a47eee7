package io.github.retryafter.boot.autoconfigure;

import java.time.InstantSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterWiring;
import io.github.retryafter.boot.actuate.RetryAfterActivity;
import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.actuate.RetryAfterEndpointRuntimeHints;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.boot.fleet.UnsharedHosts;
import io.github.retryafter.boot.springai.ModelClients;
import io.github.retryafter.fleet.SharedCooldown;

/**
 * Auto-configuration of the {@code retryafter} Actuator endpoint and the {@link RetryAfterActivity} listener that
 * feeds it, when Spring Boot Actuator is present and the endpoint is available (enabled and exposed, e.g. with
 * {@code management.endpoints.web.exposure.include=retryafter}).
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass(value = Endpoint.class, name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
@ConditionalOnBean(RetryAfterProviders.class)
@ConditionalOnAvailableEndpoint(RetryAfterEndpoint.class)
@ImportRuntimeHints(RetryAfterEndpointRuntimeHints.class)
public final class RetryAfterEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryAfterActivity retryAfterActivity(ObjectProvider<InstantSource> wallClocks, Ticker ticker,
			ObjectProvider<RetryAfterProviders> providers) {
		// the providers are read lazily: this listener is created while the providers' engines are being built
		return new RetryAfterActivity(RetryAfterAutoConfiguration.wallClock(ticker, wallClocks), ticker,
				providers::getObject);
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterEndpoint retryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity,
			ObjectProvider<FleetStatusProvider> fleet, ObjectProvider<SharedCooldown> fleetCooldown,
			ObjectProvider<UnsharedHosts> unsharedHosts, ObjectProvider<ModelClients> modelClients,
			ObjectProvider<RetryAfterWiring> wiring) {
		return new RetryAfterEndpoint(providers, activity, fleet.getIfUnique(), fleetCooldown.getIfUnique(),
				unsharedHosts.getIfUnique(), modelClients.getIfUnique(), wiring.getIfUnique());
	}

}
