package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a fleet store's connection does for its {@link FleetRuntime}: the probe that says whether the store answers,
 * and the members' heartbeat. The runtime calls both on its worker only; they may block for the store's own bound
 * and need not be thread-safe beyond that.
 */
public interface FleetLink {

	/**
	 * Connects if needed and makes one round trip within the store's bound (Redis: {@code PING}, the scripts loaded,
	 * one script run). Returns normally only when the store answered as the fleet expects.
	 * @throws Exception what went wrong: the runtime then stays on, or falls back to, its local state
	 */
	void probe() throws Exception;

	/**
	 * Records this instance as a member of the fleet now, forgets the members not seen within {@code window}, and
	 * counts the rest, this instance included.
	 * @param window how long an instance counts as a member after its last heartbeat
	 * @return the count, an empty count when the store answered with something that is not one (a key the fleet did
	 * not write); empty when the store did not answer (a failure the store reported with
	 * {@link FleetRuntime#fallBack}, or the runtime not shared)
	 */
	Optional<OptionalLong> countMembers(Duration window);

	/**
	 * Names one of the store's keys as the logs show it, so an operator can find it.
	 * @param kind the key's kind: {@code budget}, {@code cooldown}, {@code backlog} or {@code members}
	 * @param name the bucket's key name or the provider
	 * @return the key's name in the store; {@code kind:name} by default
	 */
	default String keyName(String kind, String name) {
		return kind + ":" + name;
	}

}
