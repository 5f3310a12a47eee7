package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DeadlineRule} is the one place the deadline is reckoned, before an attempt, after one and in an attempt's
 * record: {@code deadline − now − reserve}, the minimum useful attempt, the latest start and the attempt's time. Every
 * step saturates, so a deadline or a reserve of centuries, and ticker readings at either end of {@code long}, answer
 * the way the same figures would in unbounded arithmetic.
 */
class DeadlineRuleTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Duration CENTURIES = Duration.ofDays(365L * 400);

	private final DeadlineRule rule = new DeadlineRule(Duration.ofSeconds(2), Duration.ofMillis(100),
			Duration.ofSeconds(10));

	@Test
	void whatIsLeftForAttemptsIsTheDeadlineLessNowLessTheReserve() {
		assertThat(this.rule.availableNanos(30 * SECOND, 5 * SECOND)).isEqualTo(23 * SECOND);
		assertThat(this.rule.availableNanos(30 * SECOND, 29 * SECOND)).isEqualTo(-SECOND);
	}

	@Test
	void anAttemptIsWorthMakingOnlyWithMoreThanTheMinimumUsefulAttemptLeft() {
		long min = Duration.ofMillis(100).toNanos();
		assertThat(this.rule.leavesAnAttempt(min + 1)).isTrue();
		assertThat(this.rule.leavesAnAttempt(min)).isFalse();
		assertThat(this.rule.leavesAnAttempt(Long.MIN_VALUE)).isFalse();
	}

	@Test
	void theLatestStartLeavesTheReserveAndAUsefulAttemptBeforeTheDeadline() {
		long deadline = 30 * SECOND;
		assertThat(this.rule.usableEndNanos(deadline)).isEqualTo(deadline - 2 * SECOND - SECOND / 10);
		assertThat(this.rule.latestStartNanos(deadline)).isEqualTo(deadline - 2 * SECOND - SECOND / 10 - 1);
	}

	@Test
	void aDeadlineAtTheEndOfTheTickerLeavesAlmostForeverEvenFromANegativeReading() {
		// Long.MAX_VALUE − (−5 s) wraps to a negative number in plain arithmetic: no time left
		assertThat(this.rule.availableNanos(Long.MAX_VALUE, -5 * SECOND)).isEqualTo(Long.MAX_VALUE - 2 * SECOND);
		assertThat(this.rule.leavesAnAttempt(this.rule.availableNanos(Long.MAX_VALUE, -5 * SECOND))).isTrue();
		assertThat(this.rule.latestStartNanos(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE - 2 * SECOND - SECOND / 10 - 1);
	}

	@Test
	void aDeadlineAtTheStartOfTheTickerLeavesNothingRatherThanWrappingToForever() {
		// Long.MIN_VALUE − 5 s wraps to a large positive number in plain arithmetic: time to spare
		assertThat(this.rule.availableNanos(Long.MIN_VALUE, 5 * SECOND)).isEqualTo(Long.MIN_VALUE);
		assertThat(this.rule.leavesAnAttempt(this.rule.availableNanos(Long.MIN_VALUE, 5 * SECOND))).isFalse();
		assertThat(this.rule.latestStartNanos(Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
		assertThat(DeadlineRule.remaining(Long.MIN_VALUE, 5 * SECOND)).isEqualTo(Duration.ZERO);
	}

	@Test
	void aReserveAndAMinimumOfCenturiesSaturateInsteadOfThrowing() {
		// Duration.toNanos() throws past about 292 years
		DeadlineRule centuries = new DeadlineRule(CENTURIES, CENTURIES, CENTURIES);
		assertThat(centuries.availableNanos(Long.MAX_VALUE, 0)).isEqualTo(0);
		assertThat(centuries.availableNanos(0, 0)).isEqualTo(-Long.MAX_VALUE);
		assertThat(centuries.leavesAnAttempt(Long.MAX_VALUE)).isFalse();
		assertThat(centuries.usableEndNanos(Long.MAX_VALUE)).isEqualTo(0);
		assertThat(centuries.attemptTime(5 * SECOND, false)).isEqualTo(Duration.ofSeconds(5));
		assertThat(centuries.attemptTimeoutNanos(5 * SECOND)).isEqualTo(5 * SECOND);
	}

	@Test
	void anAttemptWithTimeToSpareIsGivenThePolicysOwnTimeoutWithoutANewDuration() {
		Duration timeout = Duration.ofSeconds(10);
		DeadlineRule rule = new DeadlineRule(Duration.ZERO, Duration.ofMillis(100), timeout);
		assertThat(rule.attemptTime(20 * SECOND, false)).isSameAs(timeout);
		assertThat(rule.attemptTime(10 * SECOND, false)).isSameAs(timeout);
		assertThat(rule.attemptTime(4 * SECOND, false)).isEqualTo(Duration.ofSeconds(4));
		assertThat(rule.attemptTimeoutNanos(20 * SECOND)).isEqualTo(10 * SECOND);
		assertThat(rule.attemptTimeoutNanos(4 * SECOND)).isEqualTo(4 * SECOND);
	}

	@Test
	void withTheClientsOwnTimeoutsAnAttemptIsGivenAllThatIsLeftAndNeverLessThanNothing() {
		assertThat(this.rule.attemptTime(20 * SECOND, true)).isEqualTo(Duration.ofSeconds(20));
		assertThat(this.rule.attemptTime(-SECOND, true)).isEqualTo(Duration.ZERO);
	}

	@Test
	void whatIsLeftOfTheWholeDeadlineSaturatesAndIsNeverNegative() {
		assertThat(DeadlineRule.remaining(30 * SECOND, 5 * SECOND)).isEqualTo(Duration.ofSeconds(25));
		assertThat(DeadlineRule.remaining(5 * SECOND, 30 * SECOND)).isEqualTo(Duration.ZERO);
		assertThat(DeadlineRule.remaining(Long.MAX_VALUE, -5 * SECOND)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
	}

	@Test
	void anOperationWithADeadlineOfMillenniaIsSentWithTheWholeAttemptTimeoutAndRecordedSo() {
		FakeClock clock = FakeClock.create();
		RetryPolicy policy = RetryPolicy.builder().deadline(Duration.ofDays(365L * 1000)).build();
		RetryOperation operation = engine(policy, clock).start(OperationSpec.of("GET"));

		assertThat(operation.beforeAttempt()).isInstanceOfSatisfying(Permit.Proceed.class,
				(proceed) -> assertThat(proceed.timeout()).isEqualTo(policy.attemptTimeout()));
		clock.advance(Duration.ofMillis(20));
		assertThat(operation.afterAttempt(new AttemptOutcome.Response(200, HeaderSource.parse(""), 0, clock.read())))
			.isInstanceOfSatisfying(Decision.Stop.class,
					(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.SUCCESS));
		assertThat(operation.trace()).singleElement().satisfies((record) -> {
			assertThat(record.timeout()).isEqualTo(policy.attemptTimeout());
			assertThat(record.remainingDeadline()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
		});
	}

	@Test
	void anOperationWhosePolicyReservesCenturiesIsAnsweredBeforeItsFirstAttemptRatherThanThrown() {
		// before the rule was written once, beforeAttempt() threw ArithmeticException from Duration.toNanos();
		// a reserve past what nanoseconds hold is "forever", so nothing is left for attempts, as the judge after one
		// reckons it
		FakeClock clock = FakeClock.create();
		RetryPolicy policy = RetryPolicy.builder()
			.deadline(Duration.ofDays(365L * 1000))
			.deadlineReserve(CENTURIES)
			.build();
		RetryOperation operation = engine(policy, clock).start(OperationSpec.of("GET"));

		assertThat(operation.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.DEADLINE_EXCEEDED));
		assertThat(operation.attempts()).isZero();
	}

	private static RetryEngine engine(RetryPolicy policy, FakeClock clock) {
		return RetryEngine.builder().policy(policy).ticker(clock).wallClock(clock).build();
	}

}
