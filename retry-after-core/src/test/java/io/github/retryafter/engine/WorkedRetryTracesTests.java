package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.test.FakeProvider;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SeededRandom;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 003's synthetic traces, to the hundredth of a second, under its invented policy (5 attempts, 20 s of waiting,
 * 0.5 s doubling to 8 s, exact Retry-After, reads and keyed writes only). Traces A and C need the planner and live in
 * {@code HintedRetryAfterTests}.
 */
class WorkedRetryTracesTests {

	private final Sim sim = new Sim();

	private static Duration s(double seconds) {
		return Duration.ofMillis(Math.round(seconds * 1000));
	}

	@Test
	void traceBProviderDownFailsAtAttemptFiveAfter385sOfWaiting() {
		ScriptedRandom random = ScriptedRandom.of(0.90, 0.20, 0.60, 0.50);
		RetryEngine engine = this.sim.engine(Sim.WORKED_TRACES_POLICY, random);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).thenRepeat(Step.respond(503)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		System.out.println(this.sim.recorder.render());
		assertThat(result.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED);
		assertThat(result.attempts()).isEqualTo(5);
		assertThat(result.totalWait()).isEqualTo(s(3.85));
		assertThat(this.sim.clock.sleeps()).containsExactly(s(0.45), s(0.20), s(1.20), s(2.00));
		assertThat(result.trace()).extracting((record) -> record.draw().map(BackoffDraw::ceiling).orElse(null))
			.containsExactly(s(0.5), s(1.0), s(2.0), s(4.0), null);
		assertThat(result.trace()).extracting(AttemptRecord::startedAt)
			.containsExactly(s(0), s(0.45), s(0.65), s(1.85), s(3.85));
		assertThat(random.taken()).as("no draw is spent at the attempt limit").isEqualTo(4);
	}

	@ParameterizedTest
	@ValueSource(ints = { 400, 401, 404 })
	void traceDBadRequestIsReturnedWithOneAttempt(int status) {
		ScriptedRandom random = ScriptedRandom.of();
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().ticker(this.sim.clock).build();
		RetryEngine engine = this.sim.engine(Sim.WORKED_TRACES_POLICY, random, budget);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(Step.respond(status)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.response()).map(SimResponse::status).contains(status);
		assertThat(budget.availableTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(20);
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	@Test
	void traceETimedOutCreateIsRetriedWithTheSameKeyAndHasExactlyOneEffect() {
		FakeProvider provider = new FakeProvider();
		RetryEngine engine = this.sim.engine(Sim.WORKED_TRACES_POLICY, ScriptedRandom.of(0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.provider(provider)
			.then(Step.timeoutAfterApplying(), Step.respond(201))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST").withIdempotencyKey("op-0001"), SimResponse.ADAPTER,
					transport.attempt("POST", "/events", "{\"id\":\"op-0001\"}"));
		System.out.println(this.sim.recorder.render());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(transport.requests()).hasSize(2)
			.allSatisfy((request) -> assertThat(request.idempotencyKey()).contains("op-0001"));
		assertThat(provider.received()).hasSize(2);
		assertThat(provider.recordsFor("op-0001")).hasSize(1);
		assertThat(result.response().flatMap(SimResponse::record)).contains(provider.records().get(0));
	}

	@Test
	void traceEWithoutAnIdentifierOneRequestStatusUnknownNoRetry() {
		FakeProvider provider = new FakeProvider();
		List<RefusalEvent> refusals = new ArrayList<>();
		RetryEngine engine = RetryEngine.builder()
			.policy(Sim.WORKED_TRACES_POLICY)
			.random(ScriptedRandom.of())
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.listener(new RetryListener() {
				@Override
				public void onRefusal(RefusalEvent event) {
					refusals.add(event);
				}
			})
			.build();
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.provider(provider)
			.then(Step.timeoutAfterApplying())
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST"), SimResponse.ADAPTER, transport.attempt("POST", "/events", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		assertThat(transport.requests()).hasSize(1);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(refusals).singleElement()
			.satisfies((refusal) -> assertThat(refusal.stop()).contains(Outcome.OUTCOME_UNKNOWN));
	}

	@Test
	void traceFFiftyCallersWithoutHintSpreadOverTheFirstHalfSecond() {
		RetryEngine engine = this.sim.engine(Sim.WORKED_TRACES_POLICY, SeededRandom.of(3));
		int[] buckets = new int[5];
		for (int caller = 0; caller < 50; caller++) {
			RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
			operation.beforeAttempt();
			long now = this.sim.clock.read();
			Decision decision = operation
				.afterAttempt(new AttemptOutcome.Response(429, HeaderSource.empty(), now, now));
			Decision.Retry retry = (Decision.Retry) decision;
			assertThat(retry.source()).isEqualTo(DelaySource.BACKOFF);
			assertThat(retry.draw()).map(BackoffDraw::ceiling).contains(s(0.5));
			assertThat(retry.delay()).isLessThan(s(0.5));
			buckets[(int) (retry.delay().toMillis() / 100)]++;
		}
		int occupied = 0;
		for (int count : buckets) {
			occupied += (count > 0) ? 1 : 0;
			assertThat(count).isLessThanOrEqualTo(25);
		}
		assertThat(occupied).as("buckets %s", java.util.Arrays.toString(buckets)).isGreaterThanOrEqualTo(4);
	}

	@Test
	void theTraceIsReadable() {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.providerDefaults(BudgetSettings.PROVIDER_DEFAULTS)
			.ticker(this.sim.clock)
			.build();
		RetryEngine engine = this.sim.engine(Sim.WORKED_TRACES_POLICY, ScriptedRandom.of(0.9), budget);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(503), Step.respond(200))
			.build();
		this.sim.runner(engine).run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(this.sim.recorder.lines()).containsExactly(
				"[  0.000 s] attempt 1 (first) GET: timeout 10.000 s, deadline left 60.000 s, tokens 20.00 -> 20.00",
				"[  0.000 s]   <- 503, no Retry-After, backoff ceiling 0.500 s x draw 0.90 = 0.450 s => wait 0.450 s [BACKOFF], total wait 0.450 s, deadline left after wait 59.550 s, tokens 20.00",
				"[  0.450 s] attempt 2 (retry) GET: timeout 10.000 s, deadline left 59.550 s, tokens 20.00 -> 19.00",
				"[  0.450 s] result: SUCCESS, 2 attempt(s), 0.45 s waiting (200, no Retry-After)");
	}

}
