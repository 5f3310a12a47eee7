package com.example.providers;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A typo in {@code retry.after.providers.github.service-groups} fails the app's start, naming the entry and the group
 * the app declares nearest it, rather than leaving the group's requests to another provider without a word.
 */
class WrongServiceGroupTests {

	@Test
	void aServiceGroupTheAppDoesNotDeclareFailsTheStartNamingTheNearestGroup() {
		Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(FourProvidersApplication.class)
			.web(WebApplicationType.NONE)
			.run("--retry.after.providers.github.service-groups=repo"));

		Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
		assertThat(cause).isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (invalid) -> {
			assertThat(invalid.getName()).isEqualTo("retry.after.providers.github.service-groups");
			assertThat(invalid.getValue()).isEqualTo("repo");
		});
		assertThat(cause).hasMessageContaining("no HTTP service group 'repo'")
			.hasMessageContaining("did you mean 'repos'?");
	}

}
