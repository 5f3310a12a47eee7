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
import io.github.retryafter.generated.Draw;
import io.github.retryafter.generated.Tries;
import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.internal.Saturating;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 4: whatever a server sends and however far off the clocks and settings are, the engine answers with a
 * decision, never an exception, in every hint mode, and every decision keeps its promises. Each try generates one set of
 * response headers (huge and malformed delay-seconds, dates from year 1 to 9999 in all three forms, quoted dates and
 * dates without a day name, huge and invalid {@code Age}, missing or repeated {@code Date}), ticker readings near both
 * ends of {@code long}, a wall clock anywhere from {@link Instant#MIN} to {@link Instant#MAX}, and policy settings up to
 * {@code Duration}'s maximum, and runs it through the engine in all four hint modes. The inputs are drawn by
 * {@link Tries} from a fixed seed: a failure names the try that reproduces it.
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

	private static final long SEED = 0x5eed_0002L;

	@Test
	void everyHintModeDecidesWithoutThrowingAndKeepsItsPromises() {
		Tries.check(SEED, 100_000 / BATCH,
				(draw) -> new Try(draw.list(BATCH, EngineArithmeticPropertiesTests::response), clocks(draw),
						settings(draw), draw.unit()),
				(input) -> everyHintModeDecidesWithoutThrowingAndKeepsItsPromises(input.responses(), input.clocks(),
						input.settings(), input.draw()));
	}

	/** One try: the header sets, the clocks, the settings and the random draw every jitter uses. */
	record Try(List<Response> responses, Clocks clocks, Settings settings, double draw) {

	}

	private static void everyHintModeDecidesWithoutThrowingAndKeepsItsPromises(List<Response> responses,
			Clocks clocks, Settings settings, double draw) {
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
		Classification classification = engine.judge().classify(outcome);
		if (policy.pacing().enabled()) {
			engine.gateFeed().observe(engine.gate(spec.scope()), spec, state.attempts(), outcome, classification);
		}
		ProviderGate gate = engine.gate(spec.provider());
		long latestStart = Saturating.subtract(policy.usableEndNanos(state.deadlineNanos()), 1);
		assertThat(gate.admit(false, now, latestStart, null)).isNotNull();
		assertThat(gate.cooldownRemaining()).isGreaterThanOrEqualTo(Duration.ZERO);

		Evaluation evaluation = engine.judge()
			.judge(state, outcome, classification, engine.ticker().read(), engine.tokens().view(spec.scope()));
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

	private static Response response(Draw draw) {
		int status = draw.weighted(Draw.Weighted.weight(6, (d) -> d.of(429, 503)),
				Draw.Weighted.weight(2, (d) -> d.of(502, 504, 408)), Draw.Weighted.weight(1, (d) -> d.of(500, 404, 200)));
		Fields fields = draw.oneOf(EngineArithmeticPropertiesTests::agreeing,
				EngineArithmeticPropertiesTests::independent);
		List<String> age = draw.weighted(Draw.Weighted.weight(4, (d) -> List.<String>of()),
				Draw.Weighted.weight(2, (d) -> List.of(delaySeconds(d))), Draw.Weighted.weight(1, (d) -> List.of(broken(d))),
				Draw.Weighted.weight(1, (d) -> List.of(delaySeconds(d), delaySeconds(d))));
		return new Response(status, fields.retryAfter(), fields.date(), age);
	}

	/** A {@code Retry-After} and its {@code Date} field lines. */
	record Fields(Optional<String> retryAfter, List<String> date) {

	}

	/** A {@code Retry-After} and a {@code Date} from one server clock: the date a few seconds ahead, in any form. */
	private static Fields agreeing(Draw draw) {
		long date = draw.longs(YEAR_1, YEAR_9999_END - 200);
		long ahead = draw.longs(-5, 120);
		return new Fields(Optional.of(format(date + ahead, draw.ints(0, 2))), List.of(format(date, draw.ints(0, 2))));
	}

	/** Each field on its own: delay-seconds, dates of any year, broken values, missing or repeated fields. */
	private static Fields independent(Draw draw) {
		Optional<String> retryAfter = draw.optional(0.95,
				(d) -> d.oneOf(EngineArithmeticPropertiesTests::delaySeconds, EngineArithmeticPropertiesTests::dates,
						EngineArithmeticPropertiesTests::broken));
		List<String> date = draw.oneOf((d) -> List.of(dates(d)), (d) -> List.of(broken(d)),
				(d) -> List.of(dates(d), dates(d)), (d) -> List.<String>of());
		return new Fields(retryAfter, date);
	}

	private static String delaySeconds(Draw draw) {
		return draw.oneOf((d) -> String.valueOf(d.longs(0, 100)), (d) -> String.valueOf(d.longs(0, 100_000)),
				(d) -> String.valueOf(d.longs(0, Long.MAX_VALUE)),
				(d) -> d.of("9223372036854775807", "9223372036854775808", "0", "00000000000000000000001"),
				(d) -> "9".repeat(d.ints(19, 400)));
	}

	private static String dates(Draw draw) {
		return format(draw.longs(YEAR_1, YEAR_9999_END), draw.ints(0, 2));
	}

	private static String format(long epochSecond, int form) {
		Instant instant = Instant.ofEpochSecond(epochSecond);
		return switch (form) {
			case 1 -> RFC_850.format(instant);
			case 2 -> ASCTIME.format(instant);
			default -> HttpDate.format(epochSecond);
		};
	}

	private static String broken(Draw draw) {
		return draw.oneOf((mutated) -> {
			StringBuilder text = new StringBuilder(dates(mutated));
			text.setCharAt(Math.min(mutated.ints(0, 30), text.length() - 1), mutated.anyChar());
			return text.toString();
		}, (quoted) -> "\"" + dates(quoted) + "\"", (withoutDayName) -> {
			String date = dates(withoutDayName);
			return date.substring(date.indexOf(' ') + 1);
		}, (huge) -> huge.of("x", "9", " ", ",").repeat(huge.ints(65, 2_000)),
				(words) -> words.of("", " ", "-1", "+5", "1.5", "1e3", "soon", "٣", "Tue, 32 Aug 2026 12:00:30 GMT",
						"Tue, 04 Aug 2026 12:00:30 UTC", "Wed, 04 Aug 2026 12:00:30 GMT", "120, 120",
						"Sat, 31 Dec 2016 23:59:60 GMT"),
				(anything) -> anything.string(40));
	}

	/** One response's status and header fields; a list with two values is two field lines. */
	record Response(int status, Optional<String> retryAfter, List<String> date, List<String> age) {

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

	private static Clocks clocks(Draw draw) {
		long t0 = draw.oneOf((d) -> d.longs(Long.MIN_VALUE, Long.MIN_VALUE + 1_000_000_000_000L),
				(d) -> d.longs(Long.MAX_VALUE - 1_000_000_000_000L, Long.MAX_VALUE),
				(d) -> d.longs(-1_000_000_000_000L, 1_000_000_000_000L), Draw::anyLong);
		long sent = Saturating.add(t0, elapsed(draw));
		long received = Saturating.add(sent, elapsed(draw));
		long now = Saturating.add(received, elapsed(draw));
		Instant wall = draw.oneOf((d) -> d.of(Instant.MIN, Instant.MAX, Instant.EPOCH),
				(d) -> Instant.ofEpochSecond(d.longs(YEAR_1, YEAR_9999_END)),
				(d) -> Instant.ofEpochSecond(d.longs(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond())));
		return new Clocks(t0, sent, received, now, wall);
	}

	private static long elapsed(Draw draw) {
		return draw.weighted(Draw.Weighted.weight(16, (d) -> d.longs(0, 10_000_000_000L)),
				Draw.Weighted.weight(1, (d) -> d.longs(0, Long.MAX_VALUE)), Draw.Weighted.weight(1, (d) -> 0L));
	}

	/**
	 * Ticker readings in order (the operation's start, the request sent, the response received, now) and the client's
	 * wall clock.
	 */
	record Clocks(long startNanos, long sentNanos, long receivedNanos, long nowNanos, Instant wall) {

	}

	// Settings

	private static Settings settings(Draw draw) {
		Duration spreadA = anyLength(draw);
		Duration spreadB = anyLength(draw);
		PlannerOptions planner = PlannerOptions.builder()
			.maxWait(draw.optional(0.7, EngineArithmeticPropertiesTests::anyLength).orElse(null))
			.jitter(draw.of(JitterMode.class))
			.spreadRatio(draw.of(0.0, 0.25, 1.0, 1e300))
			.minSpread((spreadA.compareTo(spreadB) <= 0) ? spreadA : spreadB)
			.maxSpread((spreadA.compareTo(spreadB) <= 0) ? spreadB : spreadA)
			.onMissingDate(draw.of(OnMissingDate.class))
			.build();
		Duration deadline = draw.weighted(Draw.Weighted.weight(3, (d) -> Duration.ofSeconds(d.longs(1, 3_600))),
				Draw.Weighted.weight(1, EngineArithmeticPropertiesTests::positive));
		Duration base = positive(draw);
		Duration max = positive(draw);
		Limits limits = new Limits(deadline, share(deadline, draw.doubles(0, 0.3)), share(deadline, draw.doubles(0, 0.3)),
				anyLength(draw), anyLength(draw), new Backoff(base, (max.compareTo(base) >= 0) ? max : base));
		OperationSpec spec = new OperationSpec("p", draw.of("GET", "POST", "PUT"), draw.optional(0.3, (d) -> d.letters(8)),
				draw.optional(0.1, EngineArithmeticPropertiesTests::positive), draw.optional(0.3, (d) -> d.letters(8)),
				draw.weighted(Draw.Weighted.weight(9, (d) -> true), Draw.Weighted.weight(1, (d) -> false)));
		return new Settings(planner, limits, spec, draw.ints(1, 6), draw.of(true, false), draw.of(true, false),
				draw.doubles(0, 1.5));
	}

	private static Duration anyLength(Draw draw) {
		return draw.oneOf((d) -> Duration.ofMillis(d.longs(0, 3_600_000)),
				(d) -> Duration.ofSeconds(d.longs(0, Long.MAX_VALUE)),
				(d) -> d.of(LONGEST, Duration.ofNanos(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE), Duration.ZERO));
	}

	private static Duration positive(Draw draw) {
		Duration length = anyLength(draw);
		return length.isZero() ? Duration.ofNanos(1) : length;
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
