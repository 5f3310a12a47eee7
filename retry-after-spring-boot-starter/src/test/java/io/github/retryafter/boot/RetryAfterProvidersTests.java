package io.github.retryafter.boot;

import java.net.URI;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Which provider a request goes to: the explicit attribute, else an exact host, else the longest matching wildcard,
 * else {@code default}.
 */
class RetryAfterProvidersTests {

	private final RetryAfterProviders providers = providers(provider("default"),
			provider("payments", "api.pay.example", "*.pay.example"), provider("eu-payments", "*.eu.pay.example"),
			provider("search", "Search.Example.com"));

	@Test
	void anExactHostPicksItsProvider() {
		assertThat(resolve("https://api.pay.example/charges")).isEqualTo("payments");
		assertThat(resolve("https://search.example.com/q")).as("hosts are matched without regard to case")
			.isEqualTo("search");
		assertThat(resolve("https://SEARCH.example.com/q")).isEqualTo("search");
	}

	@Test
	void aWildcardMatchesAnySubdomainButNotTheDomainItself() {
		assertThat(resolve("https://checkout.pay.example/")).isEqualTo("payments");
		assertThat(resolve("https://a.b.pay.example/")).isEqualTo("payments");
		assertThat(resolve("https://pay.example/")).isEqualTo("default");
		assertThat(resolve("https://notpay.example/")).isEqualTo("default");
	}

	@Test
	void theLongestMatchingWildcardWins() {
		assertThat(resolve("https://fr.eu.pay.example/")).isEqualTo("eu-payments");
		assertThat(resolve("https://us.pay.example/")).isEqualTo("payments");
	}

	@Test
	void anExactHostWinsOverAWildcard() {
		RetryAfterProviders providers = providers(provider("default"), provider("wild", "*.example.org"),
				provider("exact", "api.example.org"));
		assertThat(providers.resolve(URI.create("https://api.example.org/"), Optional.empty()).name())
			.isEqualTo("exact");
	}

	@Test
	void aRequestNoProviderMatchesGoesToDefault() {
		assertThat(resolve("https://elsewhere.example.net/")).isEqualTo("default");
		assertThat(this.providers.resolve(URI.create("/relative/path"), Optional.empty()).name())
			.as("a URI without a host").isEqualTo("default");
	}

	@Test
	void theExplicitAttributeWinsOverTheHost() {
		assertThat(this.providers.resolve(URI.create("https://api.pay.example/"), Optional.of("search")).name())
			.isEqualTo("search");
		assertThat(this.providers.resolve(URI.create("https://unknown.example/"), Optional.of("payments")).name())
			.isEqualTo("payments");
	}

	@Test
	void anExplicitNameThatIsNotConfiguredFailsNamingTheConfiguredOnes() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.providers.resolve(URI.create("https://api.pay.example/"), Optional.of("billing")))
			.withMessageContaining("'billing'")
			.withMessageContaining("payments")
			.withMessageContaining("retry.after.providers");
	}

	@Test
	void looksProvidersUpByNameOnly() {
		assertThat(this.providers.get("payments")).map(RetryAfterProviders.Provider::name).contains("payments");
		assertThat(this.providers.get("api.pay.example")).isEmpty();
		assertThat(this.providers.all()).extracting(RetryAfterProviders.Provider::name)
			.containsExactlyInAnyOrder("default", "payments", "eu-payments", "search");
	}

	@Test
	void refusesAHostListedUnderTwoProviders() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> providers(provider("default"), provider("a", "api.example.com"),
					provider("b", "API.example.com")))
			.withMessageContaining("'a'")
			.withMessageContaining("'b'");
	}

	@Test
	void refusesASetWithoutADefaultProvider() {
		assertThatIllegalArgumentException().isThrownBy(() -> providers(provider("payments", "api.pay.example")))
			.withMessageContaining("'default'");
	}

	private String resolve(String uri) {
		return this.providers.resolve(URI.create(uri), Optional.empty()).name();
	}

	private static RetryAfterProviders providers(ProviderSettings... settings) {
		return new RetryAfterProviders(List.of(settings),
				(each) -> RetryEngine.builder().policy(each.policy()).build());
	}

	private static ProviderSettings provider(String name, String... hosts) {
		return new ProviderSettings(name, List.of(hosts), RetryPolicy.DEFAULTS, BudgetSettings.PROVIDER_DEFAULTS,
				false, 1024);
	}

}
