package io.github.retryafter.pacing;

/**
 * Why a provider's gate holds a request back.
 */
public enum GateHold {

	/** The provider named an instant in a {@code Retry-After} and it has not come yet. */
	COOLDOWN,

	/** The request has a reserved slot in the provider's adaptive rate and the slot has not come yet. */
	RATE

}
