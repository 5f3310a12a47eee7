package io.github.retryafter.pacing;

/**
 * Why a request is held back before it is sent: by the provider's gate, or by the retry budget.
 */
public enum GateHold {

	/** The provider named an instant in a {@code Retry-After} and it has not come yet. */
	COOLDOWN,

	/** The request has a reserved slot in the provider's adaptive rate and the slot has not come yet. */
	RATE,

	/**
	 * The request is a retry that found the retry budget empty while other retries hold its tokens in flight: it waits
	 * for their answers (a success gives its token back) rather than giving up while tokens may come back.
	 */
	BUDGET

}
