package io.github.retryafter.generated;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.hint.RateLimitFields;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Generated inputs for the rate-limit field parser, as {@code PlannerPropertiesTests} does for {@code Retry-After}:
 * arbitrary and near-miss values never make it throw, never yield a negative or non-finite number, and bound their
 * messages; valid values, in every family, read back exactly.
 */
class RateLimitFieldsPropertiesTests {

	private static final long SEED = 0x5eed_0013L;

	private static final List<String> NAMES = List.of("RateLimit", "RateLimit-Policy", "RateLimit-Limit",
			"RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
			"Date");

	@Test
	void arbitraryFieldsNeverThrowAndOnlyEverYieldSaneNumbersOrNamedProblems() {
		Tries.check(SEED, 5000, RateLimitFieldsPropertiesTests::anyFields, (fields) -> {
			RateLimitFields read = RateLimitFields.read(HeaderSource.of(fields));
			read.quota().ifPresent((quota) -> assertThat(quota).isPositive().isFinite());
			read.remaining().ifPresent((remaining) -> assertThat(remaining).isNotNegative());
			read.reset().ifPresent((reset) -> assertThat(reset).isGreaterThanOrEqualTo(Duration.ZERO));
			if (read.exhausted()) {
				assertThat(read.remaining()).hasValue(0);
			}
			assertThat(read.family().isPresent() || read.problems().isEmpty()).isTrue();
			read.problems().forEach((problem) -> {
				assertThat(NAMES).contains(problem.field());
				assertThat(problem.reason()).startsWith(problem.field() + " ignored: ").hasSizeLessThan(600);
			});
		});
	}

	@Test
	void validFieldsOfEveryFamilyReadBackExactly() {
		Tries.check(SEED, 2000,
				(draw) -> new long[] { draw.longs(1, 999_999_999_999L), draw.longs(1, 999_999_999_999L),
						draw.longs(0, 999_999_999L), draw.longs(0, 999_999_999L), draw.ints(0, 2),
						draw.longs(1_000_000_000L, 4_102_444_800L - 1_000_000_000L) },
				(v) -> {
					long q = v[0];
					long w = v[1];
					long r = v[2];
					long t = v[3];
					Map<String, List<String>> fields = new LinkedHashMap<>();
					switch ((int) v[4]) {
						case 0 -> {
							fields.put("RateLimit-Policy", List.of("\"other\";q=" + (q + 1) + ";w=" + w + ", \"p\";q=" + q
									+ ";w=" + w + ";qu=\"requests\";pk=:cGsx:"));
							fields.put("RateLimit", List.of("\"p\";r=" + r + ";t=" + t));
						}
						case 1 -> {
							fields.put("RateLimit-Limit", List.of(q + ", " + q + ";w=" + w));
							fields.put("RateLimit-Remaining", List.of(Long.toString(r)));
							fields.put("RateLimit-Reset", List.of(Long.toString(t)));
						}
						default -> {
							long date = v[5];
							fields.put("X-RateLimit-Limit", List.of(q + ", " + q + ";w=" + w));
							fields.put("X-RateLimit-Remaining", List.of(Long.toString(r)));
							fields.put("X-RateLimit-Reset", List.of(Long.toString(date + t)));
							fields.put("Date", List.of(HttpDate.format(date)));
						}
					}
					RateLimitFields read = RateLimitFields.read(HeaderSource.of(fields));
					assertThat(read.problems()).isEmpty();
					assertThat(read.quota()).hasValueCloseTo(q / (double) w, within(q / (double) w * 1e-12));
					assertThat(read.remaining()).hasValue(r);
					assertThat(read.reset()).contains(Duration.ofSeconds(t));
					assertThat(read.exhausted()).isEqualTo(r == 0 && t > 0);
				});
	}

	/** Up to four of the fields, each anything, its alphabet, a valid value with one character changed, or digits. */
	private static Map<String, List<String>> anyFields(Draw draw) {
		Map<String, List<String>> fields = new LinkedHashMap<>();
		int count = draw.ints(0, 4);
		for (int i = 0; i < count; i++) {
			String name = draw.of(NAMES.toArray(new String[0]));
			fields.computeIfAbsent(name, (key) -> new java.util.ArrayList<>()).add(value(draw));
		}
		return fields;
	}

	private static String value(Draw draw) {
		return draw.oneOf((anything) -> anything.string(60),
				(alphabet) -> alphabet.string("\"abcpqrtwu;=,:?*-.0123456789 ()\\\t٣", 48), (mutated) -> {
					StringBuilder text = new StringBuilder(mutated.of("\"default\";q=100;w=60", "\"p\";r=0;t=30",
							"100, 100;w=60", "1785844845", "Tue, 04 Aug 2026 12:00:00 GMT", "\"b\";q=1;w=1;qu=\"requests\""));
					text.setCharAt(mutated.ints(0, text.length() - 1), mutated.anyChar());
					return text.toString();
				}, (digits) -> digits.digits(1, 30));
	}

}
