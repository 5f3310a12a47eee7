package io.github.retryafter.boot.okhttp;

import java.time.Duration;
import java.util.function.BiConsumer;

import okhttp3.Request;

import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.observation.RetryAfterObservations.AttemptObservation;
import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.okhttp.CallObserver;

/**
 * The OkHttp interceptor's calls observed as the Spring adapters observe theirs: one {@code retry.after.operation}
 * per call, nested in the registry's current observation, and one {@code retry.after.attempt} per attempt inside it,
 * whose trace context goes into the attempt's request headers. Nothing is made when nothing observes. Thread-safe.
 */
final class ObservedCalls implements CallObserver {

	private final RetryAfterObservations observations;

	ObservedCalls(RetryAfterObservations observations) {
		this.observations = observations;
	}

	@Override
	public Operation start(String provider, Request request) {
		OperationObservation operation = this.observations.start(provider, request.method(), request.url().host(),
				null);
		return operation.isObserved() ? new Observed(operation) : Operation.NONE;
	}

	private record Observed(OperationObservation operation) implements Operation {

		@Override
		public Attempt attempt(int attempt, BiConsumer<String, String> headers) {
			AttemptObservation observation = this.operation.attempt(attempt, headers);
			return new Attempt() {

				@Override
				public void response(int status) {
					observation.response(status);
				}

				@Override
				public void failure(Throwable failure) {
					observation.failure(failure);
				}

				@Override
				public void stop() {
					observation.stop();
				}

			};
		}

		@Override
		public void waiting(Duration delay, String source) {
			this.operation.waiting(delay, source);
		}

		@Override
		public void ended(Outcome outcome, int attempts) {
			this.operation.ended(outcome, attempts);
		}

		@Override
		public void stop() {
			this.operation.stop();
		}

	}

}
