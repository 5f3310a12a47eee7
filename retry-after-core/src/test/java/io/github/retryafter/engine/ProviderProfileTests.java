package io.github.retryafter.engine;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HintFields;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The profile table: names unique and found case-insensitively, {@code standard} changing nothing, statuses added
 * not replaced, and a bad row refused with a message.
 */
class ProviderProfileTests {

	@Test
	void theTableNamesEachProfileOnceWithStandardFirst() {
		assertThat(ProviderProfile.names()).containsExactly("standard", "openai", "anthropic", "azure", "stripe",
				"github", "ollama", "gemini");
		assertThat(new HashSet<>(ProviderProfile.names())).hasSameSizeAs(ProviderProfile.ALL);
		assertThat(ProviderProfile.named(" OpenAI ")).contains(ProviderProfile.OPENAI);
		assertThat(ProviderProfile.named("openia")).isEmpty();
		assertThat(ProviderProfile.named(null)).isEmpty();
	}

	@Test
	void standardReadsTheStandardFieldsAndRetriesNoRefusalForAnyMethod() {
		assertThat(ProviderProfile.STANDARD.fields()).isEqualTo(HintFields.STANDARD);
		assertThat(ProviderProfile.STANDARD.conventions()).isEqualTo(ProviderConventions.NONE);
		assertThat(ProviderProfile.STANDARD.retryableStatuses(Set.of(503))).containsExactly(503);
	}

	@Test
	void everyVendorProfileRetriesItsRefusalsForAnyMethod() {
		for (ProviderProfile profile : ProviderProfile.ALL.subList(1, ProviderProfile.ALL.size())) {
			assertThat(profile.conventions().retryRefusedRequests()).as(profile.name()).isTrue();
			assertThat(profile.conventions().refusalStatuses()).as(profile.name()).contains(429);
		}
		assertThat(ProviderProfile.OPENAI.conventions().attemptHeader()).contains("x-stainless-retry-count");
		assertThat(ProviderProfile.ANTHROPIC.conventions().attemptHeader()).contains("x-stainless-retry-count");
	}

	@Test
	void aProfileAddsItsStatusesToThoseInForce() {
		assertThat(ProviderProfile.ANTHROPIC.retryableStatuses(Set.of(429, 503))).containsExactly(429, 503, 529);
	}

	@Test
	void aBadRowIsRefusedWithAMessage() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ProviderProfile("Open AI", HintFields.STANDARD, Set.of(), ProviderConventions.NONE))
			.withMessageContaining("'Open AI'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ProviderProfile("teapot", HintFields.STANDARD, Set.of(418, 200),
					new ProviderConventions(true, Set.of(429), Optional.empty())))
			.withMessageContaining("addedRetryableStatuses must hold 4xx or 5xx codes but contained 200");
		assertThat(List.copyOf(ProviderProfile.ALL)).isEqualTo(ProviderProfile.ALL);
	}

}
