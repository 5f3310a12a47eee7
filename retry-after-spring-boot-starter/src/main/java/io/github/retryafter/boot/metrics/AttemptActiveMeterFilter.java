package io.github.retryafter.boot.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;

import io.github.retryafter.boot.observation.DefaultRetryAfterAttemptObservationConvention;

/**
 * Leaves out the long-task timer Micrometer's observation handler makes of each attempt's observation
 * ({@code retry.after.attempt.active}): an attempt in flight is always inside an operation in flight, which
 * {@code retry.after.operation.active} shows with its waits, and each attempt's length is {@code retry.after.attempt}
 * once it ends. Three series a provider fewer in a Prometheus scrape. Touches no other meter. The auto-configured
 * one is left out with Spring Boot's {@code management.metrics.enable.retry.after.attempt.active=true}. Stateless and
 * thread-safe.
 */
public final class AttemptActiveMeterFilter implements MeterFilter {

	/** The name of the meter left out. */
	public static final String ATTEMPT_ACTIVE = DefaultRetryAfterAttemptObservationConvention.NAME + ".active";

	/** Creates the filter. */
	public AttemptActiveMeterFilter() {
	}

	@Override
	public MeterFilterReply accept(Meter.Id id) {
		return ATTEMPT_ACTIVE.equals(id.getName()) ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
	}

}
