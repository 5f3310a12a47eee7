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

	/** Issue 32 (seen while reading): an ESC in a header reached a log line as it was, able to drive a terminal. */
	@Test
	void controlCharactersAreEscapedSoAValueCannotForgeOrDriveALogLine() {
		assertThat(FieldText.quote("1\u001b[2J")).isEqualTo("\"1\\u001B[2J\"");
		assertThat(FieldText.cut("a\r\nb\u0085")).isEqualTo("a\\u000D\\u000Ab\\u0085");
	}

	/** Issue 32, defect 4: a reason is bounded wherever it is shown, and a failure is named by its class only. */
	@Test
	void aReasonIsCutToAThousandCharactersAndAFailureIsNamedByItsClassOnly() {
		assertThat(FieldText.reason("status 503")).isEqualTo("status 503");
		assertThat(FieldText.reason("r".repeat(300_000))).isEqualTo("r".repeat(1_000) + "…(+299000 chars)");
		assertThat(FieldText.describe(new java.net.ProtocolException("Invalid status line: \"HTTP/1.1 2X0 session=SECRET\"")))
			.isEqualTo("java.net.ProtocolException");
	}

}
