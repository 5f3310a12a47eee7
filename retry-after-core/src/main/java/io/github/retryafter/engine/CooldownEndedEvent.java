package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.Scope;

/**
 * A gate's cooldown ended: the request that probed the provider after it got an answer that did not close the gate
 * again, so the gate is open to the paced rate. Reported once per cooldown, by the operation that probed; a cooldown
 * that ends while no request comes is reported when the next one probes.
 *
 * @param spec the operation that probed
 * @param scope whose gate opened: the provider, or one of its origins
 * @param attempt the probing attempt's number
 * @param elapsed time since the probing operation started
 */
public record CooldownEndedEvent(OperationSpec spec, Scope scope, int attempt, Duration elapsed) {

	/**
	 * Checks the arguments.
	 * @param spec the operation that probed
	 * @param scope whose gate opened: the provider, or one of its origins
	 * @param attempt the probing attempt's number
	 * @param elapsed time since the probing operation started
	 */
	public CooldownEndedEvent {
		Objects.requireNonNull(spec, "spec");
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(elapsed, "elapsed");
	}

}
