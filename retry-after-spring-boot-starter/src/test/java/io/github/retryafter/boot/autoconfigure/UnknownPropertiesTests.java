package io.github.retryafter.boot.autoconfigure;

import java.io.InputStream;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.github.retryafter.boot.RetryAfterProviders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unknown property under {@code retry.after.*} fails at startup naming itself and the nearest valid one; every
 * property retry-after has, provider names of any spelling, list indexes and environment variables pass.
 */
class UnknownPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class));

	@Test
	void aTypoInAGlobalPropertyFailsNamingItAndTheNearestValidOne() {
		assertFails("retry.after.max-attemps=3", "retry.after.max-attemps", "retry.after.max-attempts");
	}

	@Test
	void aTypoBelowAProviderFailsNamingItAndTheNearestValidOneOfThatProvider() {
		assertFails("retry.after.providers.openai.profle=openai", "retry.after.providers.openai.profle",
				"retry.after.providers.openai.profile");
		assertFails("retry.after.providers.payments.pacing.max-rte=5", "retry.after.providers.payments.pacing.max-rte",
				"retry.after.providers.payments.pacing.max-rate");
		assertFails("retry.after.fleet.key-tll=1h", "retry.after.fleet.key-tll", "retry.after.fleet.key-ttl");
	}

	@Test
	void aValueBelowALeafIsUnknownToo() {
		assertFails("retry.after.max-attempts.openai=3", "retry.after.max-attempts.openai", "retry.after.max-attempts");
	}

	@Test
	void everyUnknownPropertyIsListedInTheOneFailure() {
		this.contextRunner.withPropertyValues("retry.after.max-attemps=3", "retry.after.dedline=5s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("retry-after has no property 'retry.after.dedline'; did you mean "
						+ "'retry.after.deadline'?")
				.hasMessageContaining("Nor 'retry.after.max-attemps' (did you mean 'retry.after.max-attempts'?)."));
	}

	@Test
	void eachUnknownPropertyIsPrintedWithItsOwnValueWhateverOrderTheyAreListedIn() {
		for (List<String> order : List.of(List.of("retry.after.max-attemps=3", "retry.after.dedline=5s"),
				List.of("retry.after.dedline=5s", "retry.after.max-attemps=3"))) {
			this.contextRunner.withPropertyValues(order.toArray(String[]::new))
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (ex) -> {
						assertThat(ex.getName()).isEqualTo("retry.after.dedline");
						assertThat(ex.getValue()).isEqualTo("5s");
					})
					.hasMessageContaining("Property retry.after.dedline with value '5s' is invalid")
					.hasMessageContaining("Nor 'retry.after.max-attemps' (did you mean 'retry.after.max-attempts'?)."
							+ " That one is set to '3'."));
		}
	}

	@Test
	void anUnknownProfileFailsAtStartupNamingTheNearestProfile() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.profile=opneai")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo("retry.after.providers.openai.profile"))
				.hasMessageContaining("did you mean 'openai'?"));
	}

	@Test
	void validPropertiesOfEveryShapePass() {
		this.contextRunner
			.withPropertyValues("retry.after.maxAttempts=3", "retry.after.providers.My_Gateway-2.hosts[0]=a.example",
					"retry.after.providers.My_Gateway-2.hosts[1]=b.example",
					"retry.after.providers.openai.profile=openai", "retry.after.providers.openai.hint-fields=retry-after",
					"retry.after.providers.openai.pacing.rate-limit-fields.enabled=false",
					"retry.after.providers.openai.budget.capacity=5", "retry.after.spread.ratio=0.5",
					"retry.after.fleet.key-ttl=1h", "retry.after.ok-http.enabled=true",
					"retry.after.spring-ai.enabled=true", "retry.after.web-client.enabled=true",
					"retry.after.global-budget.capacity=10", "retry.after.events.capacity=10")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RetryAfterProviders.class).get("My_Gateway-2")).isPresent();
			});
	}

	@Test
	void environmentVariablesAreNotCheckedBecauseTheirDashesAreAmbiguous() {
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment().getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource("systemEnvironment-test",
						Map.of("RETRY_AFTER_MAX_ATTEMPTS", "3", "RETRY_AFTER_PROVIDERS_OPENAI_MAX_ATTEMPTS", "2"))))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void everyPropertyInTheGeneratedMetadataIsKnown() throws Exception {
		try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			List<String> names = JsonPath.read(json, "$.properties[*].name");
			assertThat(names).filteredOn((name) -> name.startsWith("retry.after.")).hasSizeGreaterThan(40)
				.allSatisfy((name) -> assertThat(UnknownProperties.nearestIfUnknown(ConfigurationPropertyName.of(name)))
					.as(name)
					.isNull());
		}
		assertThat(UnknownProperties.validNames()).contains("retry.after.providers.*.profile",
				"retry.after.providers.*.hint-fields", "retry.after.fleet.store", "retry.after.ok-http.enabled");
	}

	private void assertFails(String property, String name, String nearest) {
		this.contextRunner.withPropertyValues(property)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo(name))
				.hasMessageContaining("retry-after has no property '" + name + "'; did you mean '" + nearest + "'?"));
	}

}
