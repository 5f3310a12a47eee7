package io.github.retryafter.boot.metrics;

import java.util.Objects;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;

/**
 * Binds the fleet's meters:
 * <table>
 * <caption>Meters</caption>
 * <tr><th>meter</th><th>type</th><th>tags</th></tr>
 * <tr><td>{@value #FALLBACKS}</td><td>counter</td><td>store ({@code redis}); switches from the store to the
 * local budget and cooldown because the store timed out or failed</td></tr>
 * <tr><td>{@value #SHARED}</td><td>gauge</td><td>store; 1 while retry decisions go to the store, 0 while they are
 * local</td></tr>
 * <tr><td>{@value #KEY_FALLBACKS}</td><td>counter</td><td>store; times a key fell back to local state because its
 * value was not the fleet's (garbage, a wrong type)</td></tr>
 * <tr><td>{@value #INSTANCES}</td><td>gauge</td><td>store; the fleet's instances this one counted last, each
 * deciding locally on its share of a bucket</td></tr>
 * </table>
 * All read the fleet's {@link FleetStatus}, so any store's fleet is measured alike. Thread-safe.
 */
public final class RetryAfterFleetMetrics implements MeterBinder {

	/** Fallbacks from Redis to local state. */
	public static final String FALLBACKS = "retry.after.fleet.fallbacks";

	/** Whether the fleet's state is shared through its store right now. */
	public static final String SHARED = "retry.after.fleet.shared";

	/** Keys that fell back to local state because their value was not the fleet's. */
	public static final String KEY_FALLBACKS = "retry.after.fleet.key.fallbacks";

	/** The fleet's instances, as this one counted them last. */
	public static final String INSTANCES = "retry.after.fleet.instances";

	private final FleetStatusProvider fleet;

	/**
	 * Creates the binder.
	 * @param fleet the fleet's status
	 */
	public RetryAfterFleetMetrics(FleetStatusProvider fleet) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String store = this.fleet.fleetStatus().store();
		FunctionCounter.builder(FALLBACKS, this.fleet, (fleet) -> fleet.fleetStatus().fallbacks())
			.tag("store", store)
			.description("Times this instance fell back from the fleet's store to its local retry budget and cooldown")
			.register(registry);
		Gauge.builder(SHARED, this.fleet, (fleet) -> fleet.fleetStatus().shared() ? 1 : 0)
			.tag("store", store)
			.description("1 while retry decisions are shared through the fleet's store, 0 while this instance decides "
					+ "locally")
			.register(registry);
		FunctionCounter.builder(KEY_FALLBACKS, this.fleet, (fleet) -> fleet.fleetStatus().keyFallbacks())
			.tag("store", store)
			.description("Times a key of the fleet's store held a value the fleet did not write (garbage, a wrong type) "
					+ "and this instance decided for it locally")
			.register(registry);
		Gauge.builder(INSTANCES, this.fleet, (fleet) -> fleet.fleetStatus().instances())
			.tag("store", store)
			.description("Instances of the fleet this one counted last; each decides locally on its share of a bucket")
			.register(registry);
	}

}
