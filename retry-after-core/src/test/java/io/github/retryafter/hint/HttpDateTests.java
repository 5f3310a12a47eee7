package io.github.retryafter.hint;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HttpDateTests {

	/** 2026-09-08T12:00:00Z, seed 001's REFERENCE. */
	private static final long REFERENCE = ZonedDateTime.of(2026, 9, 8, 12, 0, 0, 0, ZoneOffset.UTC).toEpochSecond();

	private static long epoch(int year, int month, int day, int hour, int minute, int second) {
		return ZonedDateTime.of(year, month, day, hour, minute, second, 0, ZoneOffset.UTC).toEpochSecond();
	}

	private static long parse(String value) {
		return HttpDate.parse("Retry-After", value, REFERENCE);
	}

	private static RetryAfterError refusal(String value) {
		try {
			parse(value);
		}
		catch (RetryAfterException ex) {
			assertThat(ex.getMessage()).contains(value).contains("Retry-After");
			return ex.code();
		}
		throw new AssertionError("accepted " + value);
	}

	@Test
	void parsesTheThreeFormsOfTheSameInstant() {
		long expected = epoch(2026, 9, 8, 12, 0, 7);
		assertThat(parse("Tue, 08 Sep 2026 12:00:07 GMT")).isEqualTo(expected);
		assertThat(parse("Tuesday, 08-Sep-26 12:00:07 GMT")).isEqualTo(expected);
		assertThat(parse("Tue Sep  8 12:00:07 2026")).isEqualTo(expected);
	}

	@Test
	void parsesRfc9110sOwnExamples() {
		long expected = epoch(1994, 11, 6, 8, 49, 37);
		assertThat(HttpDate.parse("Date", "Sun, 06 Nov 1994 08:49:37 GMT", REFERENCE)).isEqualTo(expected);
		assertThat(HttpDate.parse("Date", "Sunday, 06-Nov-94 08:49:37 GMT", REFERENCE)).isEqualTo(expected);
		assertThat(HttpDate.parse("Date", "Sun Nov  6 08:49:37 1994", REFERENCE)).isEqualTo(expected);
	}

	@Test
	void asctimeAcceptsATwoDigitDayToo() {
		assertThat(parse("Sun Nov 06 08:49:37 1994")).isEqualTo(epoch(1994, 11, 6, 8, 49, 37));
		assertThat(parse("Wed Nov 16 08:49:37 1994")).isEqualTo(epoch(1994, 11, 16, 8, 49, 37));
	}

	@Test
	void parsesASubRangeOfTheSameWindowAsJavaTime() {
		DateTimeFormatter formatter = DateTimeFormatter.RFC_1123_DATE_TIME;
		for (long second = epoch(1999, 12, 25, 0, 0, 0); second < epoch(2001, 3, 5, 0, 0, 0); second += 86_400 + 3_607) {
			String text = formatter.format(ZonedDateTime.ofInstant(java.time.Instant.ofEpochSecond(second), ZoneOffset.UTC));
			if (text.length() == 29) {
				assertThat(parse(text)).as(text).isEqualTo(second);
			}
			assertThat(HttpDate.format(second)).isEqualTo(
					DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)
						.format(ZonedDateTime.ofInstant(java.time.Instant.ofEpochSecond(second), ZoneOffset.UTC)));
		}
	}

	@Test
	void formatAndParseRoundTripOverFourHundredYears() {
		for (long day = LocalDate.of(1900, 1, 1).toEpochDay(); day < LocalDate.of(2300, 1, 1).toEpochDay(); day += 97) {
			long second = day * 86_400 + 45_296;
			assertThat(parse(HttpDate.format(second))).isEqualTo(second);
		}
	}

	@Test
	void leapSecondRollsIntoTheNextMinute() {
		assertThat(parse("Sat, 31 Dec 2016 23:59:60 GMT")).isEqualTo(epoch(2017, 1, 1, 0, 0, 0));
		assertThat(parse("Sat, 31 Dec 2016 23:59:60 GMT") - epoch(2016, 12, 31, 23, 59, 59)).isEqualTo(1);
		assertThat(parse("Saturday, 31-Dec-16 23:59:60 GMT")).isEqualTo(epoch(2017, 1, 1, 0, 0, 0));
		assertThat(parse("Sat Dec 31 23:59:60 2016")).isEqualTo(epoch(2017, 1, 1, 0, 0, 0));
	}

	@Test
	void rfc850YearWithinFiftyYearsAheadIsThisCentury() {
		// Seed 001: "08-Sep-70" against 2026 is 2070, 44 years ahead.
		assertThat(parse("Monday, 08-Sep-70 12:00:00 GMT")).isEqualTo(epoch(2070, 9, 8, 12, 0, 0));
	}

	@Test
	void rfc850YearMoreThanFiftyYearsAheadIsTheMostRecentPast() {
		// Seed 001: "06-Nov-94" against 2026 would be 2094, 68 years ahead: it is 1994.
		assertThat(parse("Sunday, 06-Nov-94 08:49:37 GMT")).isEqualTo(epoch(1994, 11, 6, 8, 49, 37));
	}

	@Test
	void rfc850FiftyYearBoundaryIsJudgedOnTheWholeTimestamp() {
		// Exactly 50 years after the reference is not "more than 50 years in the future".
		assertThat(parse("Tuesday, 08-Sep-76 12:00:00 GMT")).isEqualTo(epoch(2076, 9, 8, 12, 0, 0));
		// One second later is, so it is the past year with those digits.
		assertThat(parse("Wednesday, 08-Sep-76 12:00:01 GMT")).isEqualTo(epoch(1976, 9, 8, 12, 0, 1));
	}

	@Test
	void rfc850YearFollowsTheReferenceNotTheCalendar() {
		long in1995 = epoch(1995, 1, 1, 0, 0, 0);
		assertThat(HttpDate.parse("Retry-After", "Sunday, 06-Nov-94 08:49:37 GMT", in1995))
			.isEqualTo(epoch(1994, 11, 6, 8, 49, 37));
		assertThat(HttpDate.parse("Retry-After", "Thursday, 01-Jan-26 00:00:00 GMT", in1995))
			.isEqualTo(epoch(2026, 1, 1, 0, 0, 0));
		assertThat(HttpDate.parse("Retry-After", "Saturday, 01-Jan-66 00:00:00 GMT", in1995))
			.isEqualTo(epoch(1966, 1, 1, 0, 0, 0));
	}

	@Test
	void rfc850YearCrossesACenturyWhenTheReferenceIsNearItsEnd() {
		long lateIn2099 = epoch(2099, 12, 31, 23, 59, 0);
		assertThat(HttpDate.parse("Retry-After", "Friday, 01-Jan-00 00:00:00 GMT", lateIn2099))
			.isEqualTo(epoch(2100, 1, 1, 0, 0, 0));
		assertThat(HttpDate.parse("Retry-After", "Thursday, 31-Dec-99 23:59:00 GMT", lateIn2099))
			.isEqualTo(lateIn2099);
	}

	@Test
	void rfc850LeapDayDependsOnTheResolvedCentury() {
		// 29-Feb-00 is 2000 (a leap year) against 2026, and 1900 (not one) against a reference in 1940.
		assertThat(parse("Tuesday, 29-Feb-00 00:00:00 GMT")).isEqualTo(epoch(2000, 2, 29, 0, 0, 0));
		assertThatThrownBy(() -> HttpDate.parse("Retry-After", "Thursday, 29-Feb-00 00:00:00 GMT",
				epoch(1940, 1, 1, 0, 0, 0)))
			.extracting(ex -> ((RetryAfterException) ex).code())
			.isEqualTo(RetryAfterError.NONEXISTENT_DATE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "tue, 08 Sep 2026 12:00:07 GMT", "Tue, 08 sep 2026 12:00:07 GMT",
			"TUE, 08 SEP 2026 12:00:07 GMT", "Di, 08 Sep 2026 12:00:07 GMT", "Die, 08 Sep 2026 12:00:07 GMT",
			"Tue, 08 Sept 2026 12:00:07 GMT", "Mar, 08 Set 2026 12:00:07 GMT", "Tue, 08 Okt 2026 12:00:07 GMT",
			"tuesday, 08-Sep-26 12:00:07 GMT", "Dienstag, 08-Sep-26 12:00:07 GMT", "Tues, 08-Sep-26 12:00:07 GMT",
			"tue Sep  8 12:00:07 2026", "Tue sep  8 12:00:07 2026", "Tue, 8 Sep 2026 12:00:07 GMT",
			"Tue, 08 Sep 26 12:00:07 GMT", "Tue, 08 Sep 2026 12:00 GMT", "Tue, 08 Sep 2026 12:00:07", "Tue, 08 Sep 2026",
			"Tue,08 Sep 2026 12:00:07 GMT", "Tue,  08 Sep 2026 12:00:07 GMT", "Tue, 08 Sep 2026 12:00:07 GMT extra",
			"Tue, 08-Sep-2026 12:00:07 GMT", "Tue, 08-Sep-26 12:00:07 GMT", "Tuesday, 08 Sep 2026 12:00:07 GMT",
			"Tue Sep 8 12:00:07 2026", "Tue Sep  8 12:00:07 2026 GMT", "Tue Sep  8 12:00:07 26",
			"Tue, 08 Sep 2026 12.00.07 GMT", "Tue, 08 Sep 2026 12:00:07\tGMT", "Tue, ٠8 Sep 2026 12:00:07 GMT",
			"Tue, 08 Sep 2026T12:00:07 GMT", "2026-09-08T12:00:07Z", "Tue,", "Tue Sep", "Tu, 08 Sep 2026 12:00:07 GMT",
			"Tue 08 Sep 2026 12:00:07 GMT" })
	void refusesAnythingOutsideTheThreeGrammarsAsMalformed(String value) {
		assertThat(refusal(value)).isEqualTo(RetryAfterError.MALFORMED_DATE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "Tue, 08 Sep 2026 12:00:07 UTC", "Tue, 08 Sep 2026 12:00:07 +0000",
			"Tue, 08 Sep 2026 12:00:07 EST", "Tue, 08 Sep 2026 12:00:07 Z", "Tue, 08 Sep 2026 12:00:07 gmt",
			"Tue, 08 Sep 2026 12:00:07 GMT+1", "Tuesday, 08-Sep-26 12:00:07 UTC", "Tuesday, 08-Sep-26 12:00:07 -0500" })
	void refusesAnyZoneButLiteralGmt(String value) {
		assertThat(refusal(value)).isEqualTo(RetryAfterError.NON_GMT_ZONE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "Tue, 31 Feb 2026 12:00:00 GMT", "Sun, 29 Feb 2026 12:00:00 GMT",
			"Fri, 29 Feb 1900 12:00:00 GMT", "Thu, 31 Apr 2026 12:00:00 GMT", "Mon, 00 Jan 2026 12:00:00 GMT",
			"Thu, 32 Jan 2026 12:00:00 GMT", "Tue, 08 Sep 2026 24:00:00 GMT", "Tue, 08 Sep 2026 12:60:00 GMT",
			"Tue, 08 Sep 2026 12:00:61 GMT", "Tue, 08 Sep 2026 12:00:60 GMT", "Tue, 08 Sep 2026 23:58:60 GMT",
			"Tue, 08 Sep 2026 22:59:60 GMT", "Tue, 08 Sep 2026 99:99:99 GMT", "Tuesday, 31-Sep-26 12:00:00 GMT",
			"Tue Feb 30 12:00:00 2026", "Tue Sep  0 12:00:00 2026" })
	void refusesDatesAndTimesThatDoNotExist(String value) {
		assertThat(refusal(value)).isEqualTo(RetryAfterError.NONEXISTENT_DATE);
	}

	@Test
	void acceptsTheTwentyNinthOfFebruaryInLeapYears() {
		assertThat(parse("Thu, 29 Feb 2024 00:00:00 GMT")).isEqualTo(epoch(2024, 2, 29, 0, 0, 0));
		assertThat(parse("Tue, 29 Feb 2000 00:00:00 GMT")).isEqualTo(epoch(2000, 2, 29, 0, 0, 0));
	}

	@ParameterizedTest
	@ValueSource(strings = { "Mon, 08 Sep 2026 12:00:07 GMT", "Wednesday, 08-Sep-26 12:00:07 GMT",
			"Sun Sep  8 12:00:07 2026", "Sun, 04 Aug 2026 12:00:30 GMT" })
	void refusesADayNameThatDisagreesWithTheDate(String value) {
		assertThat(refusal(value)).isEqualTo(RetryAfterError.DAY_NAME_MISMATCH);
	}

	@Test
	void shapeIsReportedBeforeZoneBeforeRangeBeforeDayName() {
		// Lowercase month and a bad zone: the shape wins.
		assertThat(refusal("Mon, 31 feb 2026 24:00:00 UTC")).isEqualTo(RetryAfterError.MALFORMED_DATE);
		// Bad zone, nonexistent date and wrong day name: the zone wins.
		assertThat(refusal("Mon, 31 Feb 2026 24:00:00 UTC")).isEqualTo(RetryAfterError.NON_GMT_ZONE);
		// Nonexistent date and wrong day name: the range wins.
		assertThat(refusal("Mon, 31 Feb 2026 12:00:00 GMT")).isEqualTo(RetryAfterError.NONEXISTENT_DATE);
	}

	@Test
	void messagesSayWhatWasReceivedAndWhatToDo() {
		assertThatThrownBy(() -> parse("Tue, 08 Sep 2026 12:00:07 UTC")).hasMessageContaining("\"UTC\"")
			.hasMessageContaining("write GMT")
			.hasMessageContaining("catch RetryAfterException");
		assertThatThrownBy(() -> parse("Tue, 31 Feb 2026 12:00:00 GMT")).hasMessageContaining("day 31 of February 2026")
			.hasMessageContaining("has 28 days");
		assertThatThrownBy(() -> parse("Mon, 08 Sep 2026 12:00:07 GMT")).hasMessageContaining("says Monday")
			.hasMessageContaining("is a Tuesday");
		assertThatThrownBy(() -> parse("tue, 08 Sep 2026 12:00:07 GMT")).hasMessageContaining("\"tue\"")
			.hasMessageContaining("capitalisation")
			.hasMessageContaining("Ask the origin");
	}

	@Test
	void epochDayArithmeticAgreesWithJavaTime() {
		for (long day = LocalDate.of(-400, 1, 1).toEpochDay(); day < LocalDate.of(10_000, 1, 1).toEpochDay(); day += 13) {
			LocalDate date = LocalDate.ofEpochDay(day);
			assertThat(HttpDate.daysFromCivil(date.getYear(), date.getMonthValue(), date.getDayOfMonth())).isEqualTo(day);
		}
		assertThat(HttpDate.isLeapYear(2000)).isTrue();
		assertThat(HttpDate.isLeapYear(1900)).isFalse();
		assertThat(HttpDate.isLeapYear(2024)).isTrue();
		assertThat(HttpDate.isLeapYear(2026)).isFalse();
	}

}
