package io.github.retryafter.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.JitterMode;
import io.github.retryafter.OnMissingDate;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.internal.HttpDate;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 4: whatever a server sends and however far off the clocks and settings are, the engine answers with a
 * decision, never an exception, in every hint mode, and every decision keeps its promises. Each try generates one set of
 * response headers (huge and malformed delay-seconds, dates from year 1 to 9999 in all three forms, quoted dates and
 * dates without a day name, huge and invalid {@code Age}, missing or repeated {@code Date}), ticker readings near both
 * ends of {@code long}, a wall clock anywhere from {@link Instant#MIN} to {@link Instant#MAX}, and policy settings up to
 * {@code Duration}'s maximum, and runs it through the engine in all four hint modes.
 */
class EngineArithmeticPropertiesTests {

	private static final long YEAR_1 = -62_135_596_800L;

	private static final long YEAR_9999_END = 253_402_300_799L;

	private static final Duration LONGEST = Saturating.MAX_DURATION;

	private static final DateTimeFormatter RFC_850 = DateTimeFormatter
		.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private static final DateTimeFormatter ASCTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US)
		.withZone(ZoneOffset.UTC);

	private static final Set<Outcome> STOPS_AFTER_AN_ATTEMPT = EnumSet.of(Outcome.SUCCESS, Outcome.CANCELLED,
			Outcome.DEADLINE_EXCEEDED, Outcome.NOT_RETRYABLE, Outcome.OUTCOME_UNKNOWN, Outcome.ATTEMPTS_EXHAUSTED,
			Outcome.WAIT_TOO_LONG, Outcome.WAIT_EXCEEDS_DEADLINE, Outcome.TOTAL_WAIT_EXCEEDED, Outcome.BUDGET_EXHAUSTED);

	/** Header sets per try: each try builds its engines once and runs every header set through every mode. */
	private static final int BATCH = 10;

	@Property(tries = 100_000 / BATCH, shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.MIXIN)
	void everyHintModeDecidesWithoutThrowingAndKeepsItsPromises(@ForAll("batches") List<Response> responses,
			@ForAll("clocks") Clocks clocks, @ForAll("settings") Settings settings,
			@ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double draw) {
		for (HintMode mode : HintMode.values()) {
			RetryPolicy policy = settings.policy(mode);
			AtomicLong ticker = new AtomicLong(clocks.startNanos());
			RetryEngine engine = RetryEngine.builder()
				.policy(policy)
				.ticker(ticker::get)
				.wallClock(clocks::wall)
				.random(() -> draw)
				.build();
			RetryOperation operation = engine.start(settings.spec(), Cancellation.never());
			assertThat(operation.deadlineNanos() - clocks.startNanos()).isGreaterThanOrEqualTo(0);
			ticker.set(clocks.nowNanos());
			for (Response response : responses) {
				decideAndCheck(engine, operation, response, clocks, settings);
			}
		}
	}

	private static void decideAndCheck(RetryEngine engine, RetryOperation operation, Response response, Clocks clocks,
			Settings settings) {
		RetryPolicy policy = engine.policy();
		OperationSpec spec = operation.spec();
		long now = clocks.nowNanos();
		AttemptOutcome.Response outcome = new AttemptOutcome.Response(response.status(), response.headers(),
				clocks.sentNanos(), clocks.receivedNanos());
		OperationState state = new OperationState(spec, settings.attempts(), clocks.startNanos(),
				operation.deadlineNanos(), settings.totalWaitSoFar(policy));
		Classification classification = engine.classify(outcome);
		engine.observe(state, outcome, classification);
		ProviderGate gate = engine.gate(spec.provider());
		long latestStart = Saturating.subtract(policy.usableEndNanos(state.deadlineNanos()), 1);
		assertThat(gate.admit(false, now, latestStart, null)).isNotNull();
		assertThat(gate.cooldownRemaining()).isGreaterThanOrEqualTo(Duration.ZERO);

		RetryEngine.Evaluation evaluation = engine.evaluate(state, outcome, classification);
		Decision decision = evaluation.decision();
		if (decision instanceof Decision.Retry retry) {
			checkRetry(retry, policy, state, response, clocks, now);
		}
		else {
			Decision.Stop stop = (Decision.Stop) decision;
			assertThat(stop.outcome()).isIn(STOPS_AFTER_AN_ATTEMPT);
			assertThat(stop.reason()).isNotBlank().hasSizeLessThan(2_000);
			if (stop.outcome() == Outcome.WAIT_TOO_LONG) {
				assertThat(policy.hintMode()).isNotEqualTo(HintMode.CAPPED);
				assertThat(policy.planner().maxWait()).isPresent();
				assertThat(evaluation.hintError()).contains(RetryAfterError.TOO_LONG);
			}
		}
	}

	private static void checkRetry(Decision.Retry retry, RetryPolicy policy, OperationState state, Response response,
			Clocks clocks, long now) {
		assertThat(retry.delay()).isGreaterThanOrEqualTo(Duration.ZERO);
		assertThat(retry.notBeforeNanos()).as("never past the usable end of the deadline")
			.isLessThan(policy.usableEndNanos(state.deadlineNanos()));
		assertThat(retry.delay()).as("within the total wait left")
			.isLessThanOrEqualTo(Saturating.minus(policy.totalWait(), state.totalWait()));
		retry.refusedHint().ifPresent((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(2_000));
		if (retry.source() == DelaySource.BACKOFF) {
			assertThat(retry.plan()).isEmpty();
			assertThat(retry.draw()).isPresent();
			assertThat(retry.delay()).isLessThanOrEqualTo(retry.draw().get().delay());
			assertThat(retry.notBeforeNanos()).isEqualTo(Saturating.add(now, Saturating.toNanos(retry.delay())));
			return;
		}
		assertThat(response.retryAfter()).isPresent();
		RetryPlan plan = retry.plan().orElseThrow();
		checkPlan(plan, policy);
		HintMode mode = policy.hintMode();
		if (mode == HintMode.CAPPED) {
			Duration capped = (policy.hintCap().compareTo(plan.floor()) <= 0) ? policy.hintCap() : plan.floor();
			assertThat(retry.delay()).isEqualTo(capped);
		}
		else {
			assertThat(retry.delay()).as("never before the server's floor").isGreaterThanOrEqualTo(plan.floor());
		}
		long measuredFrom = policy.subtractRoundTrip() ? clocks.receivedNanos() : now;
		assertThat(retry.notBeforeNanos()).isEqualTo(Saturating.add(measuredFrom, Saturating.toNanos(retry.delay())));
	}

	private static void checkPlan(RetryPlan plan, RetryPolicy policy) {
		assertThat(plan.floor()).isGreaterThanOrEqualTo(Duration.ZERO);
		assertThat(plan.waitTime()).isGreaterThanOrEqualTo(plan.floor());
		assertThat(plan.waitTime()).isEqualTo(plan.floor().plus(plan.jitter()));
		assertThat(plan.jitter()).isGreaterThanOrEqualTo(Duration.ZERO);
		if (!plan.jitter().isZero()) {
			assertThat(plan.jitter()).isLessThan(plan.spread());
		}
		assertThat(plan.instructed()).isGreaterThanOrEqualTo(Duration.ZERO);
		assertThat(plan.age()).isGreaterThanOrEqualTo(Duration.ZERO);
		if (policy.hintMode() != HintMode.CAPPED) {
			policy.planner().maxWait().ifPresent((maxWait) -> assertThat(plan.waitTime()).isLessThanOrEqualTo(maxWait));
		}
	}

	// Responses

	@Provide
	Arbitrary<List<Response>> batches() {
		return responses().list().ofSize(BATCH);
	}

	private static Arbitrary<Response> responses() {
		Arbitrary<Integer> status = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.of(429, 503)),
				Tuple.of(2, Arbitraries.of(502, 504, 408)), Tuple.of(1, Arbitraries.of(500, 404, 200)));
		Arbitrary<List<String>> age = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(List.<String>of())),
				Tuple.of(2, delaySeconds().map(List::of)), Tuple.of(1, broken().map(List::of)),
				Tuple.of(1, Combinators.combine(delaySeconds(), delaySeconds()).as(List::of)));
		return Combinators.combine(status, Arbitraries.oneOf(agreeing(), independent()), age)
			.as((code, fields, ages) -> new Response(code, fields.get(0), fields.get(1), ages));
	}

	/** A {@code Retry-After} and a {@code Date} from one server clock: the date a few seconds ahead, in any form. */
	private static Arbitrary<List<Object>> agreeing() {
		return Combinators
			.combine(Arbitraries.longs().between(YEAR_1, YEAR_9999_END - 200), Arbitraries.longs().between(-5, 120),
					Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 2))
			.as((date, ahead, form, dateForm) -> List.of(Optional.of(format(date + ahead, form)),
					List.of(format(date, dateForm))));
	}

	/** Each field on its own: delay-seconds, dates of any year, broken values, missing or repeated fields. */
	private static Arbitrary<List<Object>> independent() {
		Arbitrary<Optional<String>> retryAfter = Arbitraries.oneOf(delaySeconds(), dates(), broken()).optional(0.95);
		Arbitrary<List<String>> date = Arbitraries.oneOf(dates().map(List::of), broken().map(List::of),
				Combinators.combine(dates(), dates()).as(List::of), Arbitraries.just(List.<String>of()));
		return Combinators.combine(retryAfter, date).as(List::of);
	}

	private static Arbitrary<String> delaySeconds() {
		return Arbitraries.oneOf(Arbitraries.longs().between(0, 100).map(String::valueOf),
				Arbitraries.longs().between(0, 100_000).map(String::valueOf),
				Arbitraries.longs().between(0, Long.MAX_VALUE).map(String::valueOf),
				Arbitraries.of("9223372036854775807", "9223372036854775808", "0", "00000000000000000000001"),
				Arbitraries.integers().between(19, 400).map("9"::repeat));
	}

	private static Arbitrary<String> dates() {
		return Combinators
			.combine(Arbitraries.longs().between(YEAR_1, YEAR_9999_END), Arbitraries.integers().between(0, 2))
			.as(EngineArithmeticPropertiesTests::format);
	}

	private static String format(long epochSecond, int form) {
		Instant instant = Instant.ofEpochSecond(epochSecond);
		return switch (form) {
			case 1 -> RFC_850.format(instant);
			case 2 -> ASCTIME.format(instant);
			default -> HttpDate.format(epochSecond);
		};
	}

	private static Arbitrary<String> broken() {
		Arbitrary<String> mutated = Combinators
			.combine(dates(), Arbitraries.integers().between(0, 30), Arbitraries.chars())
			.as((date, at, c) -> {
				StringBuilder text = new StringBuilder(date);
				text.setCharAt(Math.min(at, text.length() - 1), c);
				return text.toString();
			});
		Arbitrary<String> quoted = dates().map((date) -> "\"" + date + "\"");
		Arbitrary<String> withoutDayName = dates().map((date) -> date.substring(date.indexOf(' ') + 1));
		Arbitrary<String> huge = Arbitraries.of("x", "9", " ", ",").flatMap((c) ->
				Arbitraries.integers().between(65, 2_000).map(c::repeat));
		Arbitrary<String> words = Arbitraries.of("", " ", "-1", "+5", "1.5", "1e3", "soon", "٣", "Tue, 32 Aug 2026 12:00:30 GMT",
				"Tue, 04 Aug 2026 12:00:30 UTC", "Wed, 04 Aug 2026 12:00:30 GMT", "120, 120", "Sat, 31 Dec 2016 23:59:60 GMT");
		return Arbitraries.oneOf(mutated, quoted, withoutDayName, huge, words, Arbitraries.strings().ofMaxLength(40));
	}

	/** One response's status and header fields; a list with two values is two field lines. */
	record Response(int status, Optional<String> retryAfter, List<String> date, List<String> age) {

		@SuppressWarnings("unchecked")
		Response(int status, Object retryAfter, Object date, List<String> age) {
			this(status, (Optional<String>) retryAfter, (List<String>) date, age);
		}

		HeaderSource headers() {
			List<String> retryAfter = this.retryAfter.map(List::of).orElse(List.of());
			return (name) -> switch (name.toLowerCase(Locale.ROOT)) {
				case "retry-after" -> retryAfter;
				case "date" -> this.date;
				case "age" -> this.age;
				default -> List.of();
			};
		}

		@Override
		public String toString() {
			return "Response[" + this.status + ", Retry-After=" + this.retryAfter.map(EngineArithmeticPropertiesTests::cut)
					+ ", Date=" + this.date.stream().map(EngineArithmeticPropertiesTests::cut).toList() + ", Age="
					+ this.age.stream().map(EngineArithmeticPropertiesTests::cut).toList() + "]";
		}

	}

	private static String cut(String value) {
		return (value.length() > 80) ? value.substring(0, 80) + "…(" + value.length() + " chars)" : value;
	}

	// Clocks

	@Provide
	Arbitrary<Clocks> clocks() {
		Arbitrary<Long> start = Arbitraries.oneOf(Arbitraries.longs().between(Long.MIN_VALUE, Long.MIN_VALUE + 1_000_000_000_000L),
				Arbitraries.longs().between(Long.MAX_VALUE - 1_000_000_000_000L, Long.MAX_VALUE),
				Arbitraries.longs().between(-1_000_000_000_000L, 1_000_000_000_000L), Arbitraries.longs());
		Arbitrary<Long> elapsed = Arbitraries.frequencyOf(Tuple.of(16, Arbitraries.longs().between(0, 10_000_000_000L)),
				Tuple.of(1, Arbitraries.longs().between(0, Long.MAX_VALUE)), Tuple.of(1, Arbitraries.just(0L)));
		Arbitrary<Instant> wall = Arbitraries.oneOf(Arbitraries.of(Instant.MIN, Instant.MAX, Instant.EPOCH),
				Arbitraries.longs().between(YEAR_1, YEAR_9999_END).map(Instant::ofEpochSecond),
				Arbitraries.longs().between(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond())
					.map(Instant::ofEpochSecond));
		return Combinators.combine(start, elapsed, elapsed, elapsed, wall)
			.as((t0, untilSent, roundTrip, sinceReceipt, clock) -> {
				long sent = Saturating.add(t0, untilSent);
				long received = Saturating.add(sent, roundTrip);
				return new Clocks(t0, sent, received, Saturating.add(received, sinceReceipt), clock);
			});
	}

	/**
	 * Ticker readings in order (the operation's start, the request sent, the response received, now) and the client's
	 * wall clock.
	 */
	record Clocks(long startNanos, long sentNanos, long receivedNanos, long nowNanos, Instant wall) {

	}

	// Settings

	@Provide
	Arbitrary<Settings> settings() {
		Arbitrary<Duration> anyLength = Arbitraries.oneOf(Arbitraries.longs().between(0, 3_600_000).map(Duration::ofMillis),
				Arbitraries.longs().between(0, Long.MAX_VALUE).map(Duration::ofSeconds), Arbitraries.of(LONGEST,
						Duration.ofNanos(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE), Duration.ZERO));
		Arbitrary<Optional<Duration>> maxWait = anyLength.optional(0.7);
		Arbitrary<PlannerOptions> planner = Combinators
			.combine(maxWait, Arbitraries.of(JitterMode.class), Arbitraries.of(0.0, 0.25, 1.0, 1e300), anyLength, anyLength,
					Arbitraries.of(OnMissingDate.class))
			.as((max, jitter, ratio, spreadA, spreadB, onMissingDate) -> PlannerOptions.builder()
				.maxWait(max.orElse(null))
				.jitter(jitter)
				.spreadRatio(ratio)
				.minSpread((spreadA.compareTo(spreadB) <= 0) ? spreadA : spreadB)
				.maxSpread((spreadA.compareTo(spreadB) <= 0) ? spreadB : spreadA)
				.onMissingDate(onMissingDate)
				.build());
		Arbitrary<Duration> positive = anyLength.map((length) -> length.isZero() ? Duration.ofNanos(1) : length);
		Arbitrary<Duration> deadlines = Arbitraries.frequencyOf(
				Tuple.of(3, Arbitraries.longs().between(1, 3_600).map(Duration::ofSeconds)), Tuple.of(1, positive));
		Arbitrary<Limits> limits = Combinators
			.combine(deadlines, Arbitraries.doubles().between(0, 0.3), Arbitraries.doubles().between(0, 0.3), anyLength,
					anyLength, positive, positive)
			.as((deadline, minShare, reserveShare, totalWait, hintCap, base, max) -> new Limits(deadline,
					share(deadline, minShare), share(deadline, reserveShare), totalWait, hintCap,
					new Backoff(base, (max.compareTo(base) >= 0) ? max : base)));
		Arbitrary<OperationSpec> spec = Combinators
			.combine(Arbitraries.of("GET", "POST", "PUT"), Arbitraries.strings().alpha().ofLength(8).optional(0.3),
					Arbitraries.strings().alpha().ofLength(8).optional(0.3), positive.optional(0.1),
					Arbitraries.frequency(Tuple.of(9, true), Tuple.of(1, false)))
			.as((method, key, jitterKey, deadline, replayable) -> new OperationSpec("p", method, key, deadline, jitterKey,
					replayable));
		return Combinators
			.combine(planner, limits, spec, Arbitraries.integers().between(1, 6), Arbitraries.of(true, false),
					Arbitraries.of(true, false), Arbitraries.doubles().between(0, 1.5))
			.as(Settings::new);
	}

	private static Duration share(Duration deadline, double share) {
		return Duration.ofSeconds((long) (deadline.getSeconds() * share), (long) (deadline.getNano() * share));
	}

	/** The policy's durations, valid against each other (minimum attempt and reserve well inside the deadline). */
	record Limits(Duration deadline, Duration minAttemptTime, Duration deadlineReserve, Duration totalWait,
			Duration hintCap, Backoff backoff) {

	}

	/**
	 * A policy's settings but its hint mode, the operation, its attempt count, and how much of the total wait it has
	 * used (as a share, above 1 for a caller's state past the cap).
	 */
	record Settings(PlannerOptions planner, Limits limits, OperationSpec spec, int attempts, boolean subtractRoundTrip,
			boolean pacing, double totalWaitShare) {

		RetryPolicy policy(HintMode mode) {
			return RetryPolicy.builder()
				.maxAttempts(4)
				.deadline(this.limits.deadline())
				.minAttemptTime(this.limits.minAttemptTime())
				.deadlineReserve(this.limits.deadlineReserve())
				.totalWait(this.limits.totalWait())
				.hintMode(mode)
				.hintCap(this.limits.hintCap())
				.backoff(this.limits.backoff())
				.planner(this.planner)
				.subtractRoundTrip(this.subtractRoundTrip)
				.pacing(this.pacing ? PacingSettings.DEFAULTS : PacingSettings.OFF)
				.build();
		}

		Duration totalWaitSoFar(RetryPolicy policy) {
			Duration total = policy.totalWait();
			return Duration.ofSeconds((long) (total.getSeconds() * this.totalWaitShare),
					(long) Math.min(999_999_999, total.getNano() * this.totalWaitShare));
		}

	}

}
