package io.github.retryafter.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.client.RestTemplate;

import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.restclient.HandOver;
import io.github.retryafter.boot.restclient.RetryAfterClientHttpRequestInterceptor;

/**
 * Adds retry-after's RestClient interceptor to every {@link RestTemplate} built from Spring Boot's
 * {@code RestTemplateBuilder}, last, and wraps the template's error handler so that a call retry-after gives up on ends
 * with what that handler throws without retry-after (the application's, Spring's default), with how the operation
 * ended attached ({@link HandOver}). Turns off the transports' own retries as the RestClient auto-configuration does,
 * also when the RestClient integration is switched off.
 */
@AutoConfiguration(after = RetryAfterRestClientAutoConfiguration.class)
@ConditionalOnClass({ RestTemplate.class, RestTemplateCustomizer.class })
@ConditionalOnBean(RetryAfterOperations.class)
@ConditionalOnBooleanProperty(name = "retry.after.rest-template.enabled", matchIfMissing = true)
@Import({ RetryAfterRestClientAutoConfiguration.InterceptorConfiguration.class,
		RetryAfterRestClientAutoConfiguration.HttpComponentsRetryConfiguration.class,
		RetryAfterRestClientAutoConfiguration.ReactorNettyRetryConfiguration.class })
public final class RetryAfterRestTemplateAutoConfiguration {

	/**
	 * Applied after the application's customizers (unordered ones included, which Boot applies in registration
	 * order), so that the error handler one of them sets is the one wrapped.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "retryAfterRestTemplateCustomizer")
	RestTemplateCustomizer retryAfterRestTemplateCustomizer(RetryAfterClientHttpRequestInterceptor interceptor) {
		return (template) -> {
			template.getInterceptors().add(interceptor);
			template.setErrorHandler(HandOver.attaching(template.getErrorHandler()));
		};
	}

}
