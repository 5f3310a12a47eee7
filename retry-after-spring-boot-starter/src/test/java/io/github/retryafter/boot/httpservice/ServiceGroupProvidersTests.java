package io.github.retryafter.boot.httpservice;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.boot.RetryAfterAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Which provider a service group's requests use: listed, else named like the group, else none (by host).
 */
class ServiceGroupProvidersTests {

	private final ServiceGroupProviders providers = new ServiceGroupProviders(
			Map.of("search", "strict", "billing", "payments"), List.of("default", "billing", "payments", "strict"));

	@Test
	void groupListedUnderAProviderUsesItEvenWhenAProviderHasTheGroupsName() {
		assertThat(this.providers.providerOf("search")).contains("strict");
		assertThat(this.providers.providerOf("billing")).contains("payments");
	}

	@Test
	void groupNamedLikeAProviderUsesItWithoutBeingListed() {
		assertThat(this.providers.providerOf("strict")).contains("strict");
	}

	@Test
	void groupNoProviderClaimsHasNoneAndGoesByHost() {
		assertThat(this.providers.providerOf("misc")).isEmpty();
		assertThat(this.providers.defaultAttributes("misc")).isEmpty();
	}

	@Test
	void springsDefaultGroupGoesByHostUnlessListed() {
		assertThat(this.providers.providerOf("default")).isEmpty();
		assertThat(new ServiceGroupProviders(Map.of("default", "strict"), List.of("default", "strict"))
			.providerOf("default")).contains("strict");
	}

	@Test
	void defaultAttributesNameTheProviderUnlessTheCallNamedOne() {
		Map<String, Object> attributes = new HashMap<>();
		this.providers.defaultAttributes("search").orElseThrow().accept(attributes);
		assertThat(attributes).containsEntry(RetryAfterAttributes.PROVIDER, "strict");

		Map<String, Object> named = new HashMap<>(Map.of(RetryAfterAttributes.PROVIDER, "payments"));
		this.providers.defaultAttributes("search").orElseThrow().accept(named);
		assertThat(named).containsEntry(RetryAfterAttributes.PROVIDER, "payments");
	}

	@Test
	void groupListedUnderAProviderThatIsNotConfiguredIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ServiceGroupProviders(Map.of("search", "nobody"), List.of("default")))
			.withMessageContaining("'search'")
			.withMessageContaining("'nobody'");
	}

	@Test
	void groupListedUnderAMisspeltProviderNamesTheNearestConfiguredOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ServiceGroupProviders(Map.of("search", "strpe"), List.of("default", "stripe")))
			.withMessageContaining("provider 'strpe'")
			.withMessageContaining("did you mean 'stripe'?");
	}

}
