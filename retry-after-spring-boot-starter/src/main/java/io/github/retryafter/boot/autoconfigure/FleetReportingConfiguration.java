package io.github.retryafter.boot.autoconfigure;

import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.retryafter.boot.actuate.RetryAfterFleetHealthIndicator;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.boot.metrics.RetryAfterFleetMetrics;

/**
 * The fleet's meters and health indicator, for whichever store defined the {@link FleetStatusProvider}. Imported by
 * {@link RetryAfterFleetAutoConfiguration} after the stores' configurations.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBean(FleetStatusProvider.class)
class FleetReportingConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class FleetMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryAfterFleetMetrics retryAfterFleetMetrics(FleetStatusProvider fleet) {
			return new RetryAfterFleetMetrics(fleet);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.springframework.boot.health.contributor.HealthIndicator",
			"org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator" })
	static class FleetHealthConfiguration {

		/** One level down: its condition's class exists only once the outer condition has passed. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnEnabledHealthIndicator("retryafterfleet")
		static class FleetHealthIndicatorConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "retryAfterFleetHealthIndicator")
			RetryAfterFleetHealthIndicator retryAfterFleetHealthIndicator(FleetStatusProvider fleet) {
				return new RetryAfterFleetHealthIndicator(fleet);
			}

		}

	}

}
