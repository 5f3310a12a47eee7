package io.github.retryafter.boot.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.restclient.RetryAfterClientHttpRequestInterceptor;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class,
				RestClientAutoConfiguration.class));

	@Test
	void providesEveryBeanWithZeroConfiguration() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class)
				.hasSingleBean(RandomSource.class)
				.hasSingleBean(RetryBudget.class)
				.hasSingleBean(RetryAfterProviders.class)
				.hasSingleBean(RetryAfterOperations.class)
				.hasSingleBean(RetryAfterExchangeFilterFunction.class)
				.hasSingleBean(RetryAfterClientHttpRequestInterceptor.class)
				.hasBean("retryAfterWebClientCustomizer")
				.hasBean("retryAfterRestClientCustomizer");
			ProviderSettings defaults = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().settings();
			assertThat(defaults.policy().maxAttempts()).isEqualTo(4);
			assertThat(defaults.policy().planner().maxWait()).contains(Duration.ofSeconds(30));
			assertThat(defaults.idempotencyKeyEnabled()).isFalse();
			assertThat(defaults.maxReplayBodyBytes()).isEqualTo(1024 * 1024);
		});
	}

	@Test
	void webClientFromBootsBuilderCarriesTheFilter() {
		this.contextRunner.run((context) -> {
			RetryAfterExchangeFilterFunction filter = context.getBean(RetryAfterExchangeFilterFunction.class);
			WebClient.Builder builder = context.getBean(WebClient.Builder.class);
			builder.filters((filters) -> assertThat(filters).contains(filter));
		});
	}

	@Test
	void restClientFromBootsBuilderCarriesTheInterceptor() {
		this.contextRunner.run((context) -> {
			RetryAfterClientHttpRequestInterceptor interceptor = context
				.getBean(RetryAfterClientHttpRequestInterceptor.class);
			RestClient.Builder builder = context.getBean(RestClient.Builder.class);
			builder.requestInterceptors((interceptors) -> assertThat(interceptors).contains(interceptor));
		});
	}

	@Test
	void backsOffWhenUserDefinesTheirOwnTickerAndBudget() {
		Ticker ticker = () -> 42L;
		RetryBudget budget = RetryBudget.unlimited();
		this.contextRunner.withBean(Ticker.class, () -> ticker)
			.withBean(RetryBudget.class, () -> budget)
			.run((context) -> {
				assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(RetryBudget.class);
				assertThat(context.getBean(Ticker.class)).isSameAs(ticker);
				assertThat(context.getBean(RetryBudget.class)).isSameAs(budget);
			});
	}

	@Test
	void backsOffWhenUserDefinesTheirOwnFilterAndInterceptor() {
		this.contextRunner.withUserConfiguration(UserClientsConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RetryAfterExchangeFilterFunction.class)
				.hasSingleBean(RetryAfterClientHttpRequestInterceptor.class);
			assertThat(context.getBean(RetryAfterExchangeFilterFunction.class))
				.isSameAs(context.getBean("myFilter"));
			assertThat(context.getBean(RetryAfterClientHttpRequestInterceptor.class))
				.isSameAs(context.getBean("myInterceptor"));
		});
	}

	@Test
	void turnsOffEntirelyWithEnabledFalse() {
		this.contextRunner.withPropertyValues("retry.after.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetryAfterOperations.class)
				.doesNotHaveBean(RetryAfterExchangeFilterFunction.class)
				.doesNotHaveBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void eachClientIntegrationCanBeSwitchedOff() {
		this.contextRunner.withPropertyValues("retry.after.web-client.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetryAfterExchangeFilterFunction.class)
				.hasSingleBean(RetryAfterClientHttpRequestInterceptor.class));
		this.contextRunner.withPropertyValues("retry.after.rest-client.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(RetryAfterExchangeFilterFunction.class)
				.doesNotHaveBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void worksWithoutWebFlux() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(WebClient.class, WebClientCustomizer.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RetryAfterExchangeFilterFunction.class)
				.hasSingleBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void worksWithoutSpringWebsRestClient() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RestClient.class, RestClientCustomizer.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RetryAfterExchangeFilterFunction.class)
				.doesNotHaveBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void worksWithoutAnyHttpClient() {
		this.contextRunner
			.withClassLoader(new FilteredClassLoader(WebClient.class, WebClientCustomizer.class, RestClient.class,
					RestClientCustomizer.class, io.micrometer.core.instrument.MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RetryAfterOperations.class)
				.doesNotHaveBean(RetryAfterExchangeFilterFunction.class)
				.doesNotHaveBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void providerSettingsOverrideGlobalOnesFieldByField() {
		this.contextRunner
			.withPropertyValues("retry.after.max-attempts=6", "retry.after.deadline=20s", "retry.after.hint-mode=exact",
					"retry.after.budget.capacity=7", "retry.after.providers.payments.hosts=api.pay.example,*.pay.example",
					"retry.after.providers.payments.max-attempts=2",
					"retry.after.providers.payments.idempotency-key.enabled=true",
					"retry.after.providers.payments.budget.refill-per-second=0.5",
					"retry.after.providers.payments.max-wait=2m", "retry.after.providers.payments.deadline=3m")
			.run((context) -> {
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				ProviderSettings payments = providers.get("payments").orElseThrow().settings();
				assertThat(payments.policy().maxAttempts()).isEqualTo(2);
				assertThat(payments.policy().deadline()).isEqualTo(Duration.ofMinutes(3));
				assertThat(payments.policy().hintMode()).isEqualTo(HintMode.EXACT);
				assertThat(payments.policy().planner().maxWait()).contains(Duration.ofMinutes(2));
				assertThat(payments.idempotencyKeyEnabled()).isTrue();
				assertThat(payments.budget().capacity()).isEqualTo(7);
				assertThat(payments.budget().refillPerSecond()).isEqualTo(0.5);
				ProviderSettings defaults = providers.get("default").orElseThrow().settings();
				assertThat(defaults.policy().maxAttempts()).isEqualTo(6);
				assertThat(defaults.policy().deadline()).isEqualTo(Duration.ofSeconds(20));
				assertThat(defaults.idempotencyKeyEnabled()).isFalse();
				assertThat(providers.resolve(java.net.URI.create("https://api.pay.example/x"), java.util.Optional.empty())
					.name()).isEqualTo("payments");
				assertThat(providers.resolve(java.net.URI.create("https://eu.pay.example/x"), java.util.Optional.empty())
					.name()).isEqualTo("payments");
				assertThat(providers.resolve(java.net.URI.create("https://pay.example.org/x"), java.util.Optional.empty())
					.name()).isEqualTo("default");
				TokenBucketRetryBudget budget = (TokenBucketRetryBudget) context.getBean(RetryBudget.class);
				assertThat(budget.settingsFor("payments").refillPerSecond()).isEqualTo(0.5);
			});
	}

	@Test
	void pacingHoldsByDefaultAndIsSetGloballyAndPerProvider() {
		this.contextRunner
			.withPropertyValues("retry.after.pacing.max-rate=400", "retry.after.pacing.fresh-share=0.2",
					"retry.after.providers.payments.hosts=api.pay.example",
					"retry.after.providers.payments.pacing.mode=fail-fast",
					"retry.after.providers.payments.pacing.burst=3",
					"retry.after.providers.payments.pacing.decrease-factor=0.5",
					"retry.after.providers.legacy.pacing.mode=off", "retry.after.providers.legacy.pacing.min-rate=2")
			.run((context) -> {
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				PacingSettings defaults = providers.get("default").orElseThrow().settings().policy().pacing();
				assertThat(defaults).isEqualTo(PacingSettings.builder().maxRate(400).freshShare(0.2).build());
				PacingSettings payments = providers.get("payments").orElseThrow().settings().policy().pacing();
				assertThat(payments).isEqualTo(PacingSettings.builder()
					.mode(PacingMode.FAIL_FAST)
					.maxRate(400)
					.freshShare(0.2)
					.burst(3)
					.decreaseFactor(0.5)
					.build());
				PacingSettings legacy = providers.get("legacy").orElseThrow().settings().policy().pacing();
				assertThat(legacy.enabled()).isFalse();
				assertThat(legacy.minRate()).isEqualTo(2);
			});
		this.contextRunner.run((context) -> assertThat(
				context.getBean(RetryAfterProviders.class).get("default").orElseThrow().settings().policy().pacing())
			.isEqualTo(PacingSettings.DEFAULTS));
	}

	@Test
	void rateLimitFieldsAreReadByDefaultAndTurnedOffGloballyOrPerProvider() {
		this.contextRunner
			.withPropertyValues("retry.after.pacing.rate-limit-fields.enabled=false",
					"retry.after.providers.github.hosts=api.github.com",
					"retry.after.providers.github.pacing.rate-limit-fields.enabled=true",
					"retry.after.providers.other.hosts=api.other.example")
			.run((context) -> {
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				assertThat(providers.get("default").orElseThrow().settings().policy().pacing().rateLimitFields())
					.isFalse();
				assertThat(providers.get("other").orElseThrow().settings().policy().pacing().rateLimitFields())
					.isFalse();
				assertThat(providers.get("github").orElseThrow().settings().policy().pacing())
					.isEqualTo(PacingSettings.DEFAULTS);
			});
	}

	@Test
	void badPacingValuesFailAtStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("retry.after.providers.payments.pacing.fresh-share=1.5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("retry.after.providers.payments.pacing.fresh-share")
				.hasMessageContaining("1.5");
		});
		this.contextRunner.withPropertyValues("retry.after.pacing.min-rate=50", "retry.after.pacing.max-rate=10")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("retry.after.pacing.max-rate")
				.hasMessageContaining("at least minRate"));
	}

	@Test
	void negativeMaxAttemptsFailsAtStartupNamingThePropertyAndValue() {
		this.contextRunner.withPropertyValues("retry.after.max-attempts=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("retry.after.max-attempts")
				.hasMessageContaining("-1");
		});
	}

	@Test
	void negativeMaxWaitOfAProviderFailsAtStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("retry.after.providers.slow.max-wait=-5s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("retry.after.providers.slow.max-wait")
				.hasMessageContaining("PT-5S");
		});
	}

	@Test
	void unknownHintModeFailsAtStartupNamingThePropertyAndValue() {
		this.contextRunner.withPropertyValues("retry.after.hint-mode=capped").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("retry.after.hint-mode")
				.hasStackTraceContaining("capped");
		});
	}

	@Test
	void hostListedUnderTwoProvidersFailsAtStartup() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.a.hosts=api.example.com",
					"retry.after.providers.b.hosts=API.example.com")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("retry.after.providers.b.hosts")
					.hasMessageContaining("API.example.com")
					.hasMessageContaining("'a'");
			});
	}

	@Test
	void jitterKeyDefaultsToApplicationHostAndProcess() {
		this.contextRunner.withPropertyValues("spring.application.name=orders").run((context) -> {
			RetryAfterSettings settings = context.getBean(RetryAfterSettings.class);
			String key = RetryAfterAutoConfiguration.instanceKey(settings, context.getEnvironment());
			assertThat(key).startsWith("orders@").endsWith("#" + ProcessHandle.current().pid());
		});
		this.contextRunner.withPropertyValues("retry.after.jitter-key=pod-7").run((context) -> {
			RetryAfterSettings settings = context.getBean(RetryAfterSettings.class);
			assertThat(RetryAfterAutoConfiguration.instanceKey(settings, context.getEnvironment())).isEqualTo("pod-7");
		});
	}

	@Test
	void mapsThePropertiesOnceIntoOneSettingsBeanThatTheOperationsAndBudgetAreBuiltFrom() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.payments.hosts=api.pay.example",
					"retry.after.providers.payments.max-attempts=2", "retry.after.global-budget.capacity=50")
			.run((context) -> {
				assertThat(context).hasSingleBean(RetryAfterSettings.class).hasSingleBean(RetryAfterOperations.class);
				RetryAfterSettings settings = context.getBean(RetryAfterSettings.class);
				RetryAfterOperations operations = context.getBean(RetryAfterOperations.class);
				assertThat(operations.providers()).isSameAs(context.getBean(RetryAfterProviders.class));
				assertThat(operations.providers().all()).extracting(RetryAfterProviders.Provider::name)
					.containsExactlyInAnyOrderElementsOf(settings.providerNames());
				for (ProviderSettings each : settings.providers()) {
					RetryAfterProviders.Provider provider = operations.providers().get(each.name()).orElseThrow();
					assertThat(provider.settings()).isSameAs(each);
					assertThat(provider.engine().policy()).isSameAs(each.policy());
					assertThat(provider.engine().budget()).isSameAs(context.getBean(RetryBudget.class));
				}
				assertThat(context.getBean(RetryBudget.class).globalSettings()).contains(settings.globalBudget());
				assertThat(settings.globalBudget().capacity()).isEqualTo(50);
			});
	}

	@Test
	void buildsTheOperationsFromAUserDefinedSettingsBeanAndIgnoresTheProperties() {
		RetryAfterSettings mine = new RetryAfterSettings(
				List.of(new ProviderSettings("default", List.of(), RetryPolicy.builder().maxAttempts(2).build(),
						BudgetSettings.ofCapacity(3), false, 0),
						new ProviderSettings("billing", List.of("billing.example"), RetryPolicy.DEFAULTS,
								BudgetSettings.ofCapacity(4), true, 0)),
				BudgetSettings.ofCapacity(5), Optional.of("pod-9"));
		this.contextRunner.withBean(RetryAfterSettings.class, () -> mine)
			.withPropertyValues("retry.after.max-attempts=9", "retry.after.providers.payments.hosts=api.pay.example")
			.run((context) -> {
				assertThat(context).hasSingleBean(RetryAfterSettings.class).hasSingleBean(RetryAfterOperations.class);
				RetryAfterProviders providers = context.getBean(RetryAfterOperations.class).providers();
				assertThat(providers.all()).extracting(RetryAfterProviders.Provider::name)
					.containsExactlyInAnyOrder("default", "billing");
				assertThat(providers.get("default").orElseThrow().engine().policy().maxAttempts()).isEqualTo(2);
				assertThat(providers.resolve(URI.create("https://billing.example/"), Optional.empty()).name())
					.isEqualTo("billing");
				RetryBudget budget = context.getBean(RetryBudget.class);
				assertThat(budget.globalSettings()).contains(BudgetSettings.ofCapacity(5));
				assertThat(budget.providerTokens("billing")).isEqualTo(4);
				assertThat(RetryAfterAutoConfiguration.instanceKey(mine, context.getEnvironment())).isEqualTo("pod-9");
			});
	}

	@Test
	void backsOffWhenUserDefinesTheirOwnOperations() {
		this.contextRunner.withUserConfiguration(UserOperationsConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RetryAfterOperations.class)
				.hasSingleBean(RetryAfterExchangeFilterFunction.class)
				.hasSingleBean(RetryAfterClientHttpRequestInterceptor.class);
			assertThat(context.getBean(RetryAfterOperations.class)).isSameAs(context.getBean("myOperations"));
		});
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class UserOperationsConfiguration {

		@org.springframework.context.annotation.Bean
		RetryAfterOperations myOperations(RetryAfterProviders providers) {
			return new RetryAfterOperations(providers, "my-instance");
		}

	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class UserClientsConfiguration {

		@org.springframework.context.annotation.Bean
		RetryAfterExchangeFilterFunction myFilter(RetryAfterOperations operations) {
			return new RetryAfterExchangeFilterFunction(operations, Ticker.system(),
					reactor.core.scheduler.Schedulers.immediate());
		}

		@org.springframework.context.annotation.Bean
		RetryAfterClientHttpRequestInterceptor myInterceptor(RetryAfterOperations operations) {
			return new RetryAfterClientHttpRequestInterceptor(operations, Ticker.system(),
					io.github.retryafter.Waiter.system());
		}

	}

}
