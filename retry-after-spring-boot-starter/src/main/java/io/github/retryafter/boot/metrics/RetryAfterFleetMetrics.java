package io.github.retryafter.boot.metrics;

import java.util.Objects;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.retryafter.boot.fleet.RedisFleet;

/**
 * Binds the fleet's meters:
 * <table>
 * <caption>Meters</caption>
 * <tr><th>meter</th><th>type</th><th>tags</th></tr>
 * <tr><td>{@value #FALLBACKS}</td><td>counter</td><td>store ({@code redis}); switches from Redis to the local
 * budget and cooldown because Redis timed out or failed</td></tr>
 * <tr><td>{@value #SHARED}</td><td>gauge</td><td>store; 1 while retry decisions go to Redis, 0 while they are
 * local</td></tr>
 * </table>
 * Thread-safe.
 */
public final class RetryAfterFleetMetrics implements MeterBinder {

	/** Fallbacks from Redis to local state. */
	public static final String FALLBACKS = "retry.after.fleet.fallbacks";

	/** Whether the fleet's state is shared through Redis right now. */
	public static final String SHARED = "retry.after.fleet.shared";

	private final RedisFleet fleet;

	/**
	 * Creates the binder.
	 * @param fleet the fleet
	 */
	public RetryAfterFleetMetrics(RedisFleet fleet) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder(FALLBACKS, this.fleet, RedisFleet::fallbacks)
			.tag("store", "redis")
			.description("Times this instance fell back from Redis to its local retry budget and cooldown")
			.register(registry);
		Gauge.builder(SHARED, this.fleet, (fleet) -> fleet.onRedis() ? 1 : 0)
			.tag("store", "redis")
			.description("1 while retry decisions are shared through Redis, 0 while this instance decides locally")
			.register(registry);
	}

}
