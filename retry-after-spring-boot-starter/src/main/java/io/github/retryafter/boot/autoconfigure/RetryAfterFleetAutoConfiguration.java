package io.github.retryafter.boot.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.fleet.FleetCooldown;
import io.github.retryafter.boot.fleet.FleetCooldownListener;
import io.github.retryafter.boot.fleet.FleetThreads;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.FleetStore;

/**
 * Auto-configuration of the fleet: a retry budget and a provider cooldown shared by every instance of the application
 * through the store named by {@code retry.after.fleet.store}. Each store is one imported configuration that defines
 * a {@link FleetStore}, a {@link FleetCooldown} and a {@link io.github.retryafter.boot.fleet.FleetStatusProvider}:
 * today {@link RedisFleetConfiguration}. What does not depend on the store is defined once, here and in
 * {@link FleetReportingConfiguration}: the fleet's {@link FleetRetryBudget} over the store (before
 * {@link RetryAfterAutoConfiguration}'s local budget, which then backs off, and told which threads may block by
 * {@link FleetThreads}), the listener that publishes a provider's cooldown as soon as a gate closes, the
 * attachment of the cooldown to the engines' gates as the providers' registry is created (with provider pacing on,
 * its default), the meters and the health indicator.
 * <p>
 * The store configurations are imported before the store-neutral beans, whose conditions look for the store's beans.
 */
@AutoConfiguration(before = RetryAfterAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "retry.after.enabled", matchIfMissing = true)
@Import({ RedisFleetConfiguration.class, FleetReportingConfiguration.class })
public final class RetryAfterFleetAutoConfiguration {

	@Bean
	@ConditionalOnBean(FleetStore.class)
	@ConditionalOnMissingBean(RetryBudget.class)
	FleetRetryBudget retryAfterFleetBudget(FleetStore store, RetryAfterSettings settings, Ticker ticker) {
		return FleetRetryBudget.builder(store)
			.global(settings.globalBudget())
			.providers(settings.providerBudgets())
			.ticker(ticker)
			.maxOrigins(settings.maxOrigins())
			.mayBlock(FleetThreads.mayBlock(RetryAfterFleetAutoConfiguration.class.getClassLoader()))
			.build();
	}

	@Bean
	@ConditionalOnBean(FleetCooldown.class)
	@ConditionalOnMissingBean
	FleetCooldownListener retryAfterFleetCooldownListener(FleetCooldown cooldown) {
		return new FleetCooldownListener(cooldown);
	}

	/**
	 * Attaches the fleet's cooldown to the engines' gates as soon as the providers' registry exists: before any
	 * client that sends requests through it can be built, so that the cooldown's startup read (bounded, on this
	 * thread) has closed every gate the fleet knows of before an instance's first request. A later hook
	 * ({@code SmartInitializingSingleton}, an {@code ApplicationRunner}) would let a bean's own startup requests out
	 * first. Static, with a lazy lookup, so that it creates nothing early.
	 */
	@Bean
	@ConditionalOnBean(FleetCooldown.class)
	static BeanPostProcessor retryAfterFleetCooldownAttachment(ObjectProvider<FleetCooldown> cooldown) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof RetryAfterProviders all) {
					cooldown.ifAvailable((fleet) -> fleet.attach((name) -> all.get(name)
						.map((provider) -> provider.engine().gate(name).fleet())));
				}
				return bean;
			}

		};
	}

}
