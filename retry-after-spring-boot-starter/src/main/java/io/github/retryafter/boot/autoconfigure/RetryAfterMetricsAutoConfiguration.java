package io.github.retryafter.boot.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.metrics.AttemptActiveMeterFilter;
import io.github.retryafter.boot.metrics.ObservationMeterDescriptions;
import io.github.retryafter.boot.metrics.RetryAfterMetrics;

/**
 * Auto-configuration of retry-after's Micrometer metrics: a {@link RetryAfterMetrics} bean, which is both a
 * {@link io.github.retryafter.engine.RetryListener} (so {@link RetryAfterAutoConfiguration} hands it to every engine)
 * and a {@link MeterBinder} (so Spring Boot binds it to the {@link MeterRegistry} once every singleton exists).
 * Histograms and percentiles of {@code retry.after.wait} are off by default and turned on with Spring Boot's
 * {@code management.metrics.distribution.*} properties.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({ MeterRegistry.class, MeterBinder.class })
@ConditionalOnBean({ MeterRegistry.class, RetryAfterProviders.class })
public final class RetryAfterMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryAfterMetrics retryAfterMetrics(ObjectProvider<RetryAfterProviders> providers, Ticker ticker) {
		// the providers are read lazily: this listener is created while the providers' engines are being built
		return new RetryAfterMetrics(providers::getObject, ticker);
	}

	/**
	 * Describes the meters made of the starter's observations (Spring Boot applies every {@code MeterFilter} bean to
	 * its registries), so each has a {@code # HELP} text in a Prometheus scrape.
	 */
	@Bean
	@ConditionalOnMissingBean
	ObservationMeterDescriptions retryAfterObservationMeterDescriptions() {
		return new ObservationMeterDescriptions();
	}

	/**
	 * Leaves out the attempts' long-task timer, which the operations' says with their waits, to keep the scrape small;
	 * Spring Boot's {@code management.metrics.enable.retry.after.attempt.active=true} keeps it.
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "management.metrics.enable." + AttemptActiveMeterFilter.ATTEMPT_ACTIVE,
			havingValue = "false", matchIfMissing = true)
	AttemptActiveMeterFilter retryAfterAttemptActiveMeterFilter() {
		return new AttemptActiveMeterFilter();
	}

}
