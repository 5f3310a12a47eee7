package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimRequest;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Issue 30 item 3: refusals safe to repeat. With a provider's {@code retry-refused-requests} on, a {@code POST} without
 * an idempotency key refused with one of the provider's refusal statuses is retried, because the provider refused it
 * before processing it; a timeout, a lost response or another {@code 5xx} still ends it as before.
 */
class RefusedRequestsTests {

	private static final RetryPolicy REFUSALS_RETRIED = RetryPolicy.DEFAULTS.toBuilder()
		.conventions(ProviderConventions.NONE.withRetryRefusedRequests(true).withRefusalStatuses(List.of(429, 529)))
		.build();

	private final Sim sim = new Sim();

	@Test
	void aPostRefusedWith429IsRetriedAfterTheHintWhenTheProviderSaysRefusalsWereNotProcessed() {
		ScriptedTransport transport = script(Step.respond(429, "Retry-After: 2"), Step.respond(200));

		RetryRunner.Result<SimResponse> result = run(REFUSALS_RETRIED, transport);

		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(transport.requests()).hasSize(2);
		assertThat(transport.requests()).extracting(SimRequest::body).containsExactly("{}", "{}");
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(2));
	}

	@Test
	void aRefusalStatusOutsideTheRetryableStatusesBecomesRetryable() {
		ScriptedTransport transport = script(Step.respond(529, "Retry-After: 1"), Step.respond(200));

		RetryRunner.Result<SimResponse> result = run(REFUSALS_RETRIED, transport);

		assertThat(RetryPolicy.DEFAULT_RETRYABLE_STATUSES).doesNotContain(529);
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(transport.requests()).hasSize(2);
	}

	@Test
	void withoutTheRuleAPostRefusedWith429IsSentOnce() {
		ScriptedTransport transport = script(Step.respond(429, "Retry-After: 2"), Step.respond(200));

		RetryRunner.Result<SimResponse> result = run(RetryPolicy.DEFAULTS, transport);

		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(transport.requests()).hasSize(1);
	}

	@Test
	void aPostAnsweredWithAnotherRetryableStatusIsStillSentOnce() {
		for (int status : List.of(500, 502, 503, 504)) {
			RetryPolicy policy = REFUSALS_RETRIED.toBuilder().retryableStatuses(Set.of(429, 500, 502, 503, 504)).build();
			ScriptedTransport transport = script(Step.respond(status, "Retry-After: 1"), Step.respond(200));

			RetryRunner.Result<SimResponse> result = run(policy, transport);

			assertThat(result.outcome()).as("status %d", status).isEqualTo(Outcome.NOT_RETRYABLE);
			assertThat(transport.requests()).as("status %d", status).hasSize(1);
		}
	}

	@Test
	void aTimeoutOrALostResponseOnAPostStillEndsOutcomeUnknown() {
		for (Step failure : List.of(Step.timeout(), Step.responseLost())) {
			ScriptedTransport transport = script(failure, Step.respond(200));

			RetryRunner.Result<SimResponse> result = run(REFUSALS_RETRIED, transport);

			assertThat(result.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
			assertThat(transport.requests()).hasSize(1);
		}
	}

	@Test
	void aBodyThatCannotBeSentAgainIsNeverSentAgainEvenAfterARefusal() {
		ScriptedTransport transport = script(Step.respond(429, "Retry-After: 1"), Step.respond(200));

		RetryRunner.Result<SimResponse> result = this.sim.runner(engine(REFUSALS_RETRIED))
			.run(OperationSpec.of("POST").withReplayable(false), SimResponse.ADAPTER,
					transport.attempt("POST", "/v1/chat/completions", "{}"));

		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(transport.requests()).hasSize(1);
	}

	@Test
	void badConventionsAreRefusedWithWhatWasWrong() {
		assertThatIllegalArgumentException().isThrownBy(() -> ProviderConventions.NONE.withRefusalStatuses(List.of(200)))
			.withMessage("refusalStatuses must hold 4xx or 5xx codes but contained 200 in [200]");
		assertThatIllegalArgumentException().isThrownBy(() -> ProviderConventions.NONE.withAttemptHeader("x retry"))
			.withMessage("attemptHeader must be an HTTP field name but was 'x retry'");
		assertThat(ProviderConventions.NONE.withAttemptHeader("x-stainless-retry-count").attemptHeader())
			.isEqualTo(Optional.of("x-stainless-retry-count"));
	}

	private ScriptedTransport script(Step... steps) {
		return ScriptedTransport.on(this.sim.clock).then(steps).build();
	}

	private RetryRunner.Result<SimResponse> run(RetryPolicy policy, ScriptedTransport transport) {
		return this.sim.runner(engine(policy))
			.run(OperationSpec.of("POST"), SimResponse.ADAPTER, transport.attempt("POST", "/v1/chat/completions", "{}"));
	}

	private RetryEngine engine(RetryPolicy policy) {
		return this.sim.engine(policy.toBuilder().hintMode(HintMode.EXACT).build(), ScriptedRandom.of(0.5),
				RetryBudget.unlimited());
	}

}
