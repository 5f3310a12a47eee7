package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AttemptJudge} decides from its inputs alone: no gate, no budget and no listener are built here. What the
 * budget would give is a view it reads last, only when a decision gets that far, and what may still come back only
 * when nothing is there.
 */
class AttemptJudgeTests {

	private final FakeClock clock = FakeClock.create();

	private AttemptJudge judge(RetryPolicy policy, RandomSource random) {
		return new AttemptJudge(policy, RetryAfterPlanner.builder()
			.options(policy.hintMode().plannerOptions(policy.planner()))
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(random)
			.build());
	}

	private OperationState state(int attempts) {
		long now = this.clock.read();
		return new OperationState(OperationSpec.of("GET"), attempts, now, now + Duration.ofSeconds(30).toNanos(),
				Duration.ZERO);
	}

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	private Evaluation judge(AttemptJudge judge, OperationState state, AttemptOutcome outcome, TokenView tokens) {
		return judge.judge(state, outcome, judge.classify(outcome), this.clock.read(), tokens);
	}

	@Test
	void a503WithRetryAfter2OnAGetIsARetryNoSoonerThanTheServersFloorAndReadsTheBudgetOnce() {
		CountingView tokens = new CountingView(5, 0);
		Evaluation evaluation = judge(judge(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5)), state(1),
				response(503, "Retry-After: 2"), tokens);
		assertThat(evaluation.decision()).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.source()).isEqualTo(DelaySource.RETRY_AFTER);
			assertThat(retry.delay()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
			assertThat(retry.notBeforeNanos()).isEqualTo(this.clock.read() + retry.delay().toNanos());
		});
		assertThat(evaluation.refusedRetry()).isFalse();
		assertThat(tokens.reads).as("tokens are there: what may come back is not asked").containsExactly("available");
	}

	@Test
	void theSameInputsGiveTheSameDecision() {
		OperationState state = state(1);
		AttemptOutcome.Response response = response(503, "Retry-After: 2");
		Decision first = judge(judge(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.25)), state, response,
				TokenView.of(5, 0)).decision();
		Decision second = judge(judge(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.25)), state, response,
				TokenView.of(5, 0)).decision();
		assertThat(first).isEqualTo(second);
	}

	@Test
	void anEmptyBudgetStopsTheRetryUnlessATokenHeldInFlightMayComeBack() {
		AttemptJudge judge = judge(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5));
		assertThat(judge(judge, state(1), response(503), TokenView.of(0.4, 0)).decision())
			.isInstanceOfSatisfying(Decision.Stop.class, (stop) -> {
				assertThat(stop.outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED);
				assertThat(stop.reason()).contains("has 0.40 tokens, less than the 1 a retry needs");
			});
		assertThat(judge(judge, state(1), response(503), TokenView.of(0.4, 1)).decision())
			.isInstanceOf(Decision.Retry.class);
	}

	@Test
	void aStopDecidedBeforeTheScheduleReadsNoBudget() {
		AttemptJudge judge = judge(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(2).build(), ScriptedRandom.of(0.5));
		CountingView tokens = new CountingView(0, 0);
		assertThat(judge(judge, state(1), response(404), tokens).decision()).isInstanceOfSatisfying(
				Decision.Stop.class, (stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.NOT_RETRYABLE));
		assertThat(judge(judge, state(2), response(503), tokens).decision()).isInstanceOfSatisfying(
				Decision.Stop.class, (stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED));
		assertThat(judge(judge, state(1), response(200), tokens)).isSameAs(Evaluation.SUCCEEDED);
		assertThat(tokens.reads).isEmpty();
	}

	/** A view that records what was read of it. */
	private static final class CountingView implements TokenView {

		private final double available;

		private final int inFlight;

		private final List<String> reads = new ArrayList<>();

		CountingView(double available, int inFlight) {
			this.available = available;
			this.inFlight = inFlight;
		}

		@Override
		public double available() {
			this.reads.add("available");
			return this.available;
		}

		@Override
		public int inFlight() {
			this.reads.add("inFlight");
			return this.inFlight;
		}

	}

}
