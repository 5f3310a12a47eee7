package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.PlanSource;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.test.ScriptedRandom;
import io.github.retryafter.test.ScriptedTransport;
import io.github.retryafter.test.ScriptedTransport.Step;
import io.github.retryafter.test.SimResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The vendor fields through the engine on a fake clock: the millisecond wait fields, and the should-retry verdicts,
 * which still meet replay safety. The waits are exact (hint mode {@code EXACT}); the requests counted are the ones the
 * scripted server saw.
 */
class VendorHintEngineTests {

	private static final HintFields VENDOR = HintFields.STANDARD.with(HintField.RETRY_AFTER_MS,
			HintField.X_MS_RETRY_AFTER_MS, HintField.X_SHOULD_RETRY, HintField.STRIPE_SHOULD_RETRY);

	private final Sim sim = new Sim();

	private static RetryPolicy policy(HintFields fields) {
		return RetryPolicy.builder()
			.hintMode(HintMode.EXACT)
			.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).fields(fields).build())
			.build();
	}

	private RetryRunner.Result<SimResponse> run(RetryPolicy policy, OperationSpec spec, Step... steps) {
		ScriptedTransport transport = ScriptedTransport.on(this.sim.clock).then(steps).build();
		RetryRunner.Result<SimResponse> result = this.sim.runner(this.sim.engine(policy, ScriptedRandom.of(0.5, 0.5)))
			.run(spec, SimResponse.ADAPTER, transport.attempt(spec.method(), "/v1/chat", ""));
		assertThat(transport.requests()).as("requests the server saw").hasSize(result.attempts());
		return result;
	}

	@Test
	void retryAfterMs2500WithRetryAfter1WaitsExactly2500Ms() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(429, "Retry-After: 1", "retry-after-ms: 2500"), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(2500));
		assertThat(result.trace().get(0).plan()).hasValueSatisfying((plan) -> {
			assertThat(plan.source()).isEqualTo(PlanSource.RETRY_AFTER_MS);
			assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.RETRY_AFTER,
					Optional.of(Duration.ofSeconds(1)), Optional.empty()));
		});
	}

	@Test
	void underTheStandardFieldsTheSameResponseWaitsTheRetryAftersOneSecond() {
		run(policy(HintFields.STANDARD), OperationSpec.of("GET"),
				Step.respond(429, "Retry-After: 1", "retry-after-ms: 2500"), Step.respond(200));
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(1));
	}

	@Test
	void xShouldRetryFalseOnA503EndsAfterOneAttemptSayingWhy() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(503, "Retry-After: 1", "x-should-retry: false"), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.reason()).contains("the provider said x-should-retry: false, so it is not retried");
		assertThat(this.sim.clock.sleeps()).isEmpty();
	}

	@Test
	void stripeShouldRetryTrueOnA409Retries() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(409, "Stripe-Should-Retry: true", "Retry-After: 2"), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(2));
	}

	@Test
	void aPermissionStillMeetsReplaySafetyAPostWithoutAKeyIsNotRetried() {
		RetryRunner.Result<SimResponse> unkeyed = run(policy(VENDOR), OperationSpec.of("POST"),
				Step.respond(409, "Stripe-Should-Retry: true"), Step.respond(200));
		assertThat(unkeyed.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(unkeyed.attempts()).isEqualTo(1);
		assertThat(unkeyed.reason()).contains("is not replay-safe");
		RetryRunner.Result<SimResponse> keyed = run(policy(VENDOR), OperationSpec.of("POST").withIdempotencyKey("k-1"),
				Step.respond(409, "Stripe-Should-Retry: true"), Step.respond(200));
		assertThat(keyed.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(keyed.attempts()).isEqualTo(2);
	}

	@Test
	void theStandardFieldsLeaveTheStatusToDecide() {
		RetryRunner.Result<SimResponse> vetoIgnored = run(policy(HintFields.STANDARD), OperationSpec.of("GET"),
				Step.respond(503, "Retry-After: 1", "x-should-retry: false"), Step.respond(200));
		assertThat(vetoIgnored.attempts()).isEqualTo(2);
		RetryRunner.Result<SimResponse> permissionIgnored = run(policy(HintFields.STANDARD), OperationSpec.of("GET"),
				Step.respond(409, "Stripe-Should-Retry: true"), Step.respond(200));
		assertThat(permissionIgnored.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(permissionIgnored.reason()).endsWith("is not retryable");
	}

	@Test
	void anInvalidVerdictIsReportedAndTheStatusDecides() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(503, "Retry-After: 1", "x-should-retry: False"), Step.respond(200));
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(1));
		assertThat(result.trace().get(0).refusedHint()).contains(RetryAfterError.INVALID_SHOULD_RETRY);
	}

	@Test
	void aVetoHoldsAgainstAPermissionInTheOtherField() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(429, "x-should-retry: true", "Stripe-Should-Retry: false"), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.reason()).contains("Stripe-Should-Retry: false");
	}

	@Test
	void aMillisecondWaitBeyondTheMaxWaitEndsWaitTooLongWithoutASecondRequest() {
		RetryRunner.Result<SimResponse> result = run(policy(VENDOR), OperationSpec.of("GET"),
				Step.respond(429, "Retry-After: 1", "x-ms-retry-after-ms: 40000"), Step.respond(200));
		assertThat(result.outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		assertThat(result.reason()).contains("x-ms-retry-after-ms \"40000\" asks for at least 40000 ms");
		assertThat(this.sim.clock.sleeps()).isEmpty();
		assertThat(List.of(result.attempts())).containsExactly(1);
	}

}
