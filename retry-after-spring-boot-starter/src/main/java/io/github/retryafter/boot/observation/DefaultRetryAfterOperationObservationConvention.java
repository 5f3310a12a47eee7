package io.github.retryafter.boot.observation;

import io.micrometer.common.KeyValues;

/**
 * The default {@code retry.after.operation} convention: low-cardinality keys {@code provider}, {@code method} and
 * {@code outcome} (an {@link io.github.retryafter.engine.Outcome} name, {@code UNKNOWN} when the operation ended
 * without one); high-cardinality keys {@code attempts} and {@code server.address} (the host, never the path).
 */
public class DefaultRetryAfterOperationObservationConvention implements RetryAfterOperationObservationConvention {

	/** The observation's name, and the timer's when a meter registry is present. */
	public static final String NAME = "retry.after.operation";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RetryAfterOperationContext context) {
		return "retry " + context.getMethod();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryAfterOperationContext context) {
		String outcome = (context.getOutcome() != null) ? context.getOutcome().name() : "UNKNOWN";
		return KeyValues.of("provider", context.getProvider(), "method", context.getMethod(), "outcome", outcome);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RetryAfterOperationContext context) {
		return KeyValues.of("attempts", Integer.toString(context.getAttempts()), "server.address", context.getHost());
	}

}
