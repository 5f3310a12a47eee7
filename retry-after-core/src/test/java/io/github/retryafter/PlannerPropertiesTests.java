package io.github.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import io.github.retryafter.generated.Draw;
import io.github.retryafter.generated.Tries;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.hint.RetryAfterPlanner;
import org.junit.jupiter.api.Test;

import static io.github.retryafter.PlannerFixtures.headers;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planner's properties over generated header fields, clocks and settings, drawn by {@link Tries} from a fixed
 * seed: a failure names the try that reproduces it.
 */
class PlannerPropertiesTests {

	private static final long SEED = 0x5eed_0001L;

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

	@Test
	void arbitraryStringsOnlyEverRaiseRetryAfterException() {
		Tries.check(SEED, 2000, (draw) -> new Fields(fieldValue(draw), fieldValue(draw), fieldValue(draw)),
				(fields) -> arbitraryStringsOnlyEverRaiseRetryAfterException(fields.retryAfter(), fields.date(),
						fields.age()));
	}

	private static void arbitraryStringsOnlyEverRaiseRetryAfterException(String retryAfter, String date, String age) {
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

	/** Anything, the characters of dates, a valid date with one character changed, a valid date, or digits. */
	private static String fieldValue(Draw draw) {
		return draw.oneOf((anything) -> anything.string(40),
				(dateAlphabet) -> dateAlphabet.string("0123456789 ,:-+JFMASONDjfmasondTWSuehrtaiUCEGMTZ\t٣", 32),
				(mutatedDate) -> {
					StringBuilder text = new StringBuilder(
							format(mutatedDate.longs(YEAR_1970, YEAR_2100), mutatedDate.ints(0, 2)));
					text.setCharAt(Math.min(mutatedDate.ints(0, 28), text.length() - 1), mutatedDate.anyChar());
					return text.toString();
				}, (validDate) -> format(validDate.longs(YEAR_1970, YEAR_2100), validDate.ints(0, 2)),
				(digits) -> digits.digits(1, 30));
	}

	record Fields(String retryAfter, String date, String age) {

	}

	@Test
	void validDatesGiveWaitAtLeastFloorAtLeastZeroWhateverTheClientClock() {
		Tries.check(SEED, 1000,
				(draw) -> new ServerAndClient(draw.longs(YEAR_1970, 4_102_444_800L), draw.longs(0, 10L * 366 * 86_400),
						draw.ints(0, 2), draw.ints(0, 2), draw.longs(0, 1_000_000),
						draw.longs(-400L * 86_400_000, 400L * 86_400_000), draw.unit()),
				(input) -> validDatesGiveWaitAtLeastFloorAtLeastZeroWhateverTheClientClock(input.serverNow(),
						input.ahead(), input.form(), input.dateForm(), input.age(), input.skewMillis(), input.draw()));
	}

	record ServerAndClient(long serverNow, long ahead, int form, int dateForm, long age, long skewMillis, double draw) {

	}

	private static void validDatesGiveWaitAtLeastFloorAtLeastZeroWhateverTheClientClock(long serverNow, long ahead,
			int form, int dateForm, long age, long skewMillis, double draw) {
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

	@Test
	void maxWaitIsNeverExceededAndNeverShortensTheFloor() {
		Tries.check(SEED, 500, (draw) -> new DelayAndMaxWait(draw.longs(0, 100_000), draw.longs(0, 200_000_000),
				draw.unit()),
				(input) -> maxWaitIsNeverExceededAndNeverShortensTheFloor(input.seconds(), input.maxWaitMillis(),
						input.draw()));
	}

	record DelayAndMaxWait(long seconds, long maxWaitMillis, double draw) {

	}

	private static void maxWaitIsNeverExceededAndNeverShortensTheFloor(long seconds, long maxWaitMillis, double draw) {
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

	@Test
	void theParserAgreesWithFormattingForEveryValidInstant() {
		Tries.check(SEED, 1000, (draw) -> draw.longs(-2_208_988_800L, 253_402_300_799L),
				PlannerPropertiesTests::theParserAgreesWithFormattingForEveryValidInstant);
	}

	private static void theParserAgreesWithFormattingForEveryValidInstant(long epochSecond) {
		assertThat(HttpDate.parse("Retry-After", HttpDate.format(epochSecond), epochSecond)).isEqualTo(epochSecond);
		assertThat(HttpDate.parse("Retry-After", ASCTIME.format(Instant.ofEpochSecond(epochSecond)), epochSecond))
			.isEqualTo(epochSecond);
		assertThat(HttpDate.parse("Retry-After", RFC_850.format(Instant.ofEpochSecond(epochSecond)), epochSecond))
			.isEqualTo(epochSecond);
	}

}
