package io.github.retryafter.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code retry.after.operation} observation; declare a bean of this type to replace
 * {@link DefaultRetryAfterOperationObservationConvention}.
 */
public interface RetryAfterOperationObservationConvention extends ObservationConvention<RetryAfterOperationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RetryAfterOperationContext;
	}

}
