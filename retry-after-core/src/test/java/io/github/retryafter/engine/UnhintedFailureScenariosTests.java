package io.github.retryafter.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
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
 * Seed 002's test scenarios that need no {@code Retry-After}; scenarios 2 and 3 live in
 * {@code HintedRetryAfterTests}.
 */
class UnhintedFailureScenariosTests {

	private final Sim sim = new Sim();

	@Test
	void scenario1TemporaryFailureThenSuccess() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(503), Step.respond(503), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST").withIdempotencyKey("order-42"), SimResponse.ADAPTER,
					transport.attempt("POST", "/orders", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(3);
		List<Duration> ceilings = result.trace()
			.stream()
			.flatMap((record) -> record.draw().stream())
			.map(BackoffDraw::ceiling)
			.toList();
		assertThat(ceilings).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
		assertThat(transport.requests()).extracting((request) -> request.idempotencyKey())
			.containsOnly(Optional.of("order-42"));
	}

	@Test
	void scenario4ValidationFailureOneAttemptNoToken() {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().ticker(this.sim.clock).build();
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(), budget);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(Step.respond(422)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST").withIdempotencyKey("k"), SimResponse.ADAPTER,
					transport.attempt("POST", "/orders", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(20);
		assertThat(budget.globalTokens()).isEqualTo(100);
	}

	@Test
	void scenario5TimeoutWithUnsafeWriteReportsUncertainty() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of());
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(Step.timeoutAfterApplying()).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST"), SimResponse.ADAPTER, transport.attempt("POST", "/payments", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		assertThat(transport.requests()).hasSize(1);
		assertThat(this.sim.recorder.render()).contains("refused -> OUTCOME_UNKNOWN");
	}

	@Test
	void scenario6RetryBudgetExhaustionUnderManyConcurrentOperations() throws Exception {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.providerDefaults(new BudgetSettings(20, 0.2, 0))
			.global(new BudgetSettings(100, 0.2, 0))
			.ticker(this.sim.clock)
			.build();
		RetryPolicy policy = RetryPolicy.builder()
			.deadline(Duration.ofHours(1))
			.totalWait(Duration.ofHours(1))
			.backoff(new Backoff(Duration.ofMillis(1), Duration.ofMillis(1)))
			.build();
		RetryEngine engine = RetryEngine.builder()
			.policy(policy)
			.budget(budget)
			.random(SeededRandom.of(6))
			.ticker(this.sim.clock)
			.build();
		RetryRunner runner = this.sim.runner(engine);
		Map<String, AtomicInteger> retriesByProvider = new ConcurrentHashMap<>();
		Map<Outcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < 3_000; i++) {
				String provider = (i < 1_000) ? "down" : "p" + (i % 10);
				futures.add(pool.submit(() -> {
					RetryRunner.Result<Integer> result = runner.run(OperationSpec.of("GET").withProvider(provider),
							Cancellation.never(), STATUS, (context) -> {
								if (context.attempt() > 1) {
									retriesByProvider.computeIfAbsent(provider, (key) -> new AtomicInteger())
										.incrementAndGet();
								}
								return 503;
							});
					outcomes.computeIfAbsent(result.outcome(), (key) -> new AtomicInteger()).incrementAndGet();
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		int total = retriesByProvider.values().stream().mapToInt(AtomicInteger::get).sum();
		assertThat(total).as("retries never exceed the global bucket").isLessThanOrEqualTo(100);
		assertThat(total).as("every token was spent").isEqualTo(100);
		retriesByProvider.forEach((provider, retries) -> assertThat(retries.get()).as(provider).isLessThanOrEqualTo(20));
		assertThat(outcomes.get(Outcome.BUDGET_EXHAUSTED).get()).isGreaterThan(2_000);
	}

	@Test
	void scenario6OneProvidersOutageLeavesAnotherProvidersBucket() {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.providerDefaults(new BudgetSettings(20, 0.2, 0))
			.global(new BudgetSettings(100, 0.2, 0))
			.ticker(this.sim.clock)
			.build();
		RetryPolicy policy = RetryPolicy.builder().backoff(new Backoff(Duration.ofMillis(1), Duration.ofMillis(1))).build();
		RetryEngine engine = RetryEngine.builder()
			.policy(policy)
			.budget(budget)
			.random(SeededRandom.of(7))
			.ticker(this.sim.clock)
			.build();
		RetryRunner runner = this.sim.runner(engine);
		AtomicInteger sent = new AtomicInteger();
		for (int i = 0; i < 200; i++) {
			runner.run(OperationSpec.of("GET").withProvider("down"), STATUS, (context) -> {
				sent.incrementAndGet();
				return 503;
			});
		}
		assertThat(sent.get()).isEqualTo(200 + 20);
		assertThat(budget.availableTokens("healthy")).isEqualTo(20);
		RetryRunner.Result<Integer> healthy = runner.run(OperationSpec.of("GET").withProvider("healthy"), STATUS,
				new StatusScript(503, 200));
		assertThat(healthy.outcome()).isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void scenario7CancellationDuringBackoffSendsNoLaterRequest() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.9));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(503), Step.respond(200))
			.build();
		Cancellation cancellation = Cancellation.create();
		this.sim.clock.cancelAfter(Duration.ofMillis(50), cancellation);
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), cancellation, SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.CANCELLED);
		assertThat(transport.requests()).hasSize(1);
		assertThat(this.sim.clock.elapsed()).isEqualTo(Duration.ofMillis(50));
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(90));
	}

	@Test
	void scenario8SuccessAfterALostResponseHasOneEffect() {
		FakeProvider provider = new FakeProvider();
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.provider(provider)
			.then(Step.responseLost(), Step.respond(201))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST").withIdempotencyKey("invite-7"), SimResponse.ADAPTER,
					transport.attempt("POST", "/invitations", "{\"to\":\"a@example.com\"}"));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.trace().get(0).failure()).contains(FailureKind.OUTCOME_UNKNOWN);
		assertThat(provider.records()).hasSize(1);
		assertThat(result.response().flatMap(SimResponse::record)).contains(provider.records().get(0));
	}

	private static final RetryRunner.ResponseAdapter<Integer> STATUS = new RetryRunner.ResponseAdapter<>() {

		@Override
		public int status(Integer response) {
			return response;
		}

		@Override
		public io.github.retryafter.HeaderSource headers(Integer response) {
			return io.github.retryafter.HeaderSource.empty();
		}

	};

	private record StatusScript(int... statuses) implements RetryRunner.Attempt<Integer> {

		@Override
		public Integer call(RetryRunner.AttemptContext context) {
			return this.statuses[Math.min(context.attempt(), this.statuses.length) - 1];
		}

	}

}
