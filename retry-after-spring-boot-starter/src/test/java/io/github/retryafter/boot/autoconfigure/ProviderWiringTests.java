package io.github.retryafter.boot.autoconfigure;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterWiring;
import io.github.retryafter.boot.springai.ModelClients.ModelClient;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup's line per provider: its profile, hosts, service groups and the clients under it. */
@ExtendWith(OutputCaptureExtension.class)
class ProviderWiringTests {

	@Test
	void aLineSaysTheProfileHostsGroupsAndClientsUnderAProvider() {
		RetryAfterProperties.Provider github = new RetryAfterProperties.Provider();
		github.setProfile("github");
		github.setServiceGroups(List.of("github", "gists"));
		List<ProviderSettings> providers = List.of(settings("github", List.of("api.github.com")),
				settings("openai", List.of("api.openai.com")), settings("default", List.of()));
		RetryAfterWiring wiring = ProviderWiring.of(providers,
				Map.of("github", github, "openai", new RetryAfterProperties.Provider()),
				List.of("RestClient", "WebClient"));
		assertThat(wiring.provider("github")).contains(new RetryAfterWiring.Provider("github", List.of("github", "gists")));
		assertThat(wiring.provider("default")).contains(new RetryAfterWiring.Provider("standard", List.of()));
		assertThat(wiring.providers()).as("in configuration order").containsOnlyKeys("github", "openai", "default");
		List<String> lines = ProviderWiring.lines(providers, wiring,
				List.of(new ModelClient("openai", 2, 0, "spring.ai.openai.max-retries", false)));
		assertThat(lines).containsExactly(
				"retry-after provider 'github': profile github, hosts [api.github.com], scope provider; under it: "
						+ "RestClient, WebClient requests to its hosts; HTTP service groups [github, gists]",
				"retry-after provider 'openai': profile standard, hosts [api.openai.com], scope provider; under it: "
						+ "RestClient, WebClient requests to its hosts; Spring AI's openai model (2 OkHttp clients)",
				"retry-after provider 'default': profile standard, every host no other provider lists, scope origin; "
						+ "under it: RestClient, WebClient requests to its hosts");
	}

	@Test
	void anApplicationLogsOneLinePerProviderAtStartup(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class))
			.withPropertyValues("retry.after.providers.stripe.hosts=api.stripe.com",
					"retry.after.providers.stripe.profile=stripe")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("retry-after provider 'stripe': profile stripe, hosts [api.stripe.com]")
					.contains("retry-after provider 'default': profile standard, every host no other provider lists");
			});
	}

	private static ProviderSettings settings(String name, List<String> hosts) {
		return new ProviderSettings(name, hosts, RetryPolicy.DEFAULTS, BudgetSettings.PROVIDER_DEFAULTS, false, 0,
				ProviderSettings.DEFAULT_MAX_DRAIN_BYTES, ProviderSettings.defaultScope(name), false);
	}

}
