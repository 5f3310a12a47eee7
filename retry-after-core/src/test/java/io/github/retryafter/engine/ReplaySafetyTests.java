package io.github.retryafter.engine;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay-safety rule, asked by an adapter that learns while sending that its body cannot be replayed: it refuses
 * only what the engine would retry, and words its refusal as the engine words a body it knew of.
 */
class ReplaySafetyTests {

	private final RetryEngine engine = RetryEngine.builder().policy(RetryPolicy.DEFAULTS).build();

	@Test
	void aRetryableOutcomeOfAReplaySafeRequestIsRefusedWithWhyAndWhatToDo() {
		RetryOperation operation = started(OperationSpec.of("PUT"));

		Optional<Decision.Stop> stop = ReplaySafety.refuseUnreplayable(this.engine, operation, status(503),
				"the request body is larger than 10 bytes");

		assertThat(stop).hasValueSatisfying((refused) -> {
			assertThat(refused.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
			assertThat(refused.reason()).isEqualTo("the request body cannot be replayed; status 503 on attempt 1 is "
					+ "not retried: the request body is larger than 10 bytes");
		});
		assertThat(operation.outcome()).contains(Outcome.NOT_RETRYABLE);
	}

	@Test
	void whatTheEngineWouldNotRetryIsLeftToTheEngine() {
		RetryOperation post = started(OperationSpec.of("POST"));
		RetryOperation put = started(OperationSpec.of("PUT"));

		assertThat(ReplaySafety.refuseUnreplayable(this.engine, post, status(503), "why")).as("not replay-safe")
			.isEmpty();
		assertThat(ReplaySafety.refuseUnreplayable(this.engine, put, status(404), "why")).as("not retryable")
			.isEmpty();
		assertThat(ReplaySafety.refuseUnreplayable(this.engine, put, status(200), "why")).as("a success").isEmpty();
		assertThat(put.outcome()).isEmpty();
	}

	@Test
	void theEnginesOwnRefusalOfABodyItKnewOfTakesTheAdaptersWhy() {
		Decision.Stop engines = ReplaySafety
			.refusal(RetryPolicy.DEFAULTS, OperationSpec.of("PUT").withReplayable(false), status(503), 2)
			.orElseThrow();
		Decision.Stop other = new Decision.Stop(Outcome.NOT_RETRYABLE, "status 404 on attempt 1 is not retryable");

		assertThat(ReplaySafety.explained(engines, "it was streamed").reason())
			.isEqualTo("the request body cannot be replayed; status 503 on attempt 2 is not retried: it was streamed");
		assertThat(ReplaySafety.explained(other, "it was streamed")).isSameAs(other);
	}

	private RetryOperation started(OperationSpec spec) {
		RetryOperation operation = this.engine.start(spec);
		assertThat(operation.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		return operation;
	}

	private static AttemptOutcome status(int status) {
		return new AttemptOutcome.Response(status, HeaderSource.of(Map.of()), 0, 0);
	}

}
