package io.github.retryafter.fleet;

import java.util.Objects;

import io.github.retryafter.engine.CooldownEndedEvent;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * Pushes a provider's gate to the fleet as soon as it may have closed: after every retry planned from a
 * {@code Retry-After} and every refusal that carried one (a hint too long to wait for still closes the gate); and
 * when a probe's answer ends a cooldown, so the fleet's instances holding behind that probe go. It only asks the
 * {@link SharedCooldown} to publish, which hands the work to the store's thread: no I/O on the calling thread.
 * Thread-safe.
 */
public final class SharedCooldownListener implements RetryListener {

	private final SharedCooldown cooldown;

	/**
	 * Creates the listener.
	 * @param cooldown the fleet's cooldown
	 */
	public SharedCooldownListener(SharedCooldown cooldown) {
		this.cooldown = Objects.requireNonNull(cooldown, "cooldown");
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		if (event.plan().isPresent()) {
			this.cooldown.publish();
		}
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		this.cooldown.publish();
	}

	@Override
	public void onCooldownEnded(CooldownEndedEvent event) {
		// the probe after a cooldown has its answer: the fleet's instances holding behind it go
		this.cooldown.publish();
	}

}
