package io.github.retryafter.hint;

import java.util.List;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryAfterFieldTests {

	private static long delay(String raw) {
		int start = RetryAfterField.trimStart(raw);
		int end = RetryAfterField.trimEnd(raw, start);
		return RetryAfterField.delaySeconds(raw, start, end);
	}

	private static RetryAfterError refusal(String raw) {
		try {
			delay(raw);
		}
		catch (RetryAfterException ex) {
			assertThat(ex.getMessage()).contains(raw.strip()).containsIgnoringCase("ask the origin");
			return ex.code();
		}
		throw new AssertionError("accepted " + raw);
	}

	@Test
	void bareDigitsAreSecondsBeforeAnythingElse() {
		assertThat(delay("2000")).isEqualTo(2000);
		assertThat(delay("0")).isZero();
		assertThat(delay("120")).isEqualTo(120);
	}

	@Test
	void leadingZerosAndSurroundingSpacesAndTabsAreAllowed() {
		assertThat(delay(" 0003\t")).isEqualTo(3);
		assertThat(delay("\t\t 000 ")).isZero();
	}

	@Test
	void digitsBeyondALongSaturateInsteadOfOverflowing() {
		assertThat(delay("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
		assertThat(delay("9223372036854775808")).isEqualTo(Long.MAX_VALUE);
		assertThat(delay("9".repeat(5000))).isEqualTo(Long.MAX_VALUE);
		assertThat(delay("0".repeat(40) + "42")).isEqualTo(42);
	}

	@Test
	void aSaturatedValueIsStillCheckedToTheEnd() {
		assertThat(refusal("9".repeat(30) + "x")).isEqualTo(RetryAfterError.INVALID_DELAY);
	}

	@ParameterizedTest
	@ValueSource(strings = { "-1", "+5", "1.5", "1e3", "1E3", "٣", "３", "later", "soon", "0x10", "12s", "1 2", "5\t5",
			"NaN", "Infinity", "-0" })
	void refusesEverythingButAsciiDigitsAsInvalidDelay(String raw) {
		assertThat(refusal(raw)).isEqualTo(RetryAfterError.INVALID_DELAY);
	}

	@Test
	void invalidDelayMessagesSayWhy() {
		assertThatThrownBy(() -> delay("-1")).hasMessageContaining("signed or negative");
		assertThatThrownBy(() -> delay("1.5")).hasMessageContaining("not fractions");
		assertThatThrownBy(() -> delay("1e3")).hasMessageContaining("exponent");
		assertThatThrownBy(() -> delay("٣")).hasMessageContaining("U+0663").hasMessageContaining("not an ASCII one");
		assertThatThrownBy(() -> delay("later")).hasMessageContaining("neither digits nor an HTTP-date");
	}

	@Test
	void aValueShapedLikeADateIsLeftToTheDateParser() {
		assertThat(delay("Tue, 08 Sep 2026 12:00:07 GMT")).isEqualTo(RetryAfterField.DATE_FORM);
		assertThat(delay("Tue Sep  8 12:00:07 2026")).isEqualTo(RetryAfterField.DATE_FORM);
		assertThat(delay("tue, 08 sep")).isEqualTo(RetryAfterField.DATE_FORM);
		assertThat(delay("in five minutes")).isEqualTo(RetryAfterField.DATE_FORM);
	}

	@ParameterizedTest
	@ValueSource(strings = { "120, 120", "120,120", "120,", ",120", ",", "Tue, 08 Sep 2026 12:00:07 GMT, 120",
			"Tue, 08 Sep 2026 12:00:07 GMT, Tue, 08 Sep 2026 12:00:07 GMT", "-1, 5" })
	void refusesACommaListAsMultipleValues(String raw) {
		assertThat(refusal(raw)).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
	}

	@Test
	void refusesTwoFieldLinesAsMultipleValues() {
		assertThatThrownBy(() -> RetryAfterField.requireSingle(List.of("120", "120")))
			.isInstanceOfSatisfying(RetryAfterException.class,
					ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MULTIPLE_VALUES))
			.hasMessageContaining("2 field lines (\"120\", \"120\")")
			.hasMessageContaining("exactly one Retry-After");
	}

	@Test
	void refusesAnEmptyFieldEvenNextToAnotherOne() {
		for (List<String> values : List.of(List.of(""), List.of(" \t "), List.of("", "120"), List.of("120", " "))) {
			assertThatThrownBy(() -> RetryAfterField.requireSingle(values))
				.isInstanceOfSatisfying(RetryAfterException.class,
						ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.EMPTY))
				.hasMessageContaining("empty field is not zero");
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "04 Aug 2026 12:00:30 GMT", "4 Aug 2026 12:00:30 GMT", "04-Aug-26 12:00:30 GMT",
			"04 aug 2026 12:00:30 GMT", " 04 Aug 2026 12:00:30 GMT\t" })
	void refusesADateWithoutItsDayNameAsMalformedDate(String raw) {
		assertThatThrownBy(() -> delay(raw)).isInstanceOfSatisfying(RetryAfterException.class,
				ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MALFORMED_DATE))
			.hasMessageContaining("without its day name")
			.hasMessageContaining("\"" + raw.strip() + "\"");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"Tue, 04 Aug 2026 12:00:30 GMT\"", "\"Tue Aug  4 12:00:30 2026\"",
			"\"Tuesday, 04-Aug-26 12:00:30 GMT\"", "\"04 Aug 2026 12:00:30 GMT\"" })
	void refusesADateInDoubleQuotesAsMalformedDate(String raw) {
		assertThatThrownBy(() -> delay(raw)).isInstanceOfSatisfying(RetryAfterException.class,
				ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MALFORMED_DATE))
			.hasMessageContaining("inside double quotes")
			.hasMessageContaining("send the date bare");
	}

	@ParameterizedTest
	@ValueSource(strings = { "'Tue, 08 Sep 2026 12:00:07 GMT'", "'Tue Sep  8 12:00:07 2026'",
			"'Tuesday, 08-Sep-26 12:00:07 GMT'", "'08 Sep 2026 12:00:07 GMT'" })
	void aDateInSingleQuotesIsAMalformedDateNotAList(String raw) {
		assertThatThrownBy(() -> delay(raw)).isInstanceOfSatisfying(RetryAfterException.class,
				ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MALFORMED_DATE))
			.hasMessageContaining("inside single quotes")
			.hasMessageContaining("send the date bare")
			.hasMessageNotContaining("comma-separated list");
	}

	@ParameterizedTest
	@ValueSource(strings = { "'120'", "'soon'", "'", "''" })
	void leavesOtherSingleQuotedValuesToTheOtherChecks(String raw) {
		assertThat(refusal(raw)).isEqualTo(RetryAfterError.INVALID_DELAY);
	}

	@Test
	void aListOfSingleQuotedDatesIsStillMultipleValues() {
		assertThat(refusal("'Tue, 04 Aug', 'Wed, 05 Aug'")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"120\"", "\"soon\"", "\"", "\"\"" })
	void leavesOtherQuotedValuesToTheOtherChecks(String raw) {
		assertThat(refusal(raw)).isEqualTo(RetryAfterError.INVALID_DELAY);
	}

	@Test
	void aListOfQuotedDatesIsStillMultipleValues() {
		assertThat(refusal("\"Tue, 04 Aug\", \"Wed, 05 Aug\"")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
	}

	@Test
	void aHugeValueIsQuotedCutToSixtyFourCharacters() {
		String raw = "1".repeat(10) + "x".repeat(100_000);
		assertThatThrownBy(() -> delay(raw)).isInstanceOfSatisfying(RetryAfterException.class,
				ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.INVALID_DELAY))
			.hasMessageContaining("\"" + raw.substring(0, 64) + "…(+99946 chars)\"")
			.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(600));
		String list = "1,".repeat(50_000);
		assertThatThrownBy(() -> delay(list)).hasMessageContaining("…(+99936 chars)\"")
			.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(600));
	}

	@Test
	void manyFieldLinesAreCountedNotAllQuoted() {
		List<String> lines = java.util.Collections.nCopies(1000, "9".repeat(1000));
		assertThatThrownBy(() -> RetryAfterField.requireSingle(lines))
			.isInstanceOfSatisfying(RetryAfterException.class,
					ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MULTIPLE_VALUES))
			.hasMessageContaining("1000 field lines")
			.hasMessageContaining("…(+936 chars)\"")
			.hasMessageContaining(", …(+996 more))")
			.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(800));
	}

	@Test
	void acceptsOneNonEmptyFieldLine() {
		RetryAfterField.requireSingle(List.of(" 120 "));
	}

	@Test
	void ageIsDeltaSecondsOrNothing() {
		assertThat(RetryAfterField.deltaSeconds(" 20 ")).isEqualTo(20);
		assertThat(RetryAfterField.deltaSeconds("0")).isZero();
		assertThat(RetryAfterField.deltaSeconds("9".repeat(100))).isEqualTo(Long.MAX_VALUE);
		for (String invalid : List.of("", " ", "-1", "1.5", "20, 30", "٣", "old")) {
			assertThat(RetryAfterField.deltaSeconds(invalid)).as(invalid).isEqualTo(-1);
		}
	}

}
