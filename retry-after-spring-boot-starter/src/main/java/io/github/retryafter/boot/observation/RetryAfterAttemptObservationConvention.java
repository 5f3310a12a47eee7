package io.github.retryafter.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code retry.after.attempt} observation; declare a bean of this type to replace
 * {@link DefaultRetryAfterAttemptObservationConvention}.
 */
public interface RetryAfterAttemptObservationConvention extends ObservationConvention<RetryAfterAttemptContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RetryAfterAttemptContext;
	}

}
