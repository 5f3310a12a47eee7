package io.github.retryafter.boot.metrics;

import java.util.Map;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;

import io.github.retryafter.boot.observation.DefaultRetryAfterAttemptObservationConvention;
import io.github.retryafter.boot.observation.DefaultRetryAfterOperationObservationConvention;
import io.github.retryafter.boot.observation.RetryAfterObservations;

/**
 * Gives the meters Micrometer's observation handler makes of the starter's observations (which carry no description)
 * a description, so a Prometheus scrape's {@code # HELP} line says what each measures. Renames nothing and touches no
 * other meter, nor a meter that has a description already. Stateless and thread-safe.
 */
public final class ObservationMeterDescriptions implements MeterFilter {

	private static final String OPERATION = DefaultRetryAfterOperationObservationConvention.NAME;

	private static final String ATTEMPT = DefaultRetryAfterAttemptObservationConvention.NAME;

	private static final Map<String, String> DESCRIPTIONS = Map.of(OPERATION,
			"Logical operations finished (one per call, waits included), by outcome",
			OPERATION + ".active", "Logical operations in progress, waits included",
			OPERATION + "." + RetryAfterObservations.WAIT_EVENT,
			"Waits operations took, one per wait before an attempt (a Retry-After, a backoff or the provider's gate),"
					+ " however often the gate held the operation again meanwhile",
			ATTEMPT, "HTTP attempts, from sending until the status arrives, by status or exception");

	@Override
	public Meter.Id map(Meter.Id id) {
		String description = DESCRIPTIONS.get(id.getName());
		if (description == null || id.getDescription() != null) {
			return id;
		}
		return new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
	}

}
