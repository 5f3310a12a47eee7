package io.github.retryafter.hint;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.hint.RateLimitFields.Family;
import io.github.retryafter.hint.RateLimitFields.Problem.Code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RateLimitFieldsTests {

	private static RateLimitFields read(String... lines) {
		return RateLimitFields.read(HeaderSource.parse(String.join("\n", lines) + "\n"));
	}

	@Test
	void theIetfFieldsGiveTheQuotaFromThePolicyAndTheWindowFromRateLimit() {
		RateLimitFields fields = read("RateLimit-Policy: \"burst\";q=100;w=60, \"daily\";q=1000;w=86400",
				"RateLimit: \"burst\";r=0;t=30, \"daily\";r=200;t=3600");
		assertThat(fields.family()).contains(Family.IETF);
		assertThat(fields.quota()).as("the lowest q/w").hasValueCloseTo(1000 / 86400.0, within(1e-12));
		assertThat(fields.remaining()).hasValue(0);
		assertThat(fields.limit()).as("the q of the policy named as the window read").hasValue(100);
		assertThat(fields.reset()).contains(Duration.ofSeconds(30));
		assertThat(fields.exhausted()).isTrue();
		assertThat(fields.problems()).isEmpty();
	}

	@Test
	void aWindowNamedByNoPolicyHasNoLimitAndNoneIsGuessed() {
		RateLimitFields fields = read("RateLimit-Policy: \"daily\";q=1000;w=86400", "RateLimit: \"burst\";r=5;t=1");
		assertThat(fields.remaining()).hasValue(5);
		assertThat(fields.limit()).isEmpty();
		assertThat(read("RateLimit: \"burst\";r=5;t=1").limit()).isEmpty();
		assertThat(read("RateLimit-Policy: \"p\";q=10;w=1;qu=\"content-bytes\"", "RateLimit: \"p\";r=5;t=1").limit())
			.as("a policy counting bytes").isEmpty();
	}

	@Test
	void aPolicyCountingSomethingOtherThanRequestsIsIgnoredAndNamed() {
		RateLimitFields fields = read("RateLimit-Policy: \"bytes\";q=1000;w=1;qu=\"content-bytes\", \"calls\";q=10;w=1",
				"RateLimit: \"calls\";r=5;t=1");
		assertThat(fields.quota()).hasValueCloseTo(10.0, within(1e-12));
		assertThat(fields.problems()).singleElement()
			.satisfies((problem) -> assertThat(problem.code()).isEqualTo(Code.NOT_REQUESTS));
	}

	@Test
	void theDraftTrioReadsAQuotaPolicyWhenTheLimitNamesItsWindow() {
		RateLimitFields fields = read("RateLimit-Limit: 100, 100;w=10, 1000;w=3600", "RateLimit-Remaining: 7",
				"RateLimit-Reset: 4");
		assertThat(fields.family()).contains(Family.DRAFT_TRIO);
		assertThat(fields.quota()).hasValueCloseTo(10.0, within(1e-12));
		assertThat(fields.limit()).hasValue(100);
		assertThat(fields.remaining()).hasValue(7);
		assertThat(fields.reset()).contains(Duration.ofSeconds(4));
		assertThat(fields.exhausted()).isFalse();
	}

	@Test
	void aLimitWithoutAWindowHasNoRateAndNoneIsGuessed() {
		RateLimitFields fields = read("X-RateLimit-Limit: 5000", "X-RateLimit-Remaining: 4999", "X-RateLimit-Reset: 60");
		assertThat(fields.family()).contains(Family.X_TRIO);
		assertThat(fields.quota()).isEmpty();
		assertThat(fields.limit()).as("the limit is kept, though it makes no rate").hasValue(5000);
		assertThat(fields.remaining()).hasValue(4999);
		assertThat(fields.problems()).isEmpty();
	}

	@Test
	void anEpochResetIsMeasuredAgainstTheResponsesOwnDateSoTheClientsClockNeverMatters() {
		// Date: 2026-08-04T12:00:00Z = 1785844800
		RateLimitFields fields = read("Date: Tue, 04 Aug 2026 12:00:00 GMT", "X-RateLimit-Limit: 5000",
				"X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1785844845");
		assertThat(fields.reset()).contains(Duration.ofSeconds(45));
		assertThat(fields.exhausted()).isTrue();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			X-RateLimit-Reset: 1785844845                                         | MISSING_DATE
			Date: Tue, 04 Aug 2026 12:00:00 GMT\\nX-RateLimit-Reset: 1785844700    | RESET_BEFORE_DATE
			Date: someday\\nX-RateLimit-Reset: 1785844845                          | MISSING_DATE
			X-RateLimit-Remaining: -1                                             | INVALID_NUMBER
			X-RateLimit-Remaining: 1e3                                            | INVALID_NUMBER
			X-RateLimit-Remaining: ١٢                                             | INVALID_NUMBER
			X-RateLimit-Remaining: 1234567890123456                               | INVALID_NUMBER
			X-RateLimit-Remaining: 5, 6                                           | MULTIPLE_VALUES
			X-RateLimit-Remaining: 5\\nX-RateLimit-Remaining: 5                    | MULTIPLE_VALUES
			X-RateLimit-Limit: lots                                               | INVALID_NUMBER
			X-RateLimit-Limit: 5;;                                                | MALFORMED
			X-RateLimit-Limit: 0                                                  | INVALID_NUMBER
			RateLimit-Limit: 100, 100;w=0                                         | INVALID_NUMBER
			RateLimit-Policy: "p";q=10;w=1,                                       | MALFORMED
			RateLimit-Policy: ("p");q=10                                          | MALFORMED
			RateLimit-Policy: "p;q=10                                             | MALFORMED
			RateLimit-Policy: "p";q=-10;w=1                                       | INVALID_NUMBER
			RateLimit-Policy: "p";q=1.5;w=1                                       | INVALID_NUMBER
			RateLimit: "p";r=abc;t=1                                              | INVALID_NUMBER
			RateLimit: "p";R=1                                                    | MALFORMED
			""")
	void anUnusableFieldIsIgnoredAndNamedNeverGuessedAt(String lines, Code code) {
		RateLimitFields fields = read(lines.replace("\\n", "\n").split("\n"));
		assertThat(fields.problems()).as("%s", lines).extracting(RateLimitFields.Problem::code).containsExactly(code);
		assertThat(fields.problems().get(0).reason()).contains("ignored");
		if (lines.startsWith("X-RateLimit-Limit") || lines.startsWith("RateLimit-Limit: 100,")) {
			assertThat(fields.limit()).as("%s", lines).isEqualTo(lines.startsWith("RateLimit-Limit")
					? java.util.OptionalLong.of(100) : java.util.OptionalLong.empty());
		}
		assertThat(fields.exhausted()).isFalse();
	}

	@Test
	void theFirstFamilyPresentWinsAndAResponseWithoutFieldsReadsAsNone() {
		RateLimitFields fields = read("RateLimit: \"p\";r=3;t=2", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 9");
		assertThat(fields.remaining()).hasValue(3);
		assertThat(read("Retry-After: 2")).isEqualTo(RateLimitFields.NONE);
		assertThat(RateLimitFields.NONE.family()).isEqualTo(Optional.empty());
		assertThat(RateLimitFields.NONE.problems()).isEqualTo(List.of());
		assertThat(RateLimitFields.NONE.limit()).isEmpty();
	}

}
