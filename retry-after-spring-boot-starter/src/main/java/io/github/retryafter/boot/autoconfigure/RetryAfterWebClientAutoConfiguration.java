package io.github.retryafter.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.http.client.autoconfigure.reactive.ClientHttpConnectorBuilderCustomizer;
import org.springframework.boot.http.client.reactive.ReactorClientHttpConnectorBuilder;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.scheduler.Schedulers;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;

/**
 * Adds retry-after's filter to every {@link WebClient} built from Spring Boot's {@code WebClient.Builder}, and turns
 * off Reactor Netty's own retry so that every attempt is one the engine counted.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass({ WebClient.class, WebClientCustomizer.class })
@ConditionalOnBean(RetryAfterOperations.class)
@ConditionalOnBooleanProperty(name = "retry.after.web-client.enabled", matchIfMissing = true)
public final class RetryAfterWebClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryAfterExchangeFilterFunction retryAfterExchangeFilterFunction(RetryAfterOperations operations, Ticker ticker) {
		return new RetryAfterExchangeFilterFunction(operations, ticker, Schedulers.parallel());
	}

	@Bean
	@ConditionalOnMissingBean(name = "retryAfterWebClientCustomizer")
	WebClientCustomizer retryAfterWebClientCustomizer(RetryAfterExchangeFilterFunction filter) {
		return (builder) -> builder.filter(filter);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientHttpConnectorBuilderCustomizer.class, reactor.netty.http.client.HttpClient.class })
	static class ReactorNettyRetryConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "retryAfterReactorNettyRetryDisabler")
		ClientHttpConnectorBuilderCustomizer<ReactorClientHttpConnectorBuilder> retryAfterReactorNettyRetryDisabler() {
			return (builder) -> builder.withHttpClientCustomizer((client) -> client.disableRetry(true));
		}

	}

}
