package io.github.retryafter.engine;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Scope;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AttemptJudge}'s rules before an attempt, from their inputs alone (no operation, gate or budget is built):
 * a cancellation first, then the deadline as {@link DeadlineRule} reckons it, and what a refusal by the gate or the
 * budget ends the operation with. An attempt that may go on costs no allocation: the answer is the shared empty
 * {@code Optional}.
 */
class BeforeAttemptRulesTests {

	private static final long SECOND = 1_000_000_000L;

	private final FakeClock clock = FakeClock.create();

	private final RetryPolicy policy = RetryPolicy.builder()
		.deadline(Duration.ofSeconds(30))
		.deadlineReserve(Duration.ofSeconds(2))
		.minAttemptTime(Duration.ofMillis(100))
		.build();

	private final AttemptJudge judge = new AttemptJudge(this.policy, RetryAfterPlanner.builder()
		.options(this.policy.hintMode().plannerOptions(this.policy.planner()))
		.ticker(this.clock)
		.wallClock(this.clock)
		.random(RandomSource.threadLocal())
		.build());

	@Test
	void anAttemptWithTimeLeftGoesOnToItsGateAndBudgetWithTheSharedEmptyAnswer() {
		assertThat(this.judge.beforeAttempt(false, 1, 30 * SECOND, 0)).isSameAs(Optional.empty());
		assertThat(this.judge.beforeAttempt(false, 3, 30 * SECOND, 27 * SECOND)).isSameAs(Optional.empty());
	}

	@Test
	void aCancellationEndsTheOperationFirstUnreportedEvenWithNoTimeLeft() {
		assertThat(this.judge.beforeAttempt(true, 2, 0, 5 * SECOND)).hasValueSatisfying((evaluation) -> {
			assertThat(evaluation.decision())
				.isEqualTo(new Decision.Stop(Outcome.CANCELLED, "cancelled before attempt 2"));
			assertThat(evaluation.refusedRetry()).isFalse();
		});
	}

	@Test
	void noMoreThanTheMinimumUsefulAttemptLeftAfterTheReserveEndsTheOperationReportedOnlyForARetry() {
		long deadline = 30 * SECOND;
		long atTheMinimum = deadline - 2 * SECOND - SECOND / 10;
		assertThat(this.judge.beforeAttempt(false, 1, deadline, atTheMinimum - 1)).isEmpty();
		assertThat(this.judge.beforeAttempt(false, 1, deadline, atTheMinimum)).hasValueSatisfying((evaluation) -> {
			assertThat(evaluation.decision()).isEqualTo(new Decision.Stop(Outcome.DEADLINE_EXCEEDED,
					"deadline: 0.100 s left before attempt 1, no more than the minimum useful attempt of 0.100 s"));
			assertThat(evaluation.refusedRetry()).isFalse();
		});
		assertThat(this.judge.beforeAttempt(false, 2, deadline, deadline + SECOND)).hasValueSatisfying((evaluation) -> {
			assertThat(evaluation.decision()).isEqualTo(new Decision.Stop(Outcome.DEADLINE_EXCEEDED,
					"deadline: 0.000 s left before attempt 2, no more than the minimum useful attempt of 0.100 s"));
			assertThat(evaluation.refusedRetry()).isTrue();
		});
	}

	@Test
	void theDeadlineSaturatesAtBothEndsOfTheTicker() {
		assertThat(this.judge.beforeAttempt(false, 1, Long.MAX_VALUE, -5 * SECOND)).isEmpty();
		assertThat(this.judge.beforeAttempt(false, 2, Long.MIN_VALUE, 5 * SECOND)).hasValueSatisfying(
				(evaluation) -> assertThat(((Decision.Stop) evaluation.decision()).outcome())
					.isEqualTo(Outcome.DEADLINE_EXCEEDED));
	}

	@Test
	void theBeforeAndAfterSidesAgreeOnTheDeadline() {
		OperationSpec spec = OperationSpec.of("GET");
		long deadline = 30 * SECOND;
		long atTheMinimum = deadline - 2 * SECOND - SECOND / 10;
		AttemptOutcome.Failure timeout = new AttemptOutcome.Failure(FailureKind.TIMED_OUT,
				new SocketTimeoutException(), 0, atTheMinimum);
		for (long now : new long[] { atTheMinimum - 1, atTheMinimum }) {
			Evaluation after = this.judge.judge(new OperationState(spec, 1, 0, deadline, Duration.ZERO), timeout,
					Classification.RETRYABLE, now, TokenView.of(5, 0));
			boolean afterStops = after.decision() instanceof Decision.Stop stop
					&& stop.outcome() == Outcome.DEADLINE_EXCEEDED;
			assertThat(this.judge.beforeAttempt(false, 2, deadline, now).isPresent()).as("at %d", now)
				.isEqualTo(afterStops);
		}
	}

	@Test
	void aGateThatRefusesEndsTheOperationCoolingDownReported() {
		Evaluation refused = AttemptJudge.refusedByGate("provider 'openai' is cooling down for another 3 s", 1);
		assertThat(refused.decision()).isEqualTo(new Decision.Stop(Outcome.PROVIDER_COOLING_DOWN,
				"provider 'openai' is cooling down for another 3 s; attempt 1 was not sent"));
		assertThat(refused.refusedRetry()).isTrue();
	}

	@Test
	void aFullQueueEndsTheOperationCoolingDownAndSaysWhatToDo() {
		Evaluation full = AttemptJudge.queueFull(Scope.provider("openai"), 64, 2);
		assertThat(full.decision()).isInstanceOfSatisfying(Decision.Stop.class, (stop) -> {
			assertThat(stop.outcome()).isEqualTo(Outcome.PROVIDER_COOLING_DOWN);
			assertThat(stop.reason())
				.startsWith("'openai' already holds 64 requests (max-queued); attempt 2 was not sent")
				.contains("raise max-queued");
		});
		assertThat(full.refusedRetry()).isTrue();
	}

	@Test
	void aBudgetThatRefusesEndsTheOperationBudgetExhaustedReported() {
		Evaluation refused = AttemptJudge.refusedByBudget("the retry budget for 'openai' has no token for attempt 2");
		assertThat(refused.decision()).isEqualTo(new Decision.Stop(Outcome.BUDGET_EXHAUSTED,
				"the retry budget for 'openai' has no token for attempt 2"));
		assertThat(refused.refusedRetry()).isTrue();
	}

	@Test
	void anAttemptThatThrewWhatIsNotAnIoFailureIsNotRetriedAndItsMessageIsNotRepeated() {
		Decision.Stop stop = AttemptJudge.thrown(2, new IllegalStateException("Bearer secret-token"));
		assertThat(stop.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(stop.reason())
			.isEqualTo("attempt 2 threw java.lang.IllegalStateException, which is not an I/O failure")
			.doesNotContain("secret");
	}

}
