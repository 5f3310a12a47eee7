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
import io.github.retryafter.boot.actuate.RetryAfterEndpointRuntimeHints;
import io.github.retryafter.boot.actuate.RetryAfterEvents;
import io.github.retryafter.boot.actuate.RetryAfterEventsEndpoint;
import io.github.retryafter.boot.fleet.FleetStatusProvider;

/**
 * Auto-configuration of the {@code retryafterevents} Actuator endpoint and the {@link RetryAfterEvents} ring buffer
 * that feeds it ({@code retry.after.events.capacity}, default 100), when the endpoint is available (enabled and
 * exposed, e.g. with {@code management.endpoints.web.exposure.include=retryafter,retryafterevents}).
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass(value = Endpoint.class, name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
@ConditionalOnBean(RetryAfterProviders.class)
@ConditionalOnAvailableEndpoint(RetryAfterEventsEndpoint.class)
@ImportRuntimeHints(RetryAfterEndpointRuntimeHints.class)
public final class RetryAfterEventsEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryAfterEvents retryAfterEvents(RetryAfterProperties properties, ObjectProvider<InstantSource> wallClocks,
			Ticker ticker, ObjectProvider<FleetStatusProvider> fleet) {
		RetryAfterEvents events = new RetryAfterEvents(properties.getEvents().getCapacity(),
				RetryAfterAutoConfiguration.wallClock(ticker, wallClocks));
		fleet.ifUnique((store) -> store.onFallback(events::fleetFellBack));
		return events;
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterEventsEndpoint retryAfterEventsEndpoint(RetryAfterEvents events) {
		return new RetryAfterEventsEndpoint(events);
	}

}
