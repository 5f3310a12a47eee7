package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.Locale;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.fleet.FleetThreads;
import io.github.retryafter.boot.fleet.UnsharedHosts;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.fleet.FleetRetryBudget;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.fleet.SharedCooldownBuilder;
import io.github.retryafter.fleet.SharedCooldownListener;

/**
 * Auto-configuration of the fleet: a retry budget and a provider cooldown shared by every instance of the application
 * through the store named by {@code retry.after.fleet.store}. Each store is one imported configuration that defines
 * a {@link FleetStore} and a {@link io.github.retryafter.boot.fleet.FleetStatusProvider}: today
 * {@link RedisFleetConfiguration}. What does not depend on the store is defined once, here and in
 * {@link FleetReportingConfiguration}: the fleet's {@link FleetRetryBudget} and {@link SharedCooldown} over the store
 * (the budget before {@link RetryAfterAutoConfiguration}'s local budget, which then backs off; both told which threads
 * may block by {@link FleetThreads}), the listener that publishes a provider's cooldown as soon as a gate closes, the
 * attachment of the cooldown to the engines' gates as the providers' registry is created (with provider pacing on,
 * its default), the {@link UnsharedHosts} that says what the fleet does not share, the meters and the health
 * indicator.
 * <p>
 * The store configurations are imported before the store-neutral beans, whose conditions look for the store's beans.
 */
@AutoConfiguration(before = RetryAfterAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "retry.after.enabled", matchIfMissing = true)
@Import({ RedisFleetConfiguration.class, FleetReportingConfiguration.class })
@EnableConfigurationProperties(RetryAfterFleetProperties.class)
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
	@ConditionalOnBean(FleetStore.class)
	@ConditionalOnMissingBean
	SharedCooldown retryAfterFleetCooldown(FleetStore store, RetryAfterSettings settings, Ticker ticker,
			RetryAfterFleetProperties properties) {
		SharedCooldownBuilder builder = SharedCooldown.builder(store)
			.ticker(ticker)
			.flushInterval(properties.getFlushInterval())
			.mayBlock(FleetThreads.mayBlock(RetryAfterFleetAutoConfiguration.class.getClassLoader()));
		// the fleet waits for a probe's answer as long as the probe's attempt may take
		settings.providers()
			.forEach((provider) -> builder.provider(provider.name(), cooldownCap(provider),
					provider.policy().attemptTimeout()));
		return builder.build();
	}

	/**
	 * The longest cooldown of a provider, the one place the fleet reads it: its {@code pacing.max-cooldown} (which is
	 * its {@code max-wait} unless set), the cap its own gate applies ({@link SharedCooldown#DEFAULT_CAP} if zero). A
	 * store's record lives this long plus one second at most.
	 */
	static Duration cooldownCap(ProviderSettings provider) {
		Duration cap = provider.policy().pacing().maxCooldown();
		return cap.isZero() ? SharedCooldown.DEFAULT_CAP : cap;
	}

	/**
	 * Says at startup what the fleet shares, and records the hosts it does not: those no provider lists, whose calls
	 * use {@code default}, kept per instance. The request preparer tells it of them.
	 */
	@Bean
	@ConditionalOnBean(FleetStore.class)
	@ConditionalOnMissingBean
	UnsharedHosts retryAfterFleetUnsharedHosts(FleetStore store, RetryAfterSettings settings,
			RetryAfterFleetProperties properties) {
		String name = (properties.getStore() != RetryAfterFleetProperties.Store.NONE)
				? properties.getStore().name().toLowerCase(Locale.ROOT) : store.getClass().getSimpleName();
		return UnsharedHosts.announce(name, settings.providers(), settings.maxOrigins());
	}

	@Bean
	@ConditionalOnBean(SharedCooldown.class)
	@ConditionalOnMissingBean
	SharedCooldownListener retryAfterFleetCooldownListener(SharedCooldown cooldown) {
		return new SharedCooldownListener(cooldown);
	}

	/**
	 * Attaches the fleet's cooldown to the engines' gates as soon as the providers' registry exists: before any
	 * client that sends requests through it can be built, so that the cooldown's startup read (bounded, on this
	 * thread) has closed every gate the fleet knows of before an instance's first request. A later hook
	 * ({@code SmartInitializingSingleton}, an {@code ApplicationRunner}) would let a bean's own startup requests out
	 * first. Static, with a lazy lookup, so that it creates nothing early.
	 */
	@Bean
	@ConditionalOnBean(FleetStore.class)
	static BeanPostProcessor retryAfterFleetCooldownAttachment(ObjectProvider<SharedCooldown> cooldown) {
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
