package io.github.retryafter.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
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
 * starter's {@code RestClientCustomizer} and {@code WebClientCustomizer}, which Boot applies to them. A
 * {@code service-groups} entry naming a group the application does not declare fails at startup
 * ({@link UnknownServiceGroups}), and so does any entry in an application that declares no group at all.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
@ConditionalOnBean(RetryAfterSettings.class)
public final class RetryAfterHttpServiceClientAutoConfiguration {

	private static final String REGISTRY = "org.springframework.web.service.registry.HttpServiceProxyRegistry";

	/**
	 * Returns each group listed under a provider's {@code service-groups}, with that provider.
	 * @throws InvalidConfigurationPropertyValueException if a group is blank or listed under two providers
	 */
	static Map<String, String> listedGroups(RetryAfterProperties properties) {
		Map<String, String> listed = new LinkedHashMap<>();
		properties.getProviders().forEach((provider, settings) -> {
			String property = UnknownServiceGroups.property(provider);
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

	/** The application declares HTTP service groups: each maps to its provider, and every listed one must exist. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = REGISTRY)
	@ConditionalOnBean(type = REGISTRY)
	static class ServiceGroupsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ServiceGroupProviders retryAfterServiceGroupProviders(RetryAfterProperties properties,
				RetryAfterSettings settings) {
			return new ServiceGroupProviders(listedGroups(properties), settings.providerNames());
		}

		/**
		 * Checks the listed groups against the declared ones as soon as Spring has built the groups: when the
		 * {@link HttpServiceProxyRegistry} is first handed out, which is before any HTTP service client bean exists
		 * (each one is taken from the registry), so no client is there to send a request with the wrong provider.
		 * Spring's API tells every group's name no earlier: a group configurer sees the groups of one client type
		 * only, and the names the registrar records are not public. Static, with a lazy lookup, so that it creates
		 * nothing early.
		 */
		@Bean
		static BeanPostProcessor retryAfterServiceGroupCheck(ObjectProvider<RetryAfterProperties> properties) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (bean instanceof HttpServiceProxyRegistry registry) {
						properties.ifAvailable((settings) -> UnknownServiceGroups.check(listedGroups(settings),
								registry.getGroupNames()));
					}
					return bean;
				}

			};
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

	/**
	 * The application declares no HTTP service group (or has no Spring HTTP service registry at all): any
	 * {@code service-groups} entry names a group that does not exist. Known once the bean definitions are complete
	 * (this condition), and checked when this bean is made, as the singletons are; a
	 * {@code SmartInitializingSingleton} so that lazy initialization does not skip it.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = REGISTRY)
	static class NoServiceGroupsConfiguration {

		@Bean
		SmartInitializingSingleton retryAfterServiceGroupsWithoutGroups(RetryAfterProperties properties) {
			UnknownServiceGroups.check(listedGroups(properties), Set.of());
			return () -> {
			};
		}

	}

}
