package io.github.retryafter.boot.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.InstantSource;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterLogging;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;

/**
 * Auto-configuration of retry-after's core: the clocks, the random source, the shared retry budget and one engine
 * per configured provider. Every bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "retry.after.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetryAfterProperties.class)
public final class RetryAfterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Ticker retryAfterTicker() {
		return Ticker.system();
	}

	@Bean
	@ConditionalOnMissingBean
	RandomSource retryAfterRandomSource() {
		return RandomSource.threadLocal();
	}

	@Bean
	@ConditionalOnMissingBean
	Sleeper retryAfterSleeper() {
		return Sleeper.system();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterLogging retryAfterLogging() {
		return new RetryAfterLogging();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryBudget retryAfterBudget(RetryAfterProperties properties, Ticker ticker) {
		RetryAfterPropertiesMapper mapper = new RetryAfterPropertiesMapper(properties);
		TokenBucketRetryBudget.Builder budget = TokenBucketRetryBudget.builder().ticker(ticker).global(mapper.globalBudget());
		for (ProviderSettings provider : mapper.providers()) {
			budget.provider(provider.name(), provider.budget());
		}
		return budget.build();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterProviders retryAfterProviders(RetryAfterProperties properties, Ticker ticker,
			ObjectProvider<InstantSource> wallClocks, RandomSource random, RetryBudget budget,
			ObjectProvider<RetryListener> listeners) {
		InstantSource wallClock = wallClock(ticker, wallClocks);
		List<RetryListener> all = listeners.orderedStream().toList();
		RetryListener listener = RetryListener.composite(all);
		return new RetryAfterProviders(new RetryAfterPropertiesMapper(properties).providers(),
				(settings) -> RetryEngine.builder()
					.policy(settings.policy())
					.budget(budget)
					.ticker(ticker)
					.wallClock(wallClock)
					.random(random)
					.listener(listener)
					.build());
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterOperations retryAfterOperations(RetryAfterProviders providers, RetryAfterProperties properties,
			Environment environment) {
		return new RetryAfterOperations(providers, instanceKey(properties, environment));
	}

	@Bean
	ApplicationListener<ContextClosedEvent> retryAfterShutdown(ObjectProvider<RetryAfterOperations> operations) {
		return (event) -> operations.ifAvailable(RetryAfterOperations::close);
	}

	/**
	 * The wall clock is read only to report skew and for {@code on-missing-date: trust-client-clock}: a ticker that is
	 * also an {@link InstantSource} (a test's fake clock) drives both, else the application's single
	 * {@code InstantSource} or {@code Clock} bean, else the system clock.
	 */
	static InstantSource wallClock(Ticker ticker, ObjectProvider<InstantSource> wallClocks) {
		if (ticker instanceof InstantSource both) {
			return both;
		}
		return wallClocks.getIfUnique(InstantSource::system);
	}

	static String instanceKey(RetryAfterProperties properties, Environment environment) {
		if (StringUtils.hasText(properties.getJitterKey())) {
			return properties.getJitterKey();
		}
		String application = environment.getProperty("spring.application.name", "application");
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			host = "unknown-host";
		}
		return application + "@" + host + "#" + ProcessHandle.current().pid();
	}

}
