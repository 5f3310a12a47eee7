package io.github.retryafter.engine;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.test.FakeProvider;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RetryEngineRulesTests {

	private final Sim sim = new Sim();

	private final List<Object> events = new ArrayList<>();

	private final RetryListener collecting = new RetryListener() {

		@Override
		public void onAttempt(AttemptEvent event) {
			RetryEngineRulesTests.this.events.add(event);
		}

		@Override
		public void onRetryScheduled(RetryScheduledEvent event) {
			RetryEngineRulesTests.this.events.add(event);
		}

		@Override
		public void onRefusal(RefusalEvent event) {
			RetryEngineRulesTests.this.events.add(event);
		}

		@Override
		public void onOperationFinished(OperationFinishedEvent event) {
			RetryEngineRulesTests.this.events.add(event);
		}

	};

	private TokenBucketRetryBudget budget(double capacity) {
		return TokenBucketRetryBudget.builder()
			.providerDefaults(BudgetSettings.ofCapacity(capacity))
			.global(BudgetSettings.ofCapacity(100))
			.ticker(this.sim.clock)
			.build();
	}

	private RetryEngine engine(RetryPolicy policy, RetryBudget budget, double... draws) {
		return RetryEngine.builder()
			.policy(policy)
			.random(ScriptedRandom.of(draws))
			.budget(budget)
			.ticker(this.sim.clock)
			.wallClock(this.sim.clock)
			.listener(RetryListener.composite(List.of(this.sim.recorder, this.collecting)))
			.build();
	}

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		StringBuilder raw = new StringBuilder();
		for (String line : headerLines) {
			raw.append(line).append('\n');
		}
		return new AttemptOutcome.Response(status, HeaderSource.parse(raw.toString()), now, now);
	}

	private AttemptOutcome.Failure failure(FailureKind kind) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Failure(kind, new IOException("simulated " + kind), now, now);
	}

	private <T> List<T> events(Class<T> type) {
		return this.events.stream().filter(type::isInstance).map(type::cast).toList();
	}

	// Rule 1: classify first

	@ParameterizedTest
	@ValueSource(ints = { 400, 401, 403, 404, 409, 422, 500 })
	void permanentStatusesReturnAtOnceWithOneAttemptAndNoToken(int status) {
		TokenBucketRetryBudget budget = budget(5);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, budget);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(Step.respond(status)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.response()).map(SimResponse::status).contains(status);
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(5);
		assertThat(budget.globalTokens()).isEqualTo(100);
		assertThat(events(RefusalEvent.class)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(ints = { 408, 429, 502, 503, 504 })
	void temporaryStatusesWithoutHintAreRetriedWithBackoff(int status) {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(status), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/items", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(result.trace().get(0).source()).contains(DelaySource.BACKOFF);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(50));
	}

	@Test
	void connectFailuresAreRetriedForAnyMethodBecauseNothingWasSent() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.connectionRefused(), Step.respond(201))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("POST"), SimResponse.ADAPTER, transport.attempt("POST", "/orders", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.trace().get(0).failure()).contains(FailureKind.NOT_SENT);
		assertThat(result.trace().get(0).status()).isEmpty();
	}

	/**
	 * Issue 32, defect 4: a failure's message (a JDK client quotes the status line in it) went uncut into the reason,
	 * and from there into the WARN line, the endpoint and the exception: 300 KB of the server's text each time.
	 */
	@Test
	void aFailureIsNamedByItsClassAndEveryReasonShownIsBounded() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("POST"), Cancellation.never());
		operation.beforeAttempt();
		long now = this.sim.clock.read();
		String hostile = "Invalid status line: \"HTTP/1.1 2X0 session=SECRET\u001b[2J" + "A".repeat(300_000) + "\"";
		Decision decision = operation.afterAttempt(new AttemptOutcome.Failure(FailureKind.OUTCOME_UNKNOWN,
				new java.net.ProtocolException(hostile), now, now));
		Decision.Stop stop = (Decision.Stop) decision;
		assertThat(stop.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		assertThat(stop.reason()).contains("a lost response (java.net.ProtocolException)").doesNotContain("SECRET");
		assertThat(events(RefusalEvent.class)).singleElement()
			.satisfies((refusal) -> assertThat(refusal.reason()).isEqualTo(stop.reason()));
		assertThat(events(OperationFinishedEvent.class)).singleElement()
			.satisfies((finished) -> assertThat(finished.reason()).isEqualTo(stop.reason()));
		String cut = new Decision.Stop(Outcome.NOT_RETRYABLE, hostile).reason();
		assertThat(cut).startsWith(hostile.substring(0, 49) + "\\u001B[2JAAA")
			.endsWith("…(+" + (hostile.length() - 1_000) + " chars)")
			.doesNotContain("\u001b");
		assertThat(cut.length()).isLessThan(1_100);
	}

	@Test
	void status500IsRetriedOnlyWhenConfigured() {
		RetryPolicy policy = RetryPolicy.builder().retryableStatuses(Set.of(500, 503)).build();
		RetryEngine engine = engine(policy, RetryBudget.unlimited(), 0.1);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(500), Step.respond(200))
			.build();
		assertThat(this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""))
			.attempts()).isEqualTo(2);
	}

	@Test
	void aProviderClassifierCanOverrideTheDefault() {
		ResponseClassifier defaults = RetryPolicy.defaultClassifier(RetryPolicy.DEFAULT_RETRYABLE_STATUSES);
		ResponseClassifier provider = (outcome) -> {
			if (outcome instanceof AttemptOutcome.Response response) {
				if (response.status() == 200 && response.headers().values("X-Error").contains("busy")) {
					return Classification.RETRYABLE;
				}
				if (response.status() == 409) {
					return Classification.SUCCESS;
				}
			}
			return defaults.classify(outcome);
		};
		RetryEngine engine = engine(RetryPolicy.builder().classifier(provider).build(), RetryBudget.unlimited(), 0.3);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(200, "X-Error: busy"), Step.respond(409))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("PUT"), SimResponse.ADAPTER, transport.attempt("PUT", "/items/1", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
	}

	// Rule 2: replay safety before counting

	@ParameterizedTest
	@ValueSource(strings = { "GET", "HEAD", "OPTIONS", "PUT", "DELETE" })
	void idempotentMethodsAreRetriedAfterATimeout(String method) {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.timeout(), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of(method), SimResponse.ADAPTER, transport.attempt(method, "/items/1", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.trace().get(0).failure()).contains(FailureKind.TIMED_OUT);
	}

	@ParameterizedTest
	@ValueSource(strings = { "POST", "PATCH" })
	void unsafeMethodsWithoutKeyThatMayHaveBeenAppliedEndAsOutcomeUnknown(String method) {
		FakeProvider provider = new FakeProvider();
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, budget(5));
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.provider(provider)
			.then(Step.responseLost())
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of(method), SimResponse.ADAPTER, transport.attempt(method, "/orders", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.failure()).containsInstanceOf(IOException.class);
		assertThat(transport.requests()).hasSize(1);
		assertThat(events(RefusalEvent.class)).singleElement().satisfies((refusal) -> {
			assertThat(refusal.stop()).contains(Outcome.OUTCOME_UNKNOWN);
			assertThat(refusal.reason()).contains("may have been applied").contains("look the outcome up");
		});
	}

	@Test
	void unsafeMethodWithoutKeyThatGotARetryableResponseIsNotRetried() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited());
		RetryOperation operation = engine.start(OperationSpec.of("POST"), Cancellation.never());
		operation.beforeAttempt();
		Decision decision = operation.afterAttempt(response(503));
		assertThat(decision).isEqualTo(operation.finalStop().orElseThrow());
		assertThat(((Decision.Stop) decision).outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(((Decision.Stop) decision).reason()).contains("Idempotency-Key");
	}

	@Test
	void unsafeMethodWithKeyIsRetriedCarryingTheSameKeyOnEveryAttempt() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5, 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.timeout(), Step.respond(503), Step.respond(201))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("PATCH").withIdempotencyKey("k-1"), SimResponse.ADAPTER,
					transport.attempt("PATCH", "/orders/1", "{}"));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(transport.requests()).extracting((request) -> request.idempotencyKey().orElseThrow())
			.containsExactly("k-1", "k-1", "k-1");
	}

	@Test
	void aBodyThatCannotBeReplayedIsNotRetried() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited());
		RetryOperation operation = engine.start(OperationSpec.of("PUT").withReplayable(false), Cancellation.never());
		operation.beforeAttempt();
		assertThat(operation.afterAttempt(response(503)))
			.isInstanceOfSatisfying(Decision.Stop.class, (stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.NOT_RETRYABLE));
	}

	@Test
	void retryableMethodsAreConfigurable() {
		RetryPolicy readsOnly = RetryPolicy.builder().retryableMethods(Set.of("GET")).build();
		RetryEngine engine = engine(readsOnly, RetryBudget.unlimited());
		RetryOperation operation = engine.start(OperationSpec.of("DELETE"), Cancellation.never());
		operation.beforeAttempt();
		assertThat(operation.afterAttempt(failure(FailureKind.TIMED_OUT))).isEqualTo(
				new Decision.Stop(Outcome.OUTCOME_UNKNOWN, ((Decision.Stop) operation.finalStop().orElseThrow()).reason()));
	}

	// Rule 3: the deadline belongs to the operation

	@Test
	void eachAttemptGetsTheSmallerOfItsTimeoutAndWhatIsLeftOfTheDeadline() {
		RetryPolicy policy = RetryPolicy.builder()
			.deadline(Duration.ofSeconds(15))
			.attemptTimeout(Duration.ofSeconds(10))
			.deadlineReserve(Duration.ofSeconds(1))
			.build();
		RetryEngine engine = engine(policy, RetryBudget.unlimited(), 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.timeout(), Step.respond(200))
			.build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.trace()).extracting(AttemptRecord::timeout)
			.containsExactly(Duration.ofSeconds(10), Duration.ofMillis(3950));
		assertThat(result.trace().get(1).startedAt()).isEqualTo(Duration.ofMillis(10050));
	}

	@Test
	void aBackoffThatDoesNotFitTheDeadlineStopsInsteadOfShrinking() {
		RetryPolicy policy = RetryPolicy.builder()
			.deadline(Duration.ofSeconds(2))
			.backoff(new Backoff(Duration.ofSeconds(4), Duration.ofSeconds(4)))
			.build();
		RetryEngine engine = engine(policy, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		Decision decision = operation.afterAttempt(response(503));
		assertThat(decision).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE));
	}

	@Test
	void theDeadlineIsRecheckedBeforeTheAttempt() {
		RetryPolicy policy = RetryPolicy.builder().deadline(Duration.ofSeconds(2)).build();
		RetryEngine engine = engine(policy, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		Decision.Retry retry = (Decision.Retry) operation.afterAttempt(response(503));
		this.sim.clock.advance(Duration.ofMillis(1_950));
		assertThat(this.sim.clock.read()).isGreaterThan(retry.notBeforeNanos());
		assertThat(operation.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.DEADLINE_EXCEEDED));
		assertThat(operation.attempts()).isEqualTo(1);
	}

	@Test
	void callingBeforeTheRetryInstantIsABug() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		operation.afterAttempt(response(503));
		assertThatIllegalStateException().isThrownBy(operation::beforeAttempt).withMessageContaining("not-before");
		assertThatIllegalStateException().isThrownBy(() -> operation.afterAttempt(response(200)))
			.withMessageContaining("no attempt in flight");
	}

	// Attempts and total wait

	@Test
	void maxAttemptsCountsRequestsSoFourAttemptsAreThreeRetries() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.1, 0.1, 0.1);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).thenRepeat(Step.respond(503)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED);
		assertThat(transport.requests()).hasSize(4);
	}

	@Test
	void aWaitPastTheTotalWaitCapStops() {
		RetryPolicy policy = RetryPolicy.builder()
			.totalWait(Duration.ofMillis(250))
			.maxAttempts(10)
			.backoff(new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1)))
			.build();
		RetryEngine engine = engine(policy, RetryBudget.unlimited(), 0.5, 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).thenRepeat(Step.respond(503)).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, transport.attempt("GET", "/", ""));
		assertThat(result.outcome()).isEqualTo(Outcome.TOTAL_WAIT_EXCEEDED);
		assertThat(result.totalWait()).isEqualTo(Duration.ofMillis(100));
		assertThat(result.attempts()).isEqualTo(2);
	}

	// Stop ordering

	@Test
	void cancelledComesBeforeDeadlineAndDeadlineBeforeNotRetryable() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited());
		long now = this.sim.clock.read();
		OperationState pastDeadlineAndCancelled = new OperationState(OperationSpec.of("GET"), 1, now, now,
				Duration.ZERO, true);
		assertThat(engine.decide(pastDeadlineAndCancelled, response(404)))
			.isInstanceOfSatisfying(Decision.Stop.class, (stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.CANCELLED));
		OperationState pastDeadline = new OperationState(OperationSpec.of("GET"), 1, now, now, Duration.ZERO);
		assertThat(engine.decide(pastDeadline, response(404))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.DEADLINE_EXCEEDED));
		assertThat(engine.decide(pastDeadline, response(200))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.SUCCESS));
	}

	@Test
	void notReplaySafeComesBeforeAttemptsAndAttemptsBeforeTheWaitChecks() {
		RetryPolicy policy = RetryPolicy.builder().maxAttempts(2).totalWait(Duration.ZERO).build();
		RetryEngine engine = engine(policy, budget(0));
		long now = this.sim.clock.read();
		long deadline = now + Duration.ofSeconds(30).toNanos();
		OperationState last = new OperationState(OperationSpec.of("POST"), 2, now, deadline, Duration.ZERO);
		assertThat(engine.decide(last, failure(FailureKind.TIMED_OUT))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN));
		OperationState lastGet = new OperationState(OperationSpec.of("GET"), 2, now, deadline, Duration.ZERO);
		assertThat(engine.decide(lastGet, response(503))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED));
	}

	@Test
	void totalWaitComesBeforeTheBudgetAndTheBudgetIsPeekedNotSpent() {
		TokenBucketRetryBudget empty = budget(0);
		RetryPolicy noWaiting = RetryPolicy.builder().totalWait(Duration.ZERO).build();
		long now = this.sim.clock.read();
		OperationState first = new OperationState(OperationSpec.of("GET"), 1, now,
				now + Duration.ofSeconds(30).toNanos(), Duration.ZERO);
		assertThat(engine(noWaiting, empty, 0.5).decide(first, response(503)))
			.isInstanceOfSatisfying(Decision.Stop.class,
					(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.TOTAL_WAIT_EXCEEDED));
		assertThat(engine(RetryPolicy.DEFAULTS, empty, 0.5).decide(first, response(503)))
			.isInstanceOfSatisfying(Decision.Stop.class,
					(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED));
		TokenBucketRetryBudget one = budget(1);
		assertThat(engine(RetryPolicy.DEFAULTS, one, 0.5).decide(first, response(503))).isInstanceOf(Decision.Retry.class);
		assertThat(one.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(1);
	}

	// Rule 6: the budget, from the operation's side

	@Test
	void theRetryTokenIsTakenWhenTheRetryIsSentFirstSuccessesDepositAndARetriedSuccessGivesItBack() {
		TokenBucketRetryBudget budget = budget(2);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, budget, 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		Decision.Retry retry = (Decision.Retry) operation.afterAttempt(response(503));
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(2);
		this.sim.clock.advance(retry.delay());
		assertThat(operation.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(1);
		assertThat(operation.trace()).hasSize(1);
		RetryOperation second = engine.start(OperationSpec.of("GET"), Cancellation.never());
		second.beforeAttempt();
		second.afterAttempt(response(200));
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).as("a first success deposits")
			.isEqualTo(1.2);
		operation.afterAttempt(response(200));
		assertThat(operation.trace().get(1).tokensBefore()).isEqualTo(2);
		assertThat(operation.trace().get(1).tokensAfter()).isEqualTo(1);
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER))
			.as("a retried success gives its token back, never beyond capacity")
			.isEqualTo(2);
	}

	@Test
	void aRetryThatFailsAgainKeepsItsTokenSpent() {
		TokenBucketRetryBudget budget = budget(2);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(2).build(), budget, 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		Decision.Retry retry = (Decision.Retry) operation.afterAttempt(response(503));
		this.sim.clock.advance(retry.delay());
		operation.beforeAttempt();
		assertThat(operation.afterAttempt(response(503))).isInstanceOfSatisfying(Decision.Stop.class,
				(stop) -> assertThat(stop.outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED));
		assertThat(budget.providerTokens(OperationSpec.DEFAULT_PROVIDER)).isEqualTo(1);
	}

	@Test
	void anEmptyBudgetAtSendTimeEndsWithoutAnotherAttempt() {
		TokenBucketRetryBudget budget = budget(1);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, budget, 0.5, 0.5, 0.5);
		RetryOperation a = engine.start(OperationSpec.of("GET"), Cancellation.never());
		RetryOperation b = engine.start(OperationSpec.of("GET"), Cancellation.never());
		a.beforeAttempt();
		b.beforeAttempt();
		Decision.Retry retryA = (Decision.Retry) a.afterAttempt(response(503));
		assertThat(b.afterAttempt(response(503))).isInstanceOf(Decision.Retry.class);
		this.sim.clock.advance(retryA.delay());
		assertThat(a.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		// issue 17: while a's retry holds the only token in flight, b waits for its answer rather than giving up
		assertThat(b.beforeAttempt()).isInstanceOfSatisfying(Permit.Wait.class,
				(wait) -> assertThat(wait.reason()).isEqualTo(GateHold.BUDGET));
		a.afterAttempt(response(503));
		this.sim.clock.advance(Duration.ofMillis(10));
		assertThat(b.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED));
		assertThat(b.attempts()).isEqualTo(1);
		assertThat(events(RefusalEvent.class)).filteredOn(RefusalEvent::isBudgetRefusal).hasSize(2);
	}

	// Rule 7 and the operation's lifecycle

	@Test
	void cancelIsIdempotentAndTheFinishedEventIsEmittedOnce() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		operation.afterAttempt(response(503));
		Decision.Stop first = operation.cancel();
		assertThat(first.outcome()).isEqualTo(Outcome.CANCELLED);
		assertThat(operation.cancel()).isSameAs(first);
		assertThat(operation.stop(Outcome.NOT_RETRYABLE, "late")).isSameAs(first);
		assertThat(operation.beforeAttempt()).isEqualTo(new Permit.Refused(first));
		assertThat(events(OperationFinishedEvent.class)).singleElement()
			.satisfies((finished) -> assertThat(finished.outcome()).isEqualTo(Outcome.CANCELLED));
	}

	@Test
	void aCancellationFiredElsewhereStopsTheNextAttempt() {
		Cancellation cancellation = Cancellation.create();
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited(), 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), cancellation);
		operation.beforeAttempt();
		Decision.Retry retry = (Decision.Retry) operation.afterAttempt(response(503));
		cancellation.cancel();
		this.sim.clock.advance(retry.delay());
		assertThat(operation.beforeAttempt()).isInstanceOfSatisfying(Permit.Refused.class,
				(refused) -> assertThat(refused.stop().outcome()).isEqualTo(Outcome.CANCELLED));
	}

	@Test
	void adaptersCanEndAnOperationThemselves() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited());
		RetryOperation operation = engine.start(OperationSpec.of("POST"), Cancellation.never());
		operation.beforeAttempt();
		Decision.Stop stop = operation.stop(Outcome.NOT_RETRYABLE, "streaming body cannot be replayed");
		assertThat(operation.outcome()).contains(Outcome.NOT_RETRYABLE);
		assertThat(operation.trace()).singleElement().satisfies((record) -> assertThat(record.outcome()).isEmpty());
		assertThat(stop.reason()).isEqualTo("streaming body cannot be replayed");
	}

	@Test
	void aThrowingListenerDoesNotBreakTheOperation() {
		List<String> seen = new ArrayList<>();
		RetryListener throwing = new RetryListener() {
			@Override
			public void onAttempt(AttemptEvent event) {
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void onOperationFinished(OperationFinishedEvent event) {
				throw new IllegalStateException("listener bug");
			}
		};
		RetryListener recording = new RetryListener() {
			@Override
			public void onAttempt(AttemptEvent event) {
				seen.add("attempt " + event.attempt());
			}

			@Override
			public void onOperationFinished(OperationFinishedEvent event) {
				seen.add("finished " + event.outcome());
			}
		};
		RetryEngine engine = RetryEngine.builder()
			.ticker(this.sim.clock)
			.listener(RetryListener.composite(List.of(throwing, recording)))
			.build();
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		operation.beforeAttempt();
		assertThat(operation.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
		assertThat(seen).containsExactly("attempt 1", "finished SUCCESS");
		RetryEngine alone = RetryEngine.builder().ticker(this.sim.clock).listener(throwing).build();
		RetryOperation other = alone.start(OperationSpec.of("GET"), Cancellation.never());
		assertThat(other.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		assertThat(other.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
	}

	@Test
	void eventsCarryWhatMetricsNeed() {
		TokenBucketRetryBudget budget = budget(3);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, budget, 0.5);
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock)
			.then(Step.respond(503), Step.respond(200))
			.build();
		this.sim.runner(engine)
			.run(OperationSpec.of("GET").withProvider("payments"), SimResponse.ADAPTER,
					transport.attempt("GET", "/", ""));
		assertThat(events(AttemptEvent.class)).extracting(AttemptEvent::kind)
			.containsExactly(AttemptKind.FIRST, AttemptKind.RETRY);
		assertThat(events(AttemptEvent.class)).allSatisfy(
				(event) -> assertThat(event.spec().provider()).isEqualTo("payments"));
		assertThat(events(AttemptEvent.class).get(1).tokensBefore()).isEqualTo(3);
		assertThat(events(AttemptEvent.class).get(1).tokensAfter()).isEqualTo(2);
		RetryScheduledEvent scheduled = events(RetryScheduledEvent.class).get(0);
		assertThat(scheduled.source()).isEqualTo(DelaySource.BACKOFF);
		assertThat(scheduled.draw()).map(BackoffDraw::ceiling).contains(Duration.ofMillis(100));
		assertThat(scheduled.delay()).isEqualTo(Duration.ofMillis(50));
		assertThat(scheduled.remainingDeadline()).isEqualTo(Duration.ofMillis(29_950));
		OperationFinishedEvent finished = events(OperationFinishedEvent.class).get(0);
		assertThat(finished.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(finished.attempts()).isEqualTo(2);
		assertThat(finished.retries()).isEqualTo(1);
		assertThat(finished.totalWait()).isEqualTo(Duration.ofMillis(50));
		assertThat(finished.elapsed()).isEqualTo(Duration.ofMillis(50));
	}

	@Test
	void runnerEndsAnOperationWhoseAttemptThrowsSomethingOtherThanAnIoFailure() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, RetryBudget.unlimited());
		RetryRunner.Result<SimResponse> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), SimResponse.ADAPTER, (context) -> {
				throw new IllegalArgumentException("bad request body");
			});
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.failure()).containsInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void defaultFailureClassifierMapsTheJdksExceptions() {
		RetryRunner.FailureClassifier classifier = RetryRunner.defaultFailureClassifier();
		assertThat(classifier.classify(new ConnectException())).contains(FailureKind.NOT_SENT);
		assertThat(classifier.classify(new SocketTimeoutException())).contains(FailureKind.TIMED_OUT);
		assertThat(classifier.classify(new IOException())).contains(FailureKind.OUTCOME_UNKNOWN);
		assertThat(classifier.classify(new IllegalStateException())).isEmpty();
	}

}
