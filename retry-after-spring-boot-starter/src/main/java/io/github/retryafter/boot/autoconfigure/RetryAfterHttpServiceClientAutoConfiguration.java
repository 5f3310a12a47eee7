package io.github.retryafter.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceProxyRegistry;

import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.httpservice.RetryAfterRestClientHttpServiceGroupConfigurer;
import io.github.retryafter.boot.httpservice.RetryAfterWebClientHttpServiceGroupConfigurer;
import io.github.retryafter.boot.httpservice.ServiceGroupProviders;

/**
 * Maps Spring's HTTP service groups ({@code @ImportHttpServices}) to providers: each group's {@code RestClient} or
 * {@code WebClient} names its provider on every request, by {@code retry.after.providers.<name>.service-groups} or by
 * the group's name ({@link ServiceGroupProviders}). The retries themselves reach the groups' clients through the
 * starter's {@code RestClientCustomizer} and {@code WebClientCustomizer}, which Boot applies to them.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnClass(HttpServiceProxyRegistry.class)
@ConditionalOnBean({ RetryAfterSettings.class, HttpServiceProxyRegistry.class })
public final class RetryAfterHttpServiceClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ServiceGroupProviders retryAfterServiceGroupProviders(RetryAfterProperties properties,
			RetryAfterSettings settings) {
		return new ServiceGroupProviders(listedGroups(properties), settings.providerNames());
	}

	/**
	 * Returns each group listed under a provider's {@code service-groups}, with that provider.
	 * @throws InvalidConfigurationPropertyValueException if a group is blank or listed under two providers
	 */
	static Map<String, String> listedGroups(RetryAfterProperties properties) {
		Map<String, String> listed = new LinkedHashMap<>();
		properties.getProviders().forEach((provider, settings) -> {
			String property = "retry.after.providers." + provider + ".service-groups";
			for (String group : settings.getServiceGroups()) {
				if (!StringUtils.hasText(group)) {
					throw new InvalidConfigurationPropertyValueException(property, group,
							"a service group is named by the group attribute of @ImportHttpServices; "
									+ "remove the blank entry");
				}
				String previous = listed.putIfAbsent(group.trim(), provider);
				if (previous != null) {
					throw new InvalidConfigurationPropertyValueException(property, group,
							"it is already listed under provider '" + previous
									+ "'; list each service group under one provider");
				}
			}
		});
		return listed;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
	static class RestClientGroupsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryAfterRestClientHttpServiceGroupConfigurer retryAfterRestClientHttpServiceGroupConfigurer(
				ServiceGroupProviders providers) {
			return new RetryAfterRestClientHttpServiceGroupConfigurer(providers);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(WebClientHttpServiceGroupConfigurer.class)
	static class WebClientGroupsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetryAfterWebClientHttpServiceGroupConfigurer retryAfterWebClientHttpServiceGroupConfigurer(
				ServiceGroupProviders providers) {
			return new RetryAfterWebClientHttpServiceGroupConfigurer(providers);
		}

	}

}
