package io.github.retryafter.boot.autoconfigure;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.ReactorClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientBuilderConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.restclient.HandOverRestClientBuilder;
import io.github.retryafter.boot.restclient.OutcomeStatusHandler;
import io.github.retryafter.boot.restclient.RetryAfterClientHttpRequestInterceptor;

/**
 * Adds retry-after's interceptor to every {@link RestClient} built from Spring Boot's {@code RestClient.Builder}; makes
 * that builder a {@link HandOverRestClientBuilder}, so that a call retry-after gives up on ends with what the client's
 * own status handlers throw (the application's, Spring AI's, Spring's default), with how the operation ended attached
 * ({@link OutcomeStatusHandler} last, where no handler of theirs matched); and
 * turns off the transports' own retries (Apache HttpClient 5 retries 429 and 503 on the client clock by default) so
 * that every attempt is one the engine counted.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass({ RestClient.class, RestClientCustomizer.class })
@ConditionalOnBean(RetryAfterOperations.class)
@ConditionalOnBooleanProperty(name = "retry.after.rest-client.enabled", matchIfMissing = true)
public final class RetryAfterRestClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "retryAfterRestClientCustomizer")
	RestClientCustomizer retryAfterRestClientCustomizer(RetryAfterClientHttpRequestInterceptor interceptor) {
		return (builder) -> builder.requestInterceptor(interceptor);
	}

	/**
	 * Configures Boot's builders through a {@link HandOverRestClientBuilder}, from before the first customizer: the
	 * status handlers customizers, the application and libraries add to them keep deciding, with the hand-over
	 * attached to what they throw.
	 */
	@Bean
	@ConditionalOnClass(RestClientBuilderConfigurer.class)
	static BeanPostProcessor retryAfterRestClientBuilderConfigurerPostProcessor() {
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof RestClientBuilderConfigurer configurer
						&& !(bean instanceof HandOverRestClientBuilderConfigurer)) {
					return new HandOverRestClientBuilderConfigurer(configurer);
				}
				return bean;
			}
		};
	}

	/**
	 * The one interceptor RestClient and RestTemplate are given, unless the application defines its own: imported by
	 * both auto-configurations, so either stands without the other.
	 */
	@Configuration(proxyBeanMethods = false)
	static class InterceptorConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryAfterClientHttpRequestInterceptor retryAfterClientHttpRequestInterceptor(RetryAfterOperations operations,
				Ticker ticker, Sleeper sleeper) {
			return new RetryAfterClientHttpRequestInterceptor(operations, ticker, Waiter.of(ticker, sleeper));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientHttpRequestFactoryBuilderCustomizer.class,
			org.apache.hc.client5.http.impl.classic.HttpClientBuilder.class })
	static class HttpComponentsRetryConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "retryAfterHttpComponentsRetryDisabler")
		ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder> retryAfterHttpComponentsRetryDisabler() {
			return (builder) -> builder
				.withHttpClientCustomizer(org.apache.hc.client5.http.impl.classic.HttpClientBuilder::disableAutomaticRetries);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientHttpRequestFactoryBuilderCustomizer.class, reactor.netty.http.client.HttpClient.class })
	static class ReactorNettyRetryConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "retryAfterReactorRequestFactoryRetryDisabler")
		ClientHttpRequestFactoryBuilderCustomizer<ReactorClientHttpRequestFactoryBuilder> retryAfterReactorRequestFactoryRetryDisabler() {
			return (builder) -> builder.withHttpClientCustomizer((client) -> client.disableRetry(true));
		}

	}

}
