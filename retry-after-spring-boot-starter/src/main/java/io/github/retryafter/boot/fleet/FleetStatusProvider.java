package io.github.retryafter.boot.fleet;

import java.util.function.Consumer;

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

	/**
	 * Calls {@code listener} with the fleet's status each time this instance falls back from the store to its local
	 * state (once per fallback, not per failed command), on the thread that noticed; a listener must not block.
	 * Does nothing by default, for a store that never falls back.
	 * @param listener told of each fallback; what it throws is logged and ignored
	 */
	default void onFallback(Consumer<FleetStatus> listener) {
	}

}
