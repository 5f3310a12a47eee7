package io.github.retryafter;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nearest valid name to a misspelt one, as the messages that say what was probably meant use it.
 */
class NearestNameTests {

	@Test
	void aTypoFindsTheNameItMisspells() {
		List<String> providers = List.of("default", "openai", "stripe", "weather");
		assertThat(NearestName.of("strpe", providers)).contains("stripe");
		assertThat(NearestName.of("wether", providers)).contains("weather");
		assertThat(NearestName.of("opnaei", providers)).contains("openai");
	}

	@Test
	void caseIsIgnoredAndTheCandidateIsReturnedAsWritten() {
		assertThat(NearestName.of("GITHB", List.of("search", "GitHub"))).contains("GitHub");
	}

	@Test
	void theFirstOfEquallyNearCandidatesWins() {
		assertThat(NearestName.of("ab", List.of("ax", "xb"))).contains("ax");
		assertThat(NearestName.of("ab", List.of("xb", "ax"))).contains("xb");
	}

	@Test
	void noCandidateNoAnswer() {
		assertThat(NearestName.of("anything", List.of())).isEmpty();
	}

	@Test
	void theDistanceCountsInsertionsDeletionsAndSubstitutions() {
		assertThat(NearestName.distance("", "")).isZero();
		assertThat(NearestName.distance("stripe", "stripe")).isZero();
		assertThat(NearestName.distance("strpe", "stripe")).as("an insertion").isEqualTo(1);
		assertThat(NearestName.distance("stripes", "stripe")).as("a deletion").isEqualTo(1);
		assertThat(NearestName.distance("strape", "stripe")).as("a substitution").isEqualTo(1);
		assertThat(NearestName.distance("kitten", "sitting")).isEqualTo(3);
		assertThat(NearestName.distance("", "abc")).isEqualTo(3);
		assertThat(NearestName.distance("Stripe", "stripe")).as("case counts here").isEqualTo(1);
	}

}
