package io.github.retryafter.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FieldTextTests {

	@Test
	void aShortValueIsQuotedWhole() {
		assertThat(FieldText.quote("120")).isEqualTo("\"120\"");
		assertThat(FieldText.quote("x".repeat(64))).isEqualTo("\"" + "x".repeat(64) + "\"");
		assertThat(FieldText.quote(" 120 ", 1, 4)).isEqualTo("\"120\"");
		assertThat(FieldText.cut("abc")).isEqualTo("abc");
	}

	@Test
	void aLongValueIsCutToSixtyFourCharactersWithAMarkerSayingHowManyWereLeftOut() {
		assertThat(FieldText.quote("x".repeat(65))).isEqualTo("\"" + "x".repeat(64) + "…(+1 chars)\"");
		assertThat(FieldText.quote("y".repeat(100_000))).isEqualTo("\"" + "y".repeat(64) + "…(+99936 chars)\"");
		assertThat(FieldText.quote("ab" + "z".repeat(70) + "cd", 2, 72)).isEqualTo("\"" + "z".repeat(64) + "…(+6 chars)\"");
		assertThat(FieldText.cut("w".repeat(70))).isEqualTo("w".repeat(64) + "…(+6 chars)");
	}

	@Test
	void aCutNeverSplitsASurrogatePair() {
		String value = "a".repeat(63) + "\uD83D\uDE00" + "b".repeat(10);
		assertThat(FieldText.quote(value)).isEqualTo("\"" + "a".repeat(63) + "…(+12 chars)\"");
	}

}
