package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Set;

import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScenarioRecorder;

/** Test fixture: a fake clock, a recorder, and engines and runners on them. */
final class Sim {

	/** Seed 003's invented policy: 5 attempts, 20 s of waiting, 0.5 s doubling to 8 s, exact hints, reads and keyed writes. */
	static final RetryPolicy WORKED_TRACES_POLICY = RetryPolicy.builder()
		.maxAttempts(5)
		.totalWait(Duration.ofSeconds(20))
		.deadline(Duration.ofSeconds(60))
		.backoff(new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8)))
		.hintMode(HintMode.EXACT)
		.retryableMethods(Set.of("GET", "HEAD", "OPTIONS"))
		.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(20)).build())
		.build();

	final FakeClock clock = FakeClock.create();

	final ScenarioRecorder recorder = new ScenarioRecorder();

	RetryEngine engine(RetryPolicy policy, RandomSource random, RetryBudget budget) {
		return RetryEngine.builder()
			.policy(policy)
			.random(random)
			.budget(budget)
			.ticker(this.clock)
			.wallClock(this.clock)
			.listener(this.recorder)
			.build();
	}

	RetryEngine engine(RetryPolicy policy, RandomSource random) {
		return engine(policy, random, RetryBudget.unlimited());
	}

	RetryRunner runner(RetryEngine engine) {
		return RetryRunner.of(engine, this.clock);
	}

}
