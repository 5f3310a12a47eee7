package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.retryafter.boot.ProviderSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model profile's call timeouts ({@code openai}, {@code anthropic}, {@code azure}): the client's own timeouts bound
 * each attempt and the deadline is 10 minutes, laid over the global properties like the rest of the profile; the
 * provider's own {@code attempt-timeout} turns the client's timeouts off, its own {@code deadline} wins; the other
 * profiles keep the attempt timeout and deadline in force.
 */
class CallTimeoutsMappingTests {

	private final RetryAfterProperties properties = new RetryAfterProperties();

	@Test
	void aModelProfileKeepsTheClientsTimeoutsWithinATenMinuteDeadline() {
		for (String profile : List.of("openai", "anthropic", "azure")) {
			provider(profile).setProfile(profile);
			ProviderSettings settings = settings(profile);
			assertThat(settings.clientTimeouts()).as(profile).isTrue();
			assertThat(settings.policy().deadline()).as(profile).isEqualTo(Duration.ofMinutes(10));
			// what the provider's gate waits for a probe's answer before another request may probe
			assertThat(settings.policy().attemptTimeout()).as(profile).isEqualTo(Duration.ofSeconds(10));
		}
	}

	@Test
	void theGlobalAttemptTimeoutAndDeadlineDoNotOverrideTheProfile() {
		this.properties.setAttemptTimeout(Duration.ofSeconds(5));
		this.properties.setDeadline(Duration.ofSeconds(20));
		provider("openai").setProfile("openai");
		provider("rest");
		assertThat(settings("openai").clientTimeouts()).isTrue();
		assertThat(settings("openai").policy().deadline()).isEqualTo(Duration.ofMinutes(10));
		assertThat(settings("rest").clientTimeouts()).isFalse();
		assertThat(settings("rest").policy().attemptTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(settings("rest").policy().deadline()).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void theProvidersOwnAttemptTimeoutBoundsItsAttemptsAndItsOwnDeadlineWins() {
		RetryAfterProperties.Provider openai = provider("openai");
		openai.setProfile("openai");
		openai.setAttemptTimeout(Duration.ofSeconds(30));
		RetryAfterProperties.Provider anthropic = provider("anthropic");
		anthropic.setProfile("anthropic");
		anthropic.setDeadline(Duration.ofMinutes(2));
		assertThat(settings("openai").clientTimeouts()).isFalse();
		assertThat(settings("openai").policy().attemptTimeout()).isEqualTo(Duration.ofSeconds(30));
		assertThat(settings("openai").policy().deadline()).isEqualTo(Duration.ofMinutes(10));
		assertThat(settings("anthropic").clientTimeouts()).isTrue();
		assertThat(settings("anthropic").policy().deadline()).isEqualTo(Duration.ofMinutes(2));
	}

	@Test
	void theOtherProfilesKeepTheAttemptTimeoutAndDeadlineInForce() {
		for (String profile : List.of("standard", "stripe", "github")) {
			provider(profile).setProfile(profile);
			assertThat(settings(profile).clientTimeouts()).as(profile).isFalse();
			assertThat(settings(profile).policy().deadline()).as(profile).isEqualTo(Duration.ofSeconds(30));
		}
		assertThat(settings("default").clientTimeouts()).isFalse();
	}

	private ProviderSettings settings(String name) {
		return new RetryAfterPropertiesMapper(this.properties).settings().provider(name).orElseThrow();
	}

	private RetryAfterProperties.Provider provider(String name) {
		RetryAfterProperties.Provider provider = new RetryAfterProperties.Provider();
		provider.setHosts(List.of(name + ".example.com"));
		this.properties.getProviders().put(name, provider);
		return provider;
	}

}
