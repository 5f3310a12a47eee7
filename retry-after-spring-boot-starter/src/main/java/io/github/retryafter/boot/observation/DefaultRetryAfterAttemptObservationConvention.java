package io.github.retryafter.boot.observation;

import io.micrometer.common.KeyValues;

/**
 * The default {@code retry.after.attempt} convention: low-cardinality keys {@code provider}, {@code method},
 * {@code status} (the status code, or {@code NONE} when no response arrived) and {@code exception} (the failure's
 * simple class name, or {@code none}); high-cardinality keys {@code server.address} and, from the second attempt on,
 * OpenTelemetry's {@code http.request.resend_count}. The contextual name (a span's name) is the method, as for
 * Spring's own HTTP client spans.
 */
public class DefaultRetryAfterAttemptObservationConvention implements RetryAfterAttemptObservationConvention {

	/** The observation's name, and the timer's when a meter registry is present. */
	public static final String NAME = "retry.after.attempt";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RetryAfterAttemptContext context) {
		return context.getOperation().getMethod();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryAfterAttemptContext context) {
		RetryAfterOperationContext operation = context.getOperation();
		String status = (context.getResponse() != null) ? Integer.toString(context.getResponse()) : "NONE";
		String exception = (context.getError() != null) ? context.getError().getClass().getSimpleName() : "none";
		return KeyValues.of("provider", operation.getProvider(), "method", operation.getMethod(), "status", status,
				"exception", exception);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RetryAfterAttemptContext context) {
		KeyValues values = KeyValues.of("server.address", context.getOperation().getHost());
		if (context.getResendCount() > 0) {
			values = values.and("http.request.resend_count", Integer.toString(context.getResendCount()));
		}
		return values;
	}

}
