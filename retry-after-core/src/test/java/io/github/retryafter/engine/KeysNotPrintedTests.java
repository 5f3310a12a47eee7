package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32 (seen while reading): the records a log or a debugger prints held the idempotency key, which may be a
 * secret (a payment's key, a user's token).
 */
class KeysNotPrintedTests {

	@Test
	void anOperationAndItsAttemptEventSayWhetherAKeyIsPresentNotWhatItIs() {
		OperationSpec spec = OperationSpec.of("POST").withIdempotencyKey("pay-4242-secret");
		AttemptEvent event = new AttemptEvent(spec, 1, AttemptKind.FIRST, spec.idempotencyKey(), Duration.ofSeconds(1),
				Duration.ofSeconds(9), 20, 20, Duration.ZERO);
		assertThat(spec.toString()).doesNotContain("pay-4242-secret").contains("idempotencyKey=present")
			.contains("method=POST");
		assertThat(event.toString()).doesNotContain("pay-4242-secret").contains("idempotencyKey=present");
		assertThat(OperationSpec.of("GET").toString()).contains("idempotencyKey=none");
	}

}
