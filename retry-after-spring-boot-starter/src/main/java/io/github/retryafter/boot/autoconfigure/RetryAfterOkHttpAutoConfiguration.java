package io.github.retryafter.boot.autoconfigure;

import okhttp3.OkHttpClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.retryafter.Sleeper;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;

/**
 * Puts the starter's engine under OkHttp: one {@link RetryAfterOkHttp} over the starter's providers, applied to every
 * {@link OkHttpClient.Builder} bean the application exposes (as each is initialized). A client the application builds
 * itself gets it through {@code retryAfterOkHttp.apply(builder)}. Active when OkHttp is on the classpath, unless
 * {@code retry.after.ok-http.enabled=false}.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass(OkHttpClient.class)
@ConditionalOnBean(RetryAfterProviders.class)
@ConditionalOnBooleanProperty(name = "retry.after.ok-http.enabled", matchIfMissing = true)
public final class RetryAfterOkHttpAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryAfterOkHttp retryAfterOkHttp(RetryAfterProviders providers, Sleeper sleeper,
			ObjectProvider<RetryAfterOperations> operations) {
		RetryAfterOperations shared = operations.getIfUnique();
		return (shared != null) ? new RetryAfterOkHttp(providers, sleeper, shared)
				: new RetryAfterOkHttp(providers, sleeper);
	}

	/**
	 * Adds the interceptor to each {@code OkHttpClient.Builder} bean; static, so that it is registered before the
	 * beans it processes, and lazy about the interceptor, which is looked up only when a builder bean appears.
	 */
	@Bean
	static BeanPostProcessor retryAfterOkHttpClientBuilderPostProcessor(ObjectProvider<RetryAfterOkHttp> okHttp) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof OkHttpClient.Builder builder) {
					okHttp.ifAvailable((retryAfter) -> retryAfter.apply(builder));
				}
				return bean;
			}

		};
	}

}
