package io.github.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.hint.RetryAfterPlanner;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.retryafter.PlannerFixtures.DATE;
import static io.github.retryafter.PlannerFixtures.SERVER_NOW;
import static io.github.retryafter.PlannerFixtures.THIRTY_SECONDS_LATER;
import static io.github.retryafter.PlannerFixtures.headers;
import static io.github.retryafter.PlannerFixtures.jitter;
import static io.github.retryafter.PlannerFixtures.planner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryAfterPlannerTests {

	private static final RetryAfterPlanner EXACT = planner(SERVER_NOW).options(jitter(JitterMode.NONE)).build();

	private static RetryPlan plan(RetryAfterPlanner planner, HeaderSource headers) {
		return planner.plan(headers).orElseThrow();
	}

	private static RetryPlan exact(String... headers) {
		return plan(EXACT, headers(headers));
	}

	private static RetryAfterError refusal(RetryAfterPlanner planner, HeaderSource headers, PlanRequest request) {
		try {
			planner.plan(headers, request);
		}
		catch (RetryAfterException ex) {
			assertThat(ex.getMessage()).as("message of %s", ex.code()).isNotBlank();
			return ex.code();
		}
		throw new AssertionError("planned " + headers);
	}

	private static RetryAfterError refusal(String... headers) {
		return refusal(EXACT, headers(headers), PlanRequest.forAttempt(1));
	}

	@Test
	void noRetryAfterMeansNoInstruction() {
		assertThat(EXACT.plan(headers("Date", DATE))).isEmpty();
		assertThat(EXACT.plan(HeaderSource.empty())).isEmpty();
		assertThat(EXACT.plan(headers("Date", "garbage", "Age", "-1"))).isEmpty();
	}

	@Nested
	class Rule1SkewFree {

		/** The four-line implementation the library exists to replace: a server instant minus a client instant. */
		private long naiveWaitMillis(String retryAfter, Instant clientNow) {
			long retryAt = HttpDate.parse("Retry-After", retryAfter, clientNow.getEpochSecond()) * 1000;
			return Math.max(0, retryAt - clientNow.toEpochMilli());
		}

		@Test
		void theFloorIsTheSameWhateverTheClientClockSays() {
			for (Duration skew : List.of(Duration.ZERO, Duration.ofSeconds(40), Duration.ofSeconds(-40), Duration.ofDays(1),
					Duration.ofDays(-1))) {
				Instant client = SERVER_NOW.plus(skew);
				RetryPlan plan = plan(planner(client).options(jitter(JitterMode.NONE)).build(),
						headers("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE));
				assertThat(plan.floor()).as("client %s out", skew).isEqualTo(Duration.ofSeconds(30));
				assertThat(plan.waitTime()).isEqualTo(Duration.ofSeconds(30));
				assertThat(plan.instructed()).isEqualTo(Duration.ofSeconds(30));
				assertThat(plan.source()).isEqualTo(PlanSource.HTTP_DATE);
				assertThat(plan.skew()).contains(skew.negated());
			}
		}

		@Test
		void theNaiveImplementationIsWrongByTheSkew() {
			assertThat(naiveWaitMillis(THIRTY_SECONDS_LATER, SERVER_NOW)).isEqualTo(30_000);
			// Forty seconds fast: a thirty second backoff computes as zero, straight back into the limiter.
			assertThat(naiveWaitMillis(THIRTY_SECONDS_LATER, SERVER_NOW.plusSeconds(40))).isZero();
			// Forty seconds slow: seventy seconds, which looks like a timeout to the caller.
			assertThat(naiveWaitMillis(THIRTY_SECONDS_LATER, SERVER_NOW.minusSeconds(40))).isEqualTo(70_000);
			RetryPlan fast = plan(planner(SERVER_NOW.plusSeconds(40)).options(jitter(JitterMode.NONE)).build(),
					headers("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE));
			assertThat(fast.floor().toMillis()).isNotEqualTo(naiveWaitMillis(THIRTY_SECONDS_LATER,
					SERVER_NOW.plusSeconds(40)));
		}

		@Test
		void skewIsReportedForDelaySecondsToo() {
			RetryPlan plan = plan(planner(SERVER_NOW.plusMillis(41_204)).options(jitter(JitterMode.NONE)).build(),
					headers("Retry-After", "30", "Date", DATE));
			assertThat(plan.skew()).contains(Duration.ofMillis(-41_204));
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(30));
		}

	}

	@Nested
	class Rule2MissingDate {

		@Test
		void anHttpDateWithoutDateIsRefusedWithTheFix() {
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", THIRTY_SECONDS_LATER)))
				.isInstanceOfSatisfying(RetryAfterException.class,
						ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.MISSING_DATE_HEADER))
				.hasMessageContaining("(\"" + THIRTY_SECONDS_LATER + "\")")
				.hasMessageContaining("no Date header")
				.hasMessageContaining("forty seconds fast computes a wait of zero")
				.hasMessageContaining("TRUST_CLIENT_CLOCK");
		}

		@Test
		void trustingTheClientClockIsAnExplicitChoice() {
			RetryAfterPlanner trusting = planner(SERVER_NOW.plusSeconds(10))
				.options(jitter(JitterMode.NONE).toBuilder().onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK).build())
				.build();
			RetryPlan plan = plan(trusting, headers("Retry-After", THIRTY_SECONDS_LATER));
			assertThat(plan.source()).isEqualTo(PlanSource.HTTP_DATE_CLIENT_CLOCK);
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(20));
			assertThat(plan.skew()).isEmpty();
		}

		@Test
		void trustingTheClientClockRoundsTheWaitUp() {
			RetryAfterPlanner trusting = planner(SERVER_NOW.plusNanos(400_000))
				.options(jitter(JitterMode.NONE).toBuilder().onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK).build())
				.build();
			assertThat(plan(trusting, headers("Retry-After", THIRTY_SECONDS_LATER)).floor())
				.isEqualTo(Duration.ofSeconds(30));
		}

		@Test
		void trustingTheClientClockClampsADateItThinksHasPassed() {
			RetryAfterPlanner trusting = planner(SERVER_NOW.plusSeconds(40))
				.options(jitter(JitterMode.NONE).toBuilder().onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK).build())
				.build();
			RetryPlan plan = plan(trusting, headers("Retry-After", THIRTY_SECONDS_LATER));
			assertThat(plan.floor()).isZero();
			assertThat(plan.instructed()).isZero();
			assertThat(plan.clampedToZero()).isTrue();
		}

		@Test
		void delaySecondsNeedNoDate() {
			RetryPlan plan = exact("Retry-After", "120");
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(120));
			assertThat(plan.source()).isEqualTo(PlanSource.DELAY_SECONDS);
			assertThat(plan.skew()).isEmpty();
		}

	}

	@Nested
	class Rule3Age {

		@Test
		void theAgeFieldIsTakenOffInBothForms() {
			RetryPlan delay = exact("Retry-After", "30", "Age", "20");
			assertThat(delay.instructed()).isEqualTo(Duration.ofSeconds(30));
			assertThat(delay.age()).isEqualTo(Duration.ofSeconds(20));
			assertThat(delay.floor()).isEqualTo(Duration.ofSeconds(10));
			assertThat(delay.ageIgnored()).isFalse();
			RetryPlan date = exact("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE, "Age", "20");
			assertThat(date.floor()).isEqualTo(Duration.ofSeconds(10));
			assertThat(date.age()).isEqualTo(Duration.ofSeconds(20));
		}

		@Test
		void theRoundTripIsAddedWhenBothInstantsAreGivenAndRoundedSoTheFloorIsNot() {
			PlanRequest request = PlanRequest.forAttempt(1).withRoundTrip(1_000_000_000L, 1_250_700_000L);
			RetryPlan plan = EXACT.plan(headers("Retry-After", "30", "Age", "20"), request).orElseThrow();
			assertThat(plan.age()).isEqualTo(Duration.ofMillis(20_250));
			assertThat(plan.floor()).isEqualTo(Duration.ofMillis(9_750));
			RetryPlan date = EXACT.plan(headers("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE), request)
				.orElseThrow();
			assertThat(date.age()).isEqualTo(Duration.ofMillis(250));
			assertThat(date.floor()).isEqualTo(Duration.ofMillis(29_750));
		}

		@Test
		void halfAMeasuredRoundTripIsRefused() {
			for (PlanRequest half : List.of(PlanRequest.forAttempt(1).withRequestSentAt(5),
					PlanRequest.forAttempt(1).withResponseReceivedAt(5))) {
				assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", "30"), half))
					.isInstanceOfSatisfying(RetryAfterException.class,
							ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.HALF_MEASURED_ROUND_TRIP))
					.hasMessageContaining("withRoundTrip");
			}
		}

		@Test
		void aRoundTripThatEndsBeforeItStartsIsACallerBug() {
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", "30"),
					PlanRequest.forAttempt(1).withRoundTrip(10, 5)))
				.isInstanceOf(IllegalArgumentException.class);
		}

		@ParameterizedTest
		@ValueSource(strings = { "-5", "1.5", "old", "", "٣", "20, 30" })
		void anInvalidAgeIsIgnoredAndReported(String age) {
			RetryPlan plan = exact("Retry-After", "30", "Age", age);
			assertThat(plan.age()).isZero();
			assertThat(plan.ageIgnored()).isTrue();
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(30));
		}

		@Test
		void twoAgeFieldsAreIgnoredAndReported() {
			RetryPlan plan = exact("Retry-After", "30", "Age", "5", "Age", "6");
			assertThat(plan.ageIgnored()).isTrue();
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(30));
		}

		@Test
		void anAgeLongerThanTheInstructionClampsTheFloorToZero() {
			RetryPlan plan = exact("Retry-After", "30", "Age", "40");
			assertThat(plan.floor()).isZero();
			assertThat(plan.clampedToZero()).isTrue();
			assertThat(plan.instructed()).isEqualTo(Duration.ofSeconds(30));
			RetryPlan date = exact("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE, "Age", "9".repeat(40));
			assertThat(date.floor()).isZero();
			assertThat(date.clampedToZero()).isTrue();
			assertThat(exact("Retry-After", "30", "Age", "30").clampedToZero()).isFalse();
		}

	}

	@Nested
	class Rule4Jitter {

		private RetryAfterPlanner withDraw(double draw) {
			return planner(SERVER_NOW).options(jitter(JitterMode.RANDOM)).random(() -> draw).build();
		}

		@Test
		void spreadIsAQuarterOfTheFloorWithinItsBounds() {
			assertThat(exact("Retry-After", "30").spread()).isEqualTo(Duration.ofMillis(7_500));
			assertThat(exact("Retry-After", "0").spread()).isEqualTo(Duration.ofMillis(250));
			assertThat(exact("Retry-After", "1").spread()).isEqualTo(Duration.ofMillis(250));
			assertThat(exact("Retry-After", "1000").spread()).isEqualTo(Duration.ofSeconds(30));
		}

		@Test
		void spreadRatioAndBoundsAreOptions() {
			RetryAfterPlanner custom = planner(SERVER_NOW)
				.options(PlannerOptions.builder()
					.jitter(JitterMode.NONE)
					.spreadRatio(0.5)
					.minSpread(Duration.ofSeconds(1))
					.maxSpread(Duration.ofSeconds(2))
					.build())
				.build();
			assertThat(plan(custom, headers("Retry-After", "1")).spread()).isEqualTo(Duration.ofSeconds(1));
			assertThat(plan(custom, headers("Retry-After", "3")).spread()).isEqualTo(Duration.ofMillis(1_500));
			assertThat(plan(custom, headers("Retry-After", "30")).spread()).isEqualTo(Duration.ofSeconds(2));
		}

		@Test
		void noneWaitsExactlyTheFloor() {
			RetryPlan plan = exact("Retry-After", "30");
			assertThat(plan.jitter()).isZero();
			assertThat(plan.waitTime()).isEqualTo(plan.floor());
		}

		@Test
		void randomAddsTheDrawTimesTheSpreadAboveTheFloor() {
			assertThat(plan(withDraw(0.5), headers("Retry-After", "30")).jitter()).isEqualTo(Duration.ofMillis(3_750));
			assertThat(plan(withDraw(0.0), headers("Retry-After", "30")).jitter()).isZero();
			assertThat(plan(withDraw(Math.nextDown(1.0)), headers("Retry-After", "30")).jitter())
				.isEqualTo(Duration.ofMillis(7_499));
		}

		@Test
		void waitIsNeverBelowTheFloorAcrossTheRangeOfDraws() {
			for (String retryAfter : List.of("0", "1", "30", "3600", "86400")) {
				for (int i = 0; i <= 1000; i++) {
					double draw = (i == 1000) ? Math.nextDown(1.0) : i / 1000.0;
					RetryPlan plan = plan(withDraw(draw), headers("Retry-After", retryAfter));
					assertThat(plan.waitTime()).isGreaterThanOrEqualTo(plan.floor());
					assertThat(plan.jitter()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(plan.spread());
					assertThat(plan.waitTime()).isEqualTo(plan.floor().plus(plan.jitter()));
				}
			}
		}

		@ParameterizedTest
		@ValueSource(doubles = { Double.NaN, -0.1, -0.0001, 1.0, 1.5, Double.POSITIVE_INFINITY,
				Double.NEGATIVE_INFINITY })
		void anInvalidDrawIsRefused(double draw) {
			assertThatThrownBy(() -> withDraw(draw).plan(headers("Retry-After", "30")))
				.isInstanceOfSatisfying(RetryAfterException.class,
						ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.INVALID_RANDOM))
				.hasMessageContaining("returned " + draw)
				.hasMessageContaining("[0, 1)");
		}

		@Test
		void noneNeverConsultsTheRandomSource() {
			RetryAfterPlanner planner = planner(SERVER_NOW).options(jitter(JitterMode.NONE))
				.random(() -> Double.NaN)
				.build();
			assertThat(plan(planner, headers("Retry-After", "30")).jitter()).isZero();
		}

		@Test
		void keyedHoldsAStablePositionWithinARoundAndMovesBetweenRounds() {
			RetryAfterPlanner keyed = planner(SERVER_NOW).options(jitter(JitterMode.KEYED))
				.random(() -> Double.NaN)
				.build();
			HeaderSource headers = headers("Retry-After", "30");
			PlanRequest first = PlanRequest.forAttempt(1).withJitterKey("instance-7");
			Duration jitter = keyed.plan(headers, first).orElseThrow().jitter();
			for (int i = 0; i < 10; i++) {
				assertThat(keyed.plan(headers, first).orElseThrow().jitter()).isEqualTo(jitter);
			}
			Set<Duration> acrossAttempts = new HashSet<>();
			for (int attempt = 1; attempt <= 10; attempt++) {
				acrossAttempts.add(keyed.plan(headers, PlanRequest.forAttempt(attempt).withJitterKey("instance-7"))
					.orElseThrow()
					.jitter());
			}
			assertThat(acrossAttempts).hasSizeGreaterThan(8);
		}

		@Test
		void keyedWithoutAKeyFallsBackToARandomDraw() {
			RetryAfterPlanner keyed = planner(SERVER_NOW).options(jitter(JitterMode.KEYED)).random(() -> 0.25).build();
			assertThat(plan(keyed, headers("Retry-After", "30")).jitter()).isEqualTo(Duration.ofMillis(1_875));
			RetryAfterPlanner broken = planner(SERVER_NOW).options(jitter(JitterMode.KEYED))
				.random(() -> Double.NaN)
				.build();
			assertThat(refusal(broken, headers("Retry-After", "30"), PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.INVALID_RANDOM);
		}

		@Test
		void twoKeysAdjacentOnAttemptOneAreNotAdjacentOnAttemptTwo() {
			int clients = 5_000;
			double[] first = new double[clients];
			double[] second = new double[clients];
			Integer[] order = new Integer[clients];
			for (int i = 0; i < clients; i++) {
				first[i] = io.github.retryafter.internal.KeyedPosition.of("client-" + i, 1);
				second[i] = io.github.retryafter.internal.KeyedPosition.of("client-" + i, 2);
				order[i] = i;
			}
			java.util.Arrays.sort(order, (a, b) -> Double.compare(first[a], first[b]));
			int stillClose = 0;
			for (int i = 1; i < clients; i++) {
				if (Math.abs(second[order[i]] - second[order[i - 1]]) < 0.01) {
					stillClose++;
				}
			}
			// Independent positions are within 1% of the window about 2% of the time; neighbours that stayed
			// neighbours would be within it nearly always.
			assertThat(stillClose).isLessThan(clients / 25);
		}

	}

	@Nested
	class Rule4Herd {

		private static final int CLIENTS = 5_000;

		private Set<Long> deadlinesMillis(RetryAfterPlanner planner, boolean keyed) {
			Set<Long> millis = new HashSet<>();
			for (int i = 0; i < CLIENTS; i++) {
				PlanRequest request = PlanRequest.forAttempt(1).withJitterKey(keyed ? "client-" + i : null);
				RetryPlan plan = planner.plan(headers("Retry-After", "30"), request).orElseThrow();
				assertThat(plan.waitTime()).isGreaterThanOrEqualTo(Duration.ofSeconds(30))
					.isLessThan(Duration.ofMillis(37_500));
				millis.add(plan.deadlineNanos() / 1_000_000);
			}
			return millis;
		}

		@Test
		void honouringRetryAfterExactlyLandsEveryoneInOneMillisecond() {
			assertThat(deadlinesMillis(EXACT, false)).containsExactly(30_000L);
		}

		@Test
		void randomJitterSpreadsTheHerdOverTheWindow() {
			SplittableRandom random = new SplittableRandom(42);
			RetryAfterPlanner planner = planner(SERVER_NOW).options(jitter(JitterMode.RANDOM))
				.random(random::nextDouble)
				.build();
			assertSpread(deadlinesMillis(planner, false));
		}

		@Test
		void keyedJitterSpreadsTheHerdOverTheWindow() {
			RetryAfterPlanner planner = planner(SERVER_NOW).options(jitter(JitterMode.KEYED))
				.random(() -> Double.NaN)
				.build();
			assertSpread(deadlinesMillis(planner, true));
		}

		private void assertSpread(Set<Long> millis) {
			// 5,000 uniform draws into 7,500 milliseconds fill about 3,650 distinct ones.
			assertThat(millis).hasSizeGreaterThan(3_300);
			int[] tenths = new int[10];
			millis.forEach(ms -> tenths[(int) ((ms - 30_000) / 750)]++);
			for (int count : tenths) {
				assertThat(count).isBetween(250, 480);
			}
		}

	}

	@Nested
	class Rule5MonotonicDeadline {

		@Test
		void theDeadlineIsResponseReceivedPlusTheWaitOnTheTicker() {
			PlannerFixtures.FakeTicker ticker = new PlannerFixtures.FakeTicker(5_000_000_000L);
			RetryAfterPlanner planner = planner(SERVER_NOW).options(jitter(JitterMode.NONE)).ticker(ticker).build();
			RetryPlan now = plan(planner, headers("Retry-After", "30"));
			assertThat(now.deadlineNanos()).isEqualTo(35_000_000_000L);
			RetryPlan earlier = planner
				.plan(headers("Retry-After", "30"), PlanRequest.forAttempt(1).withRoundTrip(4_000_000_000L,
						4_900_000_000L))
				.orElseThrow();
			assertThat(earlier.age()).isEqualTo(Duration.ofMillis(900));
			assertThat(earlier.deadlineNanos()).isEqualTo(4_900_000_000L + 29_100_000_000L);
			assertThat(earlier.remainingAt(5_000_000_000L)).isEqualTo(Duration.ofMillis(29_000));
			assertThat(earlier.remainingAt(40_000_000_000L)).isZero();
		}

		@Test
		void theWallClockEstimateIsForLogsAndStartsAtReceipt() {
			PlannerFixtures.FakeTicker ticker = new PlannerFixtures.FakeTicker(1_100_000_000L);
			RetryAfterPlanner planner = planner(SERVER_NOW.plusSeconds(3)).options(jitter(JitterMode.NONE))
				.ticker(ticker)
				.build();
			RetryPlan plan = planner
				.plan(headers("Retry-After", "30", "Date", DATE),
						PlanRequest.forAttempt(1).withRoundTrip(1_000_000_000L, 1_000_000_000L))
				.orElseThrow();
			// The planner runs 100 ms after receipt, so the client's wall clock at receipt was 2.9 s ahead.
			assertThat(plan.skew()).contains(Duration.ofMillis(-2_900));
			assertThat(plan.estimatedWallAt()).isEqualTo(SERVER_NOW.plusMillis(2_900 + 30_000));
		}

		@Test
		void aSaturatedDelayGivesASaturatedDeadlineNotAnOverflow() {
			RetryPlan plan = exact("Retry-After", "9".repeat(5000));
			assertThat(plan.deadlineNanos()).isEqualTo(Long.MAX_VALUE);
			assertThat(plan.waitTime()).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
		}

	}

	@Nested
	class Rule6MaxWait {

		private RetryAfterPlanner withMaxWait(Duration maxWait, double draw) {
			return planner(SERVER_NOW)
				.options(PlannerOptions.builder().jitter(JitterMode.RANDOM).maxWait(maxWait).build())
				.random(() -> draw)
				.build();
		}

		@Test
		void aFloorAboveMaxWaitIsRefusedWithTheNumbers() {
			assertThatThrownBy(() -> withMaxWait(Duration.ofMinutes(5), 0).plan(headers("Retry-After", "7200")))
				.isInstanceOfSatisfying(RetryAfterException.class,
						ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG))
				.hasMessageContaining("7200000 ms")
				.hasMessageContaining("maxWait is 300000 ms")
				.hasMessageContaining("refused rather than shortened");
		}

		@Test
		void theCheckIsOnTheFloorAfterAge() {
			RetryPlan plan = plan(withMaxWait(Duration.ofMinutes(5), 0.99), headers("Retry-After", "400", "Age", "100"));
			assertThat(plan.floor()).isEqualTo(Duration.ofMinutes(5));
			assertThat(plan.waitTime()).isEqualTo(Duration.ofMinutes(5));
			assertThat(plan.jitter()).isZero();
		}

		@Test
		void jitterIsTrimmedSoTheWaitNeverExceedsMaxWait() {
			RetryPlan plan = plan(withMaxWait(Duration.ofSeconds(32), 0.9), headers("Retry-After", "30"));
			assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(30));
			assertThat(plan.jitter()).isEqualTo(Duration.ofSeconds(2));
			assertThat(plan.waitTime()).isEqualTo(Duration.ofSeconds(32));
			assertThat(plan(withMaxWait(Duration.ofSeconds(32), 0.1), headers("Retry-After", "30")).jitter())
				.isEqualTo(Duration.ofMillis(750));
		}

		@Test
		void withoutMaxWaitTheLongestDelayIsAPlanThatSaturatesNotAnOverflow() {
			RetryAfterPlanner noMaxWait = planner(SERVER_NOW).ticker(() -> Long.MAX_VALUE - 5).build();
			RetryPlan plan = plan(noMaxWait, headers("Retry-After", Long.toString(Long.MAX_VALUE)));
			assertThat(plan.floor()).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
			assertThat(plan.waitTime()).isEqualTo(plan.floor());
			assertThat(plan.jitter()).isZero();
			assertThat(plan.deadlineNanos()).isEqualTo(Long.MAX_VALUE);
			assertThat(plan.estimatedWallAt()).isEqualTo(SERVER_NOW.plusMillis(Long.MAX_VALUE));
		}

		@Test
		void aFloorAboveMaxWaitIsRefusedWhateverTheMaxWait() {
			Duration longest = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
			RetryPlan plan = plan(withMaxWait(longest, 0.5), headers("Retry-After", "9".repeat(40)));
			assertThat(plan.waitTime()).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
			assertThat(refusal(withMaxWait(Duration.ofSeconds(10), 0), headers("Retry-After", "9".repeat(40)),
					PlanRequest.forAttempt(1))).isEqualTo(RetryAfterError.TOO_LONG);
		}

		@Test
		void fiveThousandNinesAreTooLongNotAnOverflow() {
			assertThat(refusal(withMaxWait(Duration.ofSeconds(10), 0), headers("Retry-After", "9".repeat(5000)),
					PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.TOO_LONG);
		}

	}

	@Nested
	class Rule7StrictParsing {

		@Test
		void bareDigitsAreSecondsNotAYear() {
			assertThat(exact("Retry-After", "2000").floor()).isEqualTo(Duration.ofSeconds(2000));
		}

		@Test
		void leadingZerosAndWhitespaceAreFine() {
			assertThat(exact("Retry-After", " 0003\t").floor()).isEqualTo(Duration.ofSeconds(3));
			assertThat(exact("Retry-After", "0").waitTime()).isZero();
		}

		@Test
		void leapSecondIsOneSecondAfterTheDateBeforeIt() {
			assertThat(exact("Retry-After", "Sat, 31 Dec 2016 23:59:60 GMT", "Date", "Sat, 31 Dec 2016 23:59:59 GMT")
				.floor()).isEqualTo(Duration.ofSeconds(1));
		}

		@Test
		void theDateHeaderMayBeInAnObsoleteFormToo() {
			assertThat(exact("Retry-After", THIRTY_SECONDS_LATER, "Date", "Tue Sep  8 12:00:00 2026").floor())
				.isEqualTo(Duration.ofSeconds(30));
			assertThat(exact("Retry-After", THIRTY_SECONDS_LATER, "Date", "Tuesday, 08-Sep-26 12:00:00 GMT").floor())
				.isEqualTo(Duration.ofSeconds(30));
		}

	}

	@Nested
	class Rule8Refusals {

		@Test
		void aDateWithoutItsDayNameOrInQuotesIsAMalformedDate() {
			assertThat(refusal("Retry-After", "08 Sep 2026 12:00:30 GMT", "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE);
			assertThat(refusal("Retry-After", "Sep  8 12:00:30 2026", "Date", DATE)).isEqualTo(RetryAfterError.MALFORMED_DATE);
			assertThat(refusal("Retry-After", "\"" + THIRTY_SECONDS_LATER + "\"", "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE);
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", "Sep  8 12:00:30 2026", "Date", DATE)))
				.hasMessageContaining("its day name is missing");
		}

		/** Issue 28: a date in single quotes (Apache HttpClient 5 accepts it) was refused as a comma list. */
		@Test
		void aDateInSingleQuotesIsAMalformedDateNotAList() {
			assertThat(refusal("Retry-After", "'Tue, 08 Sep 2026 12:00:07 GMT'", "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE);
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", "'Tue, 08 Sep 2026 12:00:07 GMT'", "Date", DATE)))
				.hasMessageContaining("inside single quotes")
				.hasMessageNotContaining("comma-separated list");
		}

		@Test
		void aHundredKilobyteValueIsQuotedCutInEveryMessage() {
			String huge = "9".repeat(100_000);
			for (String[] headers : List.of(new String[] { "Retry-After", huge + "x" },
					new String[] { "Retry-After", "Tue, 08 Sep 2026 12:00:30 GMT" + huge },
					new String[] { "Retry-After", THIRTY_SECONDS_LATER, "Date", DATE + huge },
					new String[] { "Retry-After", huge, "Retry-After", huge })) {
				assertThatThrownBy(() -> EXACT.plan(headers(headers))).isInstanceOf(RetryAfterException.class)
					.hasMessageContaining(" chars)\"")
					.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(1000));
			}
			RetryAfterPlanner bounded = planner(SERVER_NOW)
				.options(PlannerOptions.builder().maxWait(Duration.ofSeconds(1)).build())
				.build();
			assertThatThrownBy(() -> bounded.plan(headers("Retry-After", huge)))
				.hasMessageContaining("\"" + "9".repeat(64) + "…(+99936 chars)\" asks for at least");
		}

		@Test
		void clientClocksAtTheEndsOfTimeOnlyChangeTheSkew() {
			for (Instant client : List.of(Instant.MIN, Instant.MAX, Instant.EPOCH)) {
				for (String retryAfter : List.of("30", THIRTY_SECONDS_LATER, "Tuesday, 08-Sep-26 12:00:30 GMT")) {
					RetryPlan plan = plan(planner(client).options(jitter(JitterMode.NONE)).build(),
							headers("Retry-After", retryAfter, "Date", DATE, "Age", "9".repeat(30)));
					assertThat(plan.floor()).isZero();
					assertThat(plan.clampedToZero()).isTrue();
					assertThat(plan.skew()).isPresent();
				}
				RetryAfterPlanner trusting = planner(client)
					.options(PlannerOptions.builder().jitter(JitterMode.NONE)
						.onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK).build())
					.ticker(() -> Long.MIN_VALUE)
					.build();
				RetryPlan plan = trusting
					.plan(headers("Retry-After", THIRTY_SECONDS_LATER),
							PlanRequest.forAttempt(1).withRoundTrip(Long.MAX_VALUE, Long.MIN_VALUE + 5))
					.orElseThrow();
				assertThat(plan.floor()).isGreaterThanOrEqualTo(Duration.ZERO);
				assertThat(plan.age()).isEqualTo(Duration.ZERO);
			}
		}

		@Test
		void empty() {
			assertThat(refusal("Retry-After", "")).isEqualTo(RetryAfterError.EMPTY);
			assertThat(refusal("Retry-After", " \t")).isEqualTo(RetryAfterError.EMPTY);
		}

		@Test
		void multipleValues() {
			assertThat(refusal("Retry-After", "120", "Retry-After", "120")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
			assertThat(refusal("Retry-After", "120, 120")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
			assertThat(refusal("Retry-After", "-1, x")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
		}

		@Test
		void invalidDelay() {
			for (String value : List.of("-1", "+1", "1.5", "1e3", "٣", "later")) {
				assertThat(refusal("Retry-After", value, "Date", DATE)).as(value).isEqualTo(RetryAfterError.INVALID_DELAY);
			}
		}

		@Test
		void malformedDate() {
			assertThat(refusal("Retry-After", "tue, 08 sep 2026 12:00:30 gmt", "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE);
			assertThat(refusal("Retry-After", "Di, 08 Sep 2026 12:00:30 GMT", "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE);
		}

		@Test
		void nonGmtZone() {
			for (String zone : List.of("UTC", "+0000", "EST", "Z")) {
				assertThat(refusal("Retry-After", "Tue, 08 Sep 2026 12:00:30 " + zone, "Date", DATE)).as(zone)
					.isEqualTo(RetryAfterError.NON_GMT_ZONE);
			}
		}

		@Test
		void nonexistentDate() {
			for (String value : List.of("Tue, 31 Feb 2026 12:00:00 GMT", "Sun, 29 Feb 2026 12:00:00 GMT",
					"Tue, 08 Sep 2026 24:00:00 GMT", "Tue, 08 Sep 2026 12:60:00 GMT", "Tue, 08 Sep 2026 12:00:61 GMT")) {
				assertThat(refusal("Retry-After", value, "Date", DATE)).as(value)
					.isEqualTo(RetryAfterError.NONEXISTENT_DATE);
			}
		}

		@Test
		void dayNameMismatch() {
			assertThat(refusal("Retry-After", "Wed, 08 Sep 2026 12:00:30 GMT", "Date", DATE))
				.isEqualTo(RetryAfterError.DAY_NAME_MISMATCH);
		}

		@Test
		void missingDateHeader() {
			assertThat(refusal("Retry-After", THIRTY_SECONDS_LATER)).isEqualTo(RetryAfterError.MISSING_DATE_HEADER);
		}

		@Test
		void malformedDateHeader() {
			assertThat(refusal("Retry-After", THIRTY_SECONDS_LATER, "Date", "Tue, 08 Sep 2026 12:00:00 UTC"))
				.isEqualTo(RetryAfterError.MALFORMED_DATE_HEADER);
			assertThat(refusal("Retry-After", THIRTY_SECONDS_LATER, "Date", "")).isEqualTo(
					RetryAfterError.MALFORMED_DATE_HEADER);
			assertThat(refusal("Retry-After", THIRTY_SECONDS_LATER, "Date", DATE, "Date", DATE))
				.isEqualTo(RetryAfterError.MALFORMED_DATE_HEADER);
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", THIRTY_SECONDS_LATER, "Date", "yesterday")))
				.hasMessageContaining("\"yesterday\"")
				.hasMessageContaining("Date header fails the same strict parse")
				.hasMessageContaining("Ask the origin");
		}

		@Test
		void malformedDateHeaderIsRefusedEvenWhenTrustingTheClientClock() {
			RetryAfterPlanner trusting = planner(SERVER_NOW)
				.options(jitter(JitterMode.NONE).toBuilder().onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK).build())
				.build();
			assertThat(refusal(trusting, headers("Retry-After", THIRTY_SECONDS_LATER, "Date", "x y"),
					PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.MALFORMED_DATE_HEADER);
		}

		@Test
		void aBadOrMissingDateOnlyLeavesSkewEmptyForDelaySeconds() {
			for (HeaderSource headers : List.of(headers("Retry-After", "30"), headers("Retry-After", "30", "Date", ""),
					headers("Retry-After", "30", "Date", "junk"), headers("Retry-After", "30", "Date", DATE, "Date", DATE))) {
				RetryPlan plan = plan(EXACT, headers);
				assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(30));
				assertThat(plan.skew()).isEmpty();
			}
		}

		@Test
		void staleDate() {
			assertThatThrownBy(() -> EXACT.plan(headers("Retry-After", "Tue, 08 Sep 2026 11:59:58 GMT", "Date", DATE)))
				.isInstanceOfSatisfying(RetryAfterException.class,
						ex -> assertThat(ex.code()).isEqualTo(RetryAfterError.STALE_DATE))
				.hasMessageContaining("is 2 s before the response's own Date (\"" + DATE + "\")")
				.hasMessageContaining("hot loop");
		}

		@Test
		void aDateUpToOneSecondBeforeDateIsAZeroWait() {
			RetryPlan plan = exact("Retry-After", "Tue, 08 Sep 2026 11:59:59 GMT", "Date", DATE);
			assertThat(plan.floor()).isZero();
			assertThat(plan.instructed()).isZero();
			assertThat(plan.clampedToZero()).isTrue();
			RetryPlan same = exact("Retry-After", DATE, "Date", DATE);
			assertThat(same.floor()).isZero();
			assertThat(same.clampedToZero()).isFalse();
		}

		@Test
		void tooLongAndHalfMeasuredRoundTripAndInvalidRandom() {
			RetryAfterPlanner bounded = planner(SERVER_NOW)
				.options(PlannerOptions.builder().maxWait(Duration.ofSeconds(1)).build())
				.random(() -> Double.NaN)
				.build();
			assertThat(refusal(bounded, headers("Retry-After", "2"), PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.TOO_LONG);
			assertThat(refusal(bounded, headers("Retry-After", "2"), PlanRequest.forAttempt(1).withRequestSentAt(1)))
				.isEqualTo(RetryAfterError.HALF_MEASURED_ROUND_TRIP);
			assertThat(refusal(bounded, headers("Retry-After", "1"), PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.INVALID_RANDOM);
		}

		@Test
		void theFirstApplicableErrorWins() {
			// Field count before delay syntax.
			assertThat(refusal("Retry-After", "-1", "Retry-After", "-1")).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
			// Emptiness before field count.
			assertThat(refusal("Retry-After", "", "Retry-After", "120")).isEqualTo(RetryAfterError.EMPTY);
			// Date shape before zone, zone before range, range before day name: see HttpDateTests. All of them before
			// the Date header.
			assertThat(refusal("Retry-After", "Tue, 08 Sep 2026 12:00:30 UTC")).isEqualTo(RetryAfterError.NON_GMT_ZONE);
			assertThat(refusal("Retry-After", "Mon, 31 Feb 2026 12:00:30 GMT", "Date", "junk"))
				.isEqualTo(RetryAfterError.NONEXISTENT_DATE);
			assertThat(refusal("Retry-After", "Mon, 08 Sep 2026 12:00:30 GMT"))
				.isEqualTo(RetryAfterError.DAY_NAME_MISMATCH);
			// The Date header before staleness.
			assertThat(refusal("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT", "Date", "junk"))
				.isEqualTo(RetryAfterError.MALFORMED_DATE_HEADER);
			// Staleness and half-measured round trip before TOO_LONG; TOO_LONG before a bad random source.
			RetryAfterPlanner bounded = planner(SERVER_NOW)
				.options(PlannerOptions.builder().maxWait(Duration.ofSeconds(1)).build())
				.random(() -> Double.NaN)
				.build();
			assertThat(refusal(bounded, headers("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT", "Date", DATE),
					PlanRequest.forAttempt(1).withRequestSentAt(1)))
				.isEqualTo(RetryAfterError.STALE_DATE);
			assertThat(refusal(bounded, headers("Retry-After", "9999"), PlanRequest.forAttempt(1).withRequestSentAt(1)))
				.isEqualTo(RetryAfterError.HALF_MEASURED_ROUND_TRIP);
			assertThat(refusal(bounded, headers("Retry-After", "9999"), PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.TOO_LONG);
		}

	}

	/** Seed 001's vector list, with the rules where they differ (a past date is STALE_DATE, not zero). */
	@Nested
	class ReferenceVectors {

		@Test
		void theThreeFormsOfSevenSecondsLater() {
			for (String value : List.of("Tue, 08 Sep 2026 12:00:07 GMT", "Tuesday, 08-Sep-26 12:00:07 GMT",
					"Tue Sep  8 12:00:07 2026")) {
				assertThat(exact("Retry-After", value, "Date", DATE).floor()).as(value).isEqualTo(Duration.ofSeconds(7));
			}
		}

		@Test
		void rfc850In1994IsThePastAndSoStale() {
			assertThat(refusal("Retry-After", "Sunday, 06-Nov-94 08:49:37 GMT", "Date", DATE))
				.isEqualTo(RetryAfterError.STALE_DATE);
		}

		@Test
		void rfc850Year70IsTwentySeventy() {
			long expected = Instant.parse("2070-09-08T12:00:00Z").toEpochMilli() - SERVER_NOW.toEpochMilli();
			assertThat(exact("Retry-After", "Monday, 08-Sep-70 12:00:00 GMT", "Date", DATE).floor())
				.isEqualTo(Duration.ofMillis(expected));
		}

		@Test
		void leapSecond() {
			assertThat(exact("Retry-After", "Sat, 31 Dec 2016 23:59:60 GMT", "Date", "Sat, 31 Dec 2016 23:59:59 GMT")
				.floor()).isEqualTo(Duration.ofSeconds(1));
		}

		@Test
		void invalidValues() {
			assertThat(refusal("Retry-After", "-1", "Date", DATE)).isEqualTo(RetryAfterError.INVALID_DELAY);
			assertThat(refusal("Retry-After", "1.5", "Date", DATE)).isEqualTo(RetryAfterError.INVALID_DELAY);
			assertThat(refusal("Retry-After", "later", "Date", DATE)).isEqualTo(RetryAfterError.INVALID_DELAY);
			assertThat(refusal("Retry-After", "", "Date", DATE)).isEqualTo(RetryAfterError.EMPTY);
			assertThat(refusal("Retry-After", "٣", "Date", DATE)).isEqualTo(RetryAfterError.INVALID_DELAY);
			assertThat(refusal("Retry-After", "Tue, 31 Feb 2026 12:00:00 GMT", "Date", DATE))
				.isEqualTo(RetryAfterError.NONEXISTENT_DATE);
		}

		@Test
		void paddedDelay() {
			assertThat(exact("Retry-After", " 0003\t", "Date", DATE).floor()).isEqualTo(Duration.ofSeconds(3));
		}

		@Test
		void fiveThousandNinesWithABoundedWait() {
			RetryAfterPlanner bounded = planner(SERVER_NOW)
				.options(PlannerOptions.builder().maxWait(Duration.ofSeconds(10)).build())
				.build();
			assertThat(refusal(bounded, headers("Retry-After", "9".repeat(5000), "Date", DATE), PlanRequest.forAttempt(1)))
				.isEqualTo(RetryAfterError.TOO_LONG);
		}

		@Test
		void identicalDelaysSynchroniseAndPositiveJitterSpreadsThem() {
			Set<Duration> exact = new HashSet<>();
			Set<Duration> jittered = new HashSet<>();
			for (double draw : new double[] { 0.1, 0.2, 0.3, 0.4 }) {
				exact.add(exact("Retry-After", "3").waitTime());
				RetryPlan plan = plan(planner(SERVER_NOW).random(() -> draw).build(), headers("Retry-After", "3"));
				assertThat(plan.waitTime()).isGreaterThan(Duration.ofSeconds(3));
				jittered.add(plan.waitTime());
			}
			assertThat(exact).containsExactly(Duration.ofSeconds(3));
			assertThat(jittered).hasSize(4);
		}

	}

	@Test
	void plannerIsBuiltFromOptions() {
		PlannerOptions options = PlannerOptions.builder().maxWait(Duration.ofMinutes(1)).build();
		RetryAfterPlanner planner = RetryAfterPlanner.builder().options(options).build();
		assertThat(planner.options()).isSameAs(options);
		assertThat(planner.options().maxWait()).isEqualTo(Optional.of(Duration.ofMinutes(1)));
		assertThat(planner.ticker()).isNotNull();
	}

}
