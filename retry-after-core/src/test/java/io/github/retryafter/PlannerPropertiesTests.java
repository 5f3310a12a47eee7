package io.github.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import io.github.retryafter.internal.HttpDate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import static io.github.retryafter.PlannerFixtures.headers;
import static org.assertj.core.api.Assertions.assertThat;

class PlannerPropertiesTests {

	private static final long YEAR_1970 = 0;

	private static final long YEAR_2100 = Instant.parse("2100-01-01T00:00:00Z").getEpochSecond();

	private static final DateTimeFormatter RFC_850 = DateTimeFormatter
		.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private static final DateTimeFormatter ASCTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US)
		.withZone(ZoneOffset.UTC);

	private static RetryAfterPlanner planner(Instant clientWallClock, double draw, Duration maxWait) {
		return RetryAfterPlanner.builder()
			.options(PlannerOptions.builder().maxWait(maxWait).build())
			.wallClock(InstantSource.fixed(clientWallClock))
			.ticker(() -> 0L)
			.random(() -> draw)
			.build();
	}

	private static String format(long epochSecond, int form) {
		Instant instant = Instant.ofEpochSecond(epochSecond);
		return switch (form) {
			case 1 -> RFC_850.format(instant);
			case 2 -> ASCTIME.format(instant);
			default -> HttpDate.format(epochSecond);
		};
	}

	@Property(tries = 2000)
	void arbitraryStringsOnlyEverRaiseRetryAfterException(@ForAll("fieldValues") String retryAfter,
			@ForAll("fieldValues") String date, @ForAll("fieldValues") String age) {
		RetryAfterPlanner planner = planner(Instant.parse("2026-09-08T12:00:00Z"), 0.5, null);
		try {
			Optional<RetryPlan> plan = planner.plan(headers("Retry-After", retryAfter, "Date", date, "Age", age));
			assertThat(plan).isPresent();
			assertThat(plan.get().waitTime()).isGreaterThanOrEqualTo(plan.get().floor());
		}
		catch (RetryAfterException ex) {
			assertThat(ex.code()).isNotNull();
			assertThat(ex.getMessage()).isNotBlank();
		}
	}

	@Provide
	Arbitrary<String> fieldValues() {
		Arbitrary<String> anything = Arbitraries.strings().ofMaxLength(40);
		Arbitrary<String> dateAlphabet = Arbitraries.strings()
			.withChars("0123456789 ,:-+JFMASONDjfmasondTWSuehrtaiUCEGMTZ\t٣")
			.ofMaxLength(32);
		Arbitrary<String> mutatedDate = Combinators
			.combine(Arbitraries.longs().between(YEAR_1970, YEAR_2100), Arbitraries.integers().between(0, 2),
					Arbitraries.integers().between(0, 28), Arbitraries.chars())
			.as((second, form, at, c) -> {
				StringBuilder text = new StringBuilder(format(second, form));
				text.setCharAt(Math.min(at, text.length() - 1), c);
				return text.toString();
			});
		Arbitrary<String> validDate = Combinators
			.combine(Arbitraries.longs().between(YEAR_1970, YEAR_2100), Arbitraries.integers().between(0, 2))
			.as(PlannerPropertiesTests::format);
		Arbitrary<String> digits = Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(30);
		return Arbitraries.oneOf(anything, dateAlphabet, mutatedDate, validDate, digits);
	}

	@Property(tries = 1000)
	void validDatesGiveWaitAtLeastFloorAtLeastZeroWhateverTheClientClock(
			@ForAll @LongRange(min = YEAR_1970, max = 4_102_444_800L) long serverNow,
			@ForAll @LongRange(min = 0, max = 10L * 366 * 86_400) long ahead, @ForAll @IntRange(min = 0, max = 2) int form,
			@ForAll @IntRange(min = 0, max = 2) int dateForm, @ForAll @LongRange(min = 0, max = 1_000_000) long age,
			@ForAll @LongRange(min = -400L * 86_400_000, max = 400L * 86_400_000) long skewMillis,
			@ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double draw) {
		HeaderSource headers = headers("Retry-After", format(serverNow + ahead, form), "Date",
				format(serverNow, dateForm), "Age", Long.toString(age));
		Instant server = Instant.ofEpochSecond(serverNow);
		RetryPlan onTime = planner(server, draw, null).plan(headers).orElseThrow();
		RetryPlan skewed = planner(server.plusMillis(skewMillis), draw, null).plan(headers).orElseThrow();

		long expectedFloor = Math.max(0, (ahead - age) * 1000);
		assertThat(onTime.floor()).isEqualTo(Duration.ofMillis(expectedFloor));
		assertThat(skewed.floor()).isEqualTo(onTime.floor());
		assertThat(skewed.waitTime()).isEqualTo(onTime.waitTime());
		assertThat(skewed.skew()).contains(Duration.ofMillis(-skewMillis));
		for (RetryPlan plan : new RetryPlan[] { onTime, skewed }) {
			assertThat(plan.floor()).isGreaterThanOrEqualTo(Duration.ZERO);
			assertThat(plan.waitTime()).isGreaterThanOrEqualTo(plan.floor());
			assertThat(plan.jitter()).isLessThan(plan.spread());
			assertThat(plan.source()).isEqualTo(PlanSource.HTTP_DATE);
			assertThat(plan.clampedToZero()).isEqualTo(age > ahead);
		}
	}

	@Property(tries = 500)
	void maxWaitIsNeverExceededAndNeverShortensTheFloor(@ForAll @LongRange(min = 0, max = 100_000) long seconds,
			@ForAll @LongRange(min = 0, max = 200_000_000) long maxWaitMillis,
			@ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double draw) {
		RetryAfterPlanner planner = planner(Instant.EPOCH, draw, Duration.ofMillis(maxWaitMillis));
		try {
			RetryPlan plan = planner.plan(headers("Retry-After", Long.toString(seconds))).orElseThrow();
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(seconds));
			assertThat(plan.waitTime()).isLessThanOrEqualTo(Duration.ofMillis(maxWaitMillis))
				.isGreaterThanOrEqualTo(plan.floor());
		}
		catch (RetryAfterException ex) {
			assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG);
			assertThat(seconds * 1000).isGreaterThan(maxWaitMillis);
		}
	}

	@Property(tries = 1000)
	void theParserAgreesWithFormattingForEveryValidInstant(
			@ForAll @LongRange(min = -2_208_988_800L, max = 253_402_300_799L) long epochSecond) {
		assertThat(HttpDate.parse("Retry-After", HttpDate.format(epochSecond), epochSecond)).isEqualTo(epochSecond);
		assertThat(HttpDate.parse("Retry-After", ASCTIME.format(Instant.ofEpochSecond(epochSecond)), epochSecond))
			.isEqualTo(epochSecond);
		assertThat(HttpDate.parse("Retry-After", RFC_850.format(Instant.ofEpochSecond(epochSecond)), epochSecond))
			.isEqualTo(epochSecond);
	}

}
