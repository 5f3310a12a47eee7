package io.github.retryafter.pacing;

/**
 * What a request does when its provider's gate is cooling down after a {@code Retry-After}.
 */
public enum PacingMode {

	/**
	 * Wait for the gate to open, as long as the operation's deadline leaves room for a useful attempt afterwards;
	 * otherwise stop with {@link io.github.retryafter.engine.Outcome#PROVIDER_COOLING_DOWN}. After the cooldown,
	 * requests are released through the provider's adaptive rate.
	 */
	HOLD,

	/**
	 * Stop with {@link io.github.retryafter.engine.Outcome#PROVIDER_COOLING_DOWN} at once instead of waiting for a
	 * cooldown; the adaptive rate still paces requests once the gate is open.
	 */
	FAIL_FAST,

	/**
	 * No gate and no rate: each operation honours only its own {@code Retry-After}, as without pacing.
	 */
	OFF

}
