package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongFunction;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Scope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.HintedRetries;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.SeededRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31's budget rule, on virtual time: a burst of operations, all started together, meets a provider that refuses
 * them while the retry budget is empty (spent by retries that failed before). A retry the provider asked for ({@code Retry-After}), held by the provider's
 * gate, takes no token; the gate bounds it instead. A refusal without a hint meets the budget exactly as before.
 */
class HintedRetriesBudgetTests {

	private static final int OPERATIONS = 50;

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private static final long LATENCY = Duration.ofMillis(50).toNanos();

	private static final RetryPolicy PACED = RetryPolicy.builder()
		.maxAttempts(6)
		.deadline(Duration.ofSeconds(20))
		.pacing(PacingSettings.DEFAULTS)
		.build();

	@Test
	void aRefusedBurstLargerThanTheBudgetIsRetriedAtTheProvidersInstantWithoutTokens() {
		Run run = new Run(PACED, (now) -> (now < SECOND) ? "503 Retry-After: 1" : "200");
		assertThat(run.outcomes).containsExactly(Map.entry(Outcome.SUCCESS, OPERATIONS));
		assertThat(run.early).as("requests before the instant a refusal of the same operation named").isZero();
		assertThat(run.budget.providerTokens("default")).as("no token taken, none given back").isZero();
		assertThat(run.requests).isLessThanOrEqualTo(2 * OPERATIONS);
	}

	@Test
	void everyRetryTakingATokenAsBeforeEndsMostOfTheBurstBudgetExhausted() {
		Run run = new Run(PACED.toBuilder().hintedRetries(HintedRetries.TOKENS).build(),
				(now) -> (now < SECOND) ? "503 Retry-After: 1" : "200");
		assertThat(run.outcomes).containsExactly(Map.entry(Outcome.BUDGET_EXHAUSTED, OPERATIONS));
		assertThat(run.requests).as("each after one attempt, as issue 31's fleet saw").isEqualTo(OPERATIONS);
	}

	@Test
	void withPacingOffNoGateHoldsTheRetriesSoTheyTakeTokens() {
		Run run = new Run(PACED.toBuilder().pacing(PacingSettings.OFF).build(),
				(now) -> (now < SECOND) ? "503 Retry-After: 1" : "200");
		assertThat(run.outcomes).containsExactly(Map.entry(Outcome.BUDGET_EXHAUSTED, OPERATIONS));
		assertThat(run.requests).as("each after one attempt, as issue 31's fleet saw").isEqualTo(OPERATIONS);
	}

	@Test
	void aRefusalWithoutAHintMeetsTheBudgetExactlyAsBefore() {
		LongFunction<String> noHint = (now) -> (now < SECOND) ? "503" : "200";
		Run paced = new Run(PACED, noHint);
		Run tokens = new Run(PACED.toBuilder().hintedRetries(HintedRetries.TOKENS).build(), noHint);
		assertThat(paced.outcomes).isEqualTo(tokens.outcomes);
		assertThat(paced.requests).isEqualTo(tokens.requests);
		assertThat(paced.outcomes).containsExactly(Map.entry(Outcome.BUDGET_EXHAUSTED, OPERATIONS));
	}

	@Test
	void aHintOfZeroNamesNoInstantToHoldToSoItsRetriesTakeTokens() {
		Run run = new Run(PACED, (now) -> (now < SECOND) ? "503 Retry-After: 0" : "200");
		assertThat(run.outcomes).containsExactly(Map.entry(Outcome.BUDGET_EXHAUSTED, OPERATIONS));
	}

	/**
	 * What bounds hinted retries when the provider never recovers: after each cooldown the gate sends one probe, and
	 * its refusal closes the gate again, so about one retry a second reaches it, not the 250 that six attempts each
	 * would allow.
	 */
	@Test
	void aProviderThatHintsButNeverRecoversSeesOneProbePerCooldownNotEveryRetry() {
		Run run = new Run(PACED, (now) -> "503 Retry-After: 1");
		assertThat(run.outcomes).doesNotContainKey(Outcome.SUCCESS);
		assertThat(run.early).isZero();
		assertThat(run.requests - OPERATIONS).as("retries over the 20 s deadline").isBetween(10, 25);
	}

	/** Runs {@link #OPERATIONS} operations started together to a provider answering by the virtual time. */
	private static final class Run {

		final Sim sim = new Sim();

		final TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.ticker(this.sim.clock)
			.providerDefaults(new BudgetSettings(5, 0, 0))
			.global(new BudgetSettings(1_000, 0, 0))
			.build();

		final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);

		int requests;

		int early;

		Run(RetryPolicy policy, LongFunction<String> provider) {
			// spent before the burst by retries that failed: nothing left, nothing in flight
			for (int i = 0; i < 5; i++) {
				this.budget.tryAcquire(Scope.provider("default"));
				this.budget.settle(Scope.provider("default"));
			}
			RetryEngine engine = this.sim.engine(policy, SeededRandom.of(31), this.budget);
			// a step is an operation asking to send, or, with an answer, its response arriving LATENCY after it was sent
			record Step(long at, int operation, String answer) {
			}
			PriorityQueue<Step> queue = new PriorityQueue<>((a, b) -> (a.at != b.at) ? Long.compare(a.at, b.at)
					: Integer.compare(a.operation, b.operation));
			List<RetryOperation> operations = new ArrayList<>();
			long[] notBefore = new long[OPERATIONS];
			long[] sentAt = new long[OPERATIONS];
			for (int i = 0; i < OPERATIONS; i++) {
				operations.add(engine.start(OperationSpec.of("GET"), Cancellation.never()));
				queue.add(new Step(0, i, null));
			}
			for (int steps = 0; !queue.isEmpty() && steps < 100_000; steps++) {
				Step step = queue.poll();
				long now = this.sim.clock.read();
				if (step.at > now) {
					this.sim.clock.advance(Duration.ofNanos(step.at - now));
					now = step.at;
				}
				RetryOperation operation = operations.get(step.operation);
				if (step.answer != null) {
					String[] answer = step.answer.split(" ", 2);
					if (answer.length > 1) {
						notBefore[step.operation] = now + SECOND;
					}
					Decision decision = operation.afterAttempt(new AttemptOutcome.Response(Integer.parseInt(answer[0]),
							HeaderSource.parse((answer.length > 1) ? answer[1] + "\n" : ""), sentAt[step.operation],
							now));
					if (decision instanceof Decision.Retry retry) {
						queue.add(new Step(retry.notBeforeNanos(), step.operation, null));
					}
					else {
						this.outcomes.merge(((Decision.Stop) decision).outcome(), 1, Integer::sum);
					}
					continue;
				}
				Permit permit = operation.beforeAttempt();
				if (permit instanceof Permit.Wait wait) {
					queue.add(new Step(Math.max(wait.notBeforeNanos(), now + 1), step.operation, null));
					continue;
				}
				if (permit instanceof Permit.Refused refused) {
					this.outcomes.merge(refused.stop().outcome(), 1, Integer::sum);
					continue;
				}
				this.requests++;
				this.early += (now < notBefore[step.operation]) ? 1 : 0;
				sentAt[step.operation] = now;
				// the provider decides when the request reaches it, half a round trip after it was sent
				queue.add(new Step(now + LATENCY, step.operation, provider.apply(now + LATENCY / 2)));
			}
		}

	}

}
