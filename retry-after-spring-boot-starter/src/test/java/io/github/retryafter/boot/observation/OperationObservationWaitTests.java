package io.github.retryafter.boot.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule every adapter's waits go through (RestClient, WebClient, OkHttp): one event per wait before an attempt,
 * told when it begins; the calls that follow until the next attempt are that wait going on.
 */
class OperationObservationWaitTests {

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final OperationObservation operation;

	OperationObservationWaitTests() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onEvent(Observation.Event event, Observation.Context context) {
				OperationObservationWaitTests.this.events.add(event.getContextualName());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		this.operation = new RetryAfterObservations(registry, null, null).start("payments", "GET", "localhost", null);
	}

	@Test
	void aGateThatHoldsAgainAndAgainBeforeTheFirstAttemptIsOneWait() {
		this.operation.waiting(Duration.ofMillis(200), "GATE");
		this.operation.waiting(Duration.ofMillis(10), "GATE");
		this.operation.waiting(Duration.ofMillis(20), "GATE");
		this.operation.attempt(1, (name, value) -> {
		});
		assertThat(this.events).containsExactly("wait 0.200s (GATE)");
	}

	@Test
	void eachAttemptEndsTheWaitBeforeIt() {
		this.operation.attempt(1, (name, value) -> {
		});
		this.operation.waiting(Duration.ofSeconds(1), "RETRY_AFTER");
		this.operation.waiting(Duration.ofMillis(300), "GATE");
		this.operation.attempt(2, (name, value) -> {
		});
		this.operation.waiting(Duration.ofMillis(400), "BACKOFF");
		this.operation.attempt(3, (name, value) -> {
		});
		assertThat(this.events).containsExactly("wait 1.000s (RETRY_AFTER)", "wait 0.400s (BACKOFF)");
	}

	@Test
	void aHoldUnderAMillisecondDoesNotStandForTheLongerOneAfterIt() {
		this.operation.waiting(Duration.ofNanos(300_000), "GATE");
		this.operation.waiting(Duration.ofMillis(50), "GATE");
		assertThat(this.events).containsExactly("wait 0.050s (GATE)");
	}

}
