package io.github.retryafter.boot.autoconfigure;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.engine.ProviderConventions;
import io.github.retryafter.engine.ProviderProfile;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code retry.after.providers.<name>.profile}: the profile lays its fields, statuses, refusals and attempt header
 * over the global properties, {@code standard} (the default) lays nothing, and each of the provider's own properties
 * wins over its profile.
 */
class ProviderProfileMappingTests {

	private final RetryAfterProperties properties = new RetryAfterProperties();

	@Test
	void standardIsExactlyWhatTheProviderHadWithoutAProfile() {
		provider("plain");
		provider("standard").setProfile("standard");
		this.properties.setAttemptHeader("x-attempt");
		RetryPolicy plain = policy("plain");
		RetryPolicy standard = policy("standard");
		assertThat(standard.toString()).isEqualTo(plain.toString());
		assertThat(standard.planner()).isEqualTo(plain.planner());
		assertThat(standard.planner().fields()).isEqualTo(HintFields.STANDARD);
		assertThat(standard.conventions().attemptHeader()).contains("x-attempt");
	}

	@Test
	void eachVendorProfileLaysItsRowOfTheTable() {
		for (ProviderProfile profile : ProviderProfile.ALL) {
			provider(profile.name()).setProfile(profile.name().toUpperCase(java.util.Locale.ROOT));
		}
		RetryPolicy openai = policy("openai");
		assertThat(openai.planner().fields().read()).containsExactlyInAnyOrder(HintField.RETRY_AFTER,
				HintField.RETRY_AFTER_MS, HintField.X_SHOULD_RETRY, HintField.OPENAI_WINDOWS);
		assertThat(openai.conventions()).isEqualTo(
				new ProviderConventions(true, Set.of(429, 503), Optional.of("x-stainless-retry-count")));
		assertThat(openai.retryableStatuses()).isEqualTo(RetryPolicy.DEFAULT_RETRYABLE_STATUSES);
		RetryPolicy anthropic = policy("anthropic");
		assertThat(anthropic.planner().fields().read()).containsExactlyInAnyOrder(HintField.RETRY_AFTER,
				HintField.X_SHOULD_RETRY, HintField.ANTHROPIC_WINDOWS);
		assertThat(anthropic.retryableStatuses()).containsExactlyInAnyOrder(408, 429, 502, 503, 504, 529);
		assertThat(anthropic.conventions().refusalStatuses()).containsExactlyInAnyOrder(429, 529);
		assertThat(policy("azure").planner().fields().read()).containsExactlyInAnyOrder(HintField.RETRY_AFTER_MS,
				HintField.X_MS_RETRY_AFTER_MS, HintField.RETRY_AFTER);
		assertThat(policy("azure").conventions()).isEqualTo(new ProviderConventions(true, Set.of(429), Optional.empty()));
		assertThat(policy("stripe").planner().fields())
			.isEqualTo(HintFields.STANDARD.with(HintField.STRIPE_SHOULD_RETRY));
		assertThat(policy("github").retryableStatuses()).contains(403);
		assertThat(policy("github").conventions().refusalStatuses()).containsExactlyInAnyOrder(403, 429);
	}

	@Test
	void aProfileAddsItsStatusesToTheGlobalRetryableStatuses() {
		this.properties.setRetryableStatuses(Set.of(503));
		provider("anthropic").setProfile("anthropic");
		assertThat(policy("anthropic").retryableStatuses()).containsExactlyInAnyOrder(503, 529);
		assertThat(policy("default").retryableStatuses()).containsExactly(503);
	}

	@Test
	void eachOfTheProvidersOwnPropertiesWinsOverItsProfile() {
		RetryAfterProperties.Provider openai = provider("openai");
		openai.setProfile("openai");
		openai.setHintFields(Set.of(HintField.RETRY_AFTER));
		openai.setRetryRefusedRequests(false);
		openai.setAttemptHeader("x-try");
		RetryAfterProperties.Provider anthropic = provider("anthropic");
		anthropic.setProfile("anthropic");
		anthropic.setRetryableStatuses(Set.of(429));
		anthropic.setRefusalStatuses(Set.of(429));
		RetryPolicy openaiPolicy = policy("openai");
		assertThat(openaiPolicy.planner().fields()).isEqualTo(HintFields.of(HintField.RETRY_AFTER));
		assertThat(openaiPolicy.conventions())
			.isEqualTo(new ProviderConventions(false, Set.of(429, 503), Optional.of("x-try")));
		RetryPolicy anthropicPolicy = policy("anthropic");
		assertThat(anthropicPolicy.retryableStatuses()).containsExactly(429);
		assertThat(anthropicPolicy.conventions().refusalStatuses()).containsExactly(429);
	}

	@Test
	void hintFieldsAloneNarrowOrWidenWhatAStandardProviderReads() {
		provider("gateway").setHintFields(Set.of(HintField.RETRY_AFTER, HintField.RETRY_AFTER_MS));
		assertThat(policy("gateway").planner().fields())
			.isEqualTo(HintFields.of(HintField.RETRY_AFTER, HintField.RETRY_AFTER_MS));
		assertThat(policy("gateway").conventions()).isEqualTo(ProviderConventions.NONE);
	}

	@Test
	void anUnknownProfileFailsNamingThePropertyAndTheNearestProfile() {
		provider("openai").setProfile("opneai");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new RetryAfterPropertiesMapper(this.properties).settings())
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("retry.after.providers.openai.profile"))
			.satisfies((ex) -> assertThat(ex.getValue()).isEqualTo("opneai"))
			.withMessageContaining("did you mean 'openai'?")
			.withMessageContaining("standard, openai, anthropic, azure, stripe, github, ollama");
	}

	private RetryPolicy policy(String name) {
		ProviderSettings settings = new RetryAfterPropertiesMapper(this.properties).settings()
			.provider(name)
			.orElseThrow();
		return settings.policy();
	}

	private RetryAfterProperties.Provider provider(String name) {
		RetryAfterProperties.Provider provider = new RetryAfterProperties.Provider();
		provider.setHosts(List.of(name + ".example.com"));
		this.properties.getProviders().put(name, provider);
		return provider;
	}

}
