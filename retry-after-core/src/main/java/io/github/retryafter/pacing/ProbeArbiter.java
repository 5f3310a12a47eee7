package io.github.retryafter.pacing;

/**
 * Decides which instance of a fleet sends the probe after a cooldown the fleet shares, so the provider coming back
 * meets one request from the whole fleet. A gate with an arbiter asks it when its first request after a cooldown is
 * ready ({@link #request}), holds its requests meanwhile, and then either probes ({@link FleetGate#probeGranted()})
 * or follows another instance's probe ({@link FleetGate#followProbe}). A fleet store implements it; a gate without
 * one probes at once.
 */
@FunctionalInterface
public interface ProbeArbiter {

	/**
	 * Asks which instance probes after {@code gate}'s cooldown. Must not block: answer later, on another thread, with
	 * {@link FleetGate#probeGranted()} or {@link FleetGate#followProbe}, and grant the probe when the fleet cannot be
	 * asked (the gate then probes for itself, as without an arbiter).
	 * @param gate the fleet side of the gate whose first request after its cooldown is ready
	 */
	void request(FleetGate gate);

}
