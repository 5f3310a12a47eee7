package io.github.retryafter.boot.autoconfigure;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.registry.HttpServiceGroup.ClientType;
import org.springframework.web.service.registry.ImportHttpServices;

import io.github.retryafter.boot.httpservice.RetryAfterRestClientHttpServiceGroupConfigurer;
import io.github.retryafter.boot.httpservice.RetryAfterWebClientHttpServiceGroupConfigurer;
import io.github.retryafter.boot.httpservice.ServiceGroupProviders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RetryAfterHttpServiceClientAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RetryAfterAutoConfiguration.class, RetryAfterHttpServiceClientAutoConfiguration.class));

	@Test
	void mapsTheGroupsOfAnApplicationThatImportsHttpServices() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withPropertyValues("retry.after.providers.billing.max-attempts=4",
					"retry.after.providers.strict.service-groups=search")
			.run((context) -> {
				assertThat(context).hasSingleBean(RetryAfterRestClientHttpServiceGroupConfigurer.class)
					.hasSingleBean(RetryAfterWebClientHttpServiceGroupConfigurer.class);
				ServiceGroupProviders providers = context.getBean(ServiceGroupProviders.class);
				assertThat(providers.providerOf("billing")).contains("billing");
				assertThat(providers.providerOf("search")).contains("strict");
			});
	}

	@Test
	void addsNothingWithoutHttpServices() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(ServiceGroupProviders.class)
			.doesNotHaveBean(RetryAfterRestClientHttpServiceGroupConfigurer.class));
	}

	@Test
	void addsNothingWhenRetriesAreOff() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withPropertyValues("retry.after.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ServiceGroupProviders.class));
	}

	@Test
	void leavesTheWebClientSideOutWithoutWebFlux() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(context).hasSingleBean(RetryAfterRestClientHttpServiceGroupConfigurer.class)
				.doesNotHaveBean(RetryAfterWebClientHttpServiceGroupConfigurer.class));
	}

	@Test
	void backsOffWhenTheUserDefinesTheirOwnMapping() {
		ServiceGroupProviders own = new ServiceGroupProviders(Map.of("billing", "default"), List.of("default"));
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withBean(ServiceGroupProviders.class, () -> own)
			.run((context) -> assertThat(context.getBean(ServiceGroupProviders.class)).isSameAs(own));
	}

	@Test
	void groupListedUnderTwoProvidersFailsAtStartupNamingTheProperty() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withPropertyValues("retry.after.providers.strict.service-groups=search",
					"retry.after.providers.lenient.service-groups=search")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("retry.after.providers.lenient.service-groups")
				.hasMessageContaining("already listed under provider 'strict'"));
	}

	@Test
	void blankGroupFailsAtStartupNamingTheProperty() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withPropertyValues("retry.after.providers.strict.service-groups[0]= ")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("retry.after.providers.strict.service-groups")
				.hasMessageContaining("remove the blank entry"));
	}

	@Test
	void groupListedUnderAProviderWithoutSettingsStillFindsIt() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class)
			.withPropertyValues("retry.after.providers.strict.service-groups=search")
			.run((context) -> assertThat(context.getBean(ServiceGroupProviders.class).providerOf("search"))
				.contains("strict"));
	}

	@Test
	void groupTheApplicationDoesNotDeclareFailsAtStartupNamingTheEntryAndTheNearestGroup() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class, GitHubGroup.class)
			.withPropertyValues("retry.after.providers.github.service-groups=githb")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (failure) -> {
					assertThat(failure.getName()).isEqualTo("retry.after.providers.github.service-groups");
					assertThat(failure.getValue()).isEqualTo("githb");
				})
				.hasMessageContaining("no HTTP service group 'githb'")
				.hasMessageContaining("did you mean 'github'?")
				.hasMessageContaining("[github, search]")
				.hasMessageContaining("fix the name, or remove the entry"));
	}

	@Test
	void everyUndeclaredGroupIsNamedInTheOneFailure() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class, GitHubGroup.class)
			.withPropertyValues("retry.after.providers.github.service-groups=githb",
					"retry.after.providers.strict.service-groups=search,serch")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("'githb'")
				.hasMessageContaining(
						"'serch' under retry.after.providers.strict.service-groups (did you mean 'search'?)"));
	}

	@Test
	void groupListedWhenTheApplicationDeclaresNoGroupsFailsAtStartupSayingThereAreNone() {
		this.contextRunner.withPropertyValues("retry.after.providers.github.service-groups=githb")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (failure) -> {
					assertThat(failure.getName()).isEqualTo("retry.after.providers.github.service-groups");
					assertThat(failure.getValue()).isEqualTo("githb");
				})
				.hasMessageContaining("the application declares no HTTP service groups")
				.hasMessageContaining("remove the entry"));
	}

	@Test
	void groupListedWithoutSpringsHttpServiceRegistryOnTheClasspathFailsAtStartupToo() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web.service"))
			.withPropertyValues("retry.after.providers.github.service-groups=github")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("the application declares no HTTP service groups"));
	}

	@Test
	void underLazyInitializationAnEntryWithoutGroupsStillFailsAtStartup() {
		this.contextRunner
			.withInitializer((context) -> context.addBeanFactoryPostProcessor(
					new LazyInitializationBeanFactoryPostProcessor()))
			.withPropertyValues("retry.after.providers.github.service-groups=githb")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("the application declares no HTTP service groups"));
	}

	@Test
	void underLazyInitializationAnUndeclaredGroupFailsTheFirstClientAskedFor() {
		this.contextRunner
			.withInitializer((context) -> context.addBeanFactoryPostProcessor(
					new LazyInitializationBeanFactoryPostProcessor()))
			.withUserConfiguration(GitHubGroup.class)
			.withPropertyValues("retry.after.providers.github.service-groups=githb")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThatExceptionOfType(BeanCreationException.class)
					.isThrownBy(() -> context.getBean(GitHubApi.class))
					.havingRootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.withMessageContaining("did you mean 'github'?");
			});
	}

	@Test
	void noEntryNoGroupsStartsAsBefore() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web.service"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void webClientGroupsAndSpringsDefaultGroupAreDeclaredGroupsToo() {
		this.contextRunner.withUserConfiguration(ServiceGroups.class, LedgerGroup.class, DefaultGroup.class)
			.withPropertyValues("retry.after.providers.strict.service-groups=ledger,default")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ServiceGroupProviders providers = context.getBean(ServiceGroupProviders.class);
				assertThat(providers.providerOf("ledger")).contains("strict");
				assertThat(providers.providerOf("default")).contains("strict");
			});
	}

	interface SearchApi {

		@GetExchange("/query")
		String query();

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "search", types = SearchApi.class)
	static class ServiceGroups {

	}

	interface GitHubApi {

		@GetExchange("/repos")
		String repos();

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "github", types = GitHubApi.class)
	static class GitHubGroup {

	}

	interface LedgerApi {

		@GetExchange("/entries")
		String entries();

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "ledger", types = LedgerApi.class, clientType = ClientType.WEB_CLIENT)
	static class LedgerGroup {

	}

	interface StatusApi {

		@GetExchange("/status")
		String status();

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(types = StatusApi.class)
	static class DefaultGroup {

	}

}
