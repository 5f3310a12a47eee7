package io.github.retryafter.engine;

import java.util.Objects;

import io.github.retryafter.hint.RateLimitFields;

/**
 * A response carried a rate-limit field that pacing could not use, so it was ignored (see {@link RateLimitFields}):
 * the operation itself is unaffected, and the provider is paced as if the field were absent. Immutable and
 * thread-safe.
 *
 * @param spec the operation whose response carried it
 * @param attempt the attempt that got the response, from 1
 * @param problem which field, why (a code from a fixed set) and a sentence quoting it
 */
public record RateLimitFieldEvent(OperationSpec spec, int attempt, RateLimitFields.Problem problem) {

	/**
	 * Checks the arguments.
	 * @param spec the operation whose response carried it
	 * @param attempt the attempt that got the response, from 1
	 * @param problem which field, why (a code from a fixed set) and a sentence quoting it
	 */
	public RateLimitFieldEvent {
		Objects.requireNonNull(spec, "spec");
		Objects.requireNonNull(problem, "problem");
	}

}
