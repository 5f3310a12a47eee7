package io.github.retryafter.boot.fleet;

/**
 * Supplies the fleet's status to the Actuator endpoint and the health contributor, which need no Redis classes to
 * read it.
 */
@FunctionalInterface
public interface FleetStatusProvider {

	/**
	 * Returns the fleet's status now.
	 * @return the status
	 */
	FleetStatus fleetStatus();

}
