package io.github.retryafter.boot.actuate;

import java.util.Objects;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;

/**
 * Health of the fleet-wide retry budget ({@code /actuator/health/retryAfterFleet}). Always {@code UP}: while Redis is
 * away the instance retries on its own local budget, which is degraded sharing, not an outage, and must not take the
 * instance out of a load balancer. The details say which: {@code state} is {@code REDIS}, {@code CONNECTING} or
 * {@code LOCAL_FALLBACK}, with the fallback count, the keys that fell back because their value was not the fleet's,
 * the fleet's instances and the last Redis error. Thread-safe.
 */
public final class RetryAfterFleetHealthIndicator implements HealthIndicator {

	private final FleetStatusProvider fleet;

	/**
	 * Creates the indicator.
	 * @param fleet the fleet
	 */
	public RetryAfterFleetHealthIndicator(FleetStatusProvider fleet) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
	}

	@Override
	public Health health() {
		FleetStatus status = this.fleet.fleetStatus();
		Health.Builder health = Health.up()
			.withDetail("store", status.store())
			.withDetail("state", status.state())
			.withDetail("keyPrefix", status.keyPrefix())
			.withDetail("fallbacks", status.fallbacks())
			.withDetail("keyFallbacks", status.keyFallbacks())
			.withDetail("instances", status.instances());
		status.lastError().ifPresent((error) -> health.withDetail("lastError", error));
		return health.build();
	}

}
