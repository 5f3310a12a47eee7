package io.github.retryafter.boot.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterLogging;
import io.github.retryafter.boot.ProviderOrigins;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.RetryAfterWiring;
import io.github.retryafter.boot.observation.RetryAfterAttemptObservationConvention;
import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.observation.RetryAfterOperationObservationConvention;
import io.github.retryafter.boot.springai.ModelClients;
import io.github.retryafter.boot.springai.ModelClients.ModelClient;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.request.RequestPreparer.UnmatchedHostListener;

/**
 * Auto-configuration of retry-after's core: the settings (the properties mapped once), the clocks, the random
 * source, the shared retry budget, one engine per configured provider and the {@link RetryAfterOperations} the
 * clients use. Every bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "retry.after.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetryAfterProperties.class)
public final class RetryAfterAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RetryAfterAutoConfiguration.class);

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

	/**
	 * What is wired under each provider: its profile, its service groups, the client integrations that are on
	 * ({@link ProviderWiring}); the endpoint shows it.
	 */
	@Bean
	@ConditionalOnMissingBean
	RetryAfterWiring retryAfterWiring(RetryAfterSettings settings, RetryAfterProperties properties,
			Environment environment) {
		return ProviderWiring.of(settings.providers(), properties.getProviders(), clientsOn(environment));
	}

	/**
	 * Once every singleton is built (the model clients among them): one INFO line per provider, saying its profile,
	 * hosts, service groups and the clients under it ({@link ProviderWiring}).
	 */
	@Bean
	SmartInitializingSingleton retryAfterWiringReport(RetryAfterSettings settings, RetryAfterWiring wiring,
			ObjectProvider<ModelClients> models) {
		return () -> {
			if (!logger.isInfoEnabled()) {
				return;
			}
			List<ModelClient> clients = models.stream().flatMap((found) -> found.all().stream()).toList();
			ProviderWiring.lines(settings.providers(), wiring, clients).forEach(logger::info);
		};
	}

	/** The client integrations that are on, by the classes present and their switches. */
	private static List<String> clientsOn(Environment environment) {
		ClassLoader loader = RetryAfterAutoConfiguration.class.getClassLoader();
		List<String> on = new ArrayList<>();
		addIf(on, "RestClient", "org.springframework.web.client.RestClient", "rest-client", environment, loader);
		addIf(on, "RestTemplate", "org.springframework.boot.restclient.RestTemplateBuilder", "rest-template",
				environment, loader);
		addIf(on, "WebClient", "org.springframework.web.reactive.function.client.WebClient", "web-client",
				environment, loader);
		addIf(on, "OkHttp builders", "okhttp3.OkHttpClient", "ok-http", environment, loader);
		return on;
	}

	private static void addIf(List<String> on, String client, String type, String key, Environment environment,
			ClassLoader loader) {
		if (ClassUtils.isPresent(type, loader)
				&& environment.getProperty("retry.after." + key + ".enabled", Boolean.class, true)) {
			on.add(client);
		}
	}

	/**
	 * The properties, mapped once: every other bean of retry-after reads this one. An unknown property under
	 * {@code retry.after.*} fails here, naming the nearest valid one.
	 */
	@Bean
	@ConditionalOnMissingBean
	RetryAfterSettings retryAfterSettings(RetryAfterProperties properties, Environment environment) {
		UnknownProperties.check(environment);
		return new RetryAfterPropertiesMapper(properties).settings();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryBudget retryAfterBudget(RetryAfterSettings settings, Ticker ticker) {
		TokenBucketRetryBudget.Builder budget = TokenBucketRetryBudget.builder()
			.ticker(ticker)
			.global(settings.globalBudget())
			.maxOrigins(settings.maxOrigins());
		settings.providerBudgets().forEach(budget::provider);
		return budget.build();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterProviders retryAfterProviders(RetryAfterSettings settings, Ticker ticker,
			ObjectProvider<InstantSource> wallClocks, RandomSource random, RetryBudget budget,
			ObjectProvider<RetryListener> listeners) {
		InstantSource wallClock = wallClock(ticker, wallClocks);
		RetryListener listener = RetryListener.composite(listeners.orderedStream().toList());
		return new RetryAfterProviders(settings.providers(), (provider) -> RetryEngine.builder()
			.policy(provider.policy())
			.clientTimeouts(provider.clientTimeouts())
			.budget(budget)
			.ticker(ticker)
			.wallClock(wallClock)
			.random(random)
			.listener(listener)
			.maxOrigins(settings.maxOrigins())
			.build());
	}

	@Bean
	@ConditionalOnMissingBean
	RetryAfterOperations retryAfterOperations(RetryAfterProviders providers, RetryAfterSettings settings,
			Environment environment, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<RetryAfterOperationObservationConvention> operationConvention,
			ObjectProvider<RetryAfterAttemptObservationConvention> attemptConvention,
			ObjectProvider<UnmatchedHostListener> unmatchedHosts, ObjectProvider<ProviderOrigins> origins) {
		RetryAfterObservations observations = new RetryAfterObservations(
				observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), operationConvention.getIfUnique(),
				attemptConvention.getIfUnique());
		// a fleet's recorder of the hosts it does not share; none (and no cost) without a fleet store
		return new RetryAfterOperations(providers, instanceKey(settings, environment), observations,
				unmatchedHosts.getIfUnique(() -> UnmatchedHostListener.NONE),
				origins.getIfUnique(() -> ProviderOrigins.NONE));
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

	static String instanceKey(RetryAfterSettings settings, Environment environment) {
		return settings.jitterKey().orElseGet(() -> defaultInstanceKey(environment));
	}

	private static String defaultInstanceKey(Environment environment) {
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
