package io.github.retryafter.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.actuate.RetryAfterFleetHealthIndicator;
import io.github.retryafter.boot.fleet.FleetCooldownListener;
import io.github.retryafter.boot.fleet.FleetSettings;
import io.github.retryafter.boot.fleet.RedisFleet;
import io.github.retryafter.boot.fleet.RedisProviderCooldown;
import io.github.retryafter.boot.fleet.RedisRetryBudget;
import io.github.retryafter.boot.metrics.RetryAfterFleetMetrics;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;

/**
 * Auto-configuration of the fleet-wide retry budget and provider cooldown on Redis, when
 * {@code retry.after.fleet.store=redis} and Spring Data Redis with Lettuce is present: its {@link RetryBudget} is
 * defined before {@link RetryAfterAutoConfiguration}'s local one, which backs off, and its
 * {@link RedisProviderCooldown} closes every instance's gate of a provider that is cooling down anywhere in the fleet
 * (with provider pacing on, its default). It uses the application's {@link RedisConnectionFactory} (Spring Boot's
 * {@code spring.data.redis.*}), which must be Lettuce's.
 */
@AutoConfiguration(before = RetryAfterAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "retry.after.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "retry.after.fleet.store", havingValue = "redis")
@ConditionalOnClass({ LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class })
@EnableConfigurationProperties({ RetryAfterFleetProperties.class, RetryAfterProperties.class })
public final class RetryAfterFleetAutoConfiguration {

	static final String DEFAULT_KEY_PREFIX = "retry-after";

	@Bean
	@ConditionalOnMissingBean
	RedisFleet retryAfterRedisFleet(RetryAfterFleetProperties properties, RedisConnectionFactory factory,
			Environment environment) {
		// a direct dependency, so that the fleet is closed (and flushed) before the connection factory
		if (!(factory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalStateException("retry.after.fleet.store=redis needs Spring Data Redis with Lettuce "
					+ "(spring-boot-starter-data-redis), but the RedisConnectionFactory is a "
					+ factory.getClass().getName());
		}
		String prefix = properties.getKeyPrefix();
		if (!StringUtils.hasText(prefix)) {
			prefix = environment.getProperty("spring.application.name", DEFAULT_KEY_PREFIX);
		}
		FleetSettings settings = new FleetSettings(prefix, properties.getCommandTimeout(),
				properties.getFlushInterval(), properties.getProbeInterval(), properties.getKeyTtl());
		// the shared native connection: opened on the fleet's thread, never on a request's
		return new RedisFleet(() -> ((LettuceConnection) lettuce.getConnection()).getNativeConnection(), settings);
	}

	/**
	 * Closes the fleet when the context starts closing: before the connection factory stops (it is a lifecycle bean,
	 * stopped before any bean is destroyed), so that the last deposits are flushed.
	 */
	@Bean
	ApplicationListener<ContextClosedEvent> retryAfterFleetShutdown(ObjectProvider<RedisFleet> fleet) {
		return (event) -> fleet.ifAvailable(RedisFleet::close);
	}

	@Bean
	@ConditionalOnMissingBean(RetryBudget.class)
	RedisRetryBudget retryAfterFleetBudget(RedisFleet fleet, RetryAfterProperties properties, Ticker ticker) {
		RetryAfterPropertiesMapper mapper = new RetryAfterPropertiesMapper(properties);
		Map<String, BudgetSettings> providers = new LinkedHashMap<>();
		for (ProviderSettings provider : mapper.providers()) {
			providers.put(provider.name(), provider.budget());
		}
		return new RedisRetryBudget(fleet, mapper.globalBudget(), providers, ticker);
	}

	@Bean
	@ConditionalOnMissingBean
	RedisProviderCooldown retryAfterFleetCooldown(RedisFleet fleet, RetryAfterProperties properties, Ticker ticker) {
		List<String> providers = new RetryAfterPropertiesMapper(properties).providers()
			.stream()
			.map(ProviderSettings::name)
			.toList();
		return new RedisProviderCooldown(fleet, providers, ticker);
	}

	@Bean
	@ConditionalOnMissingBean
	FleetCooldownListener retryAfterFleetCooldownListener(RedisProviderCooldown cooldown) {
		return new FleetCooldownListener(cooldown);
	}

	/**
	 * Attaches the fleet's cooldown to the engines' gates once every singleton exists: the engines are built after
	 * the fleet's beans, with the fleet's listener among theirs.
	 */
	@Bean
	SmartInitializingSingleton retryAfterFleetCooldownAttachment(RedisProviderCooldown cooldown,
			ObjectProvider<RetryAfterProviders> providers) {
		return () -> providers.ifAvailable((all) -> cooldown.attach((name) -> all.get(name)
			.map((provider) -> provider.engine().gate(name))));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class FleetMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryAfterFleetMetrics retryAfterFleetMetrics(RedisFleet fleet) {
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
			RetryAfterFleetHealthIndicator retryAfterFleetHealthIndicator(RedisFleet fleet) {
				return new RetryAfterFleetHealthIndicator(fleet);
			}

		}

	}

}
