package io.github.retryafter.boot.fleet;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderCooldown;
import io.github.retryafter.engine.DelaySource;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * Feeds a {@link ProviderCooldown} from the engines: a retry planned from a usable {@code Retry-After} closes its
 * provider until the server's floor (the instant it named, measured from the response's receipt, without this
 * client's jitter). Does no I/O on the calling thread. Thread-safe.
 */
public final class FleetCooldownListener implements RetryListener {

	private final ProviderCooldown cooldown;

	private final Ticker ticker;

	/**
	 * Creates the listener.
	 * @param cooldown the cooldown to extend
	 * @param ticker the engines' monotonic clock
	 */
	public FleetCooldownListener(ProviderCooldown cooldown, Ticker ticker) {
		this.cooldown = Objects.requireNonNull(cooldown, "cooldown");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		if (event.source() != DelaySource.RETRY_AFTER || event.plan().isEmpty()) {
			return;
		}
		RetryPlan plan = event.plan().get();
		long receivedAt = plan.deadlineNanos() - plan.waitTime().toNanos();
		long remaining = receivedAt + plan.floor().toNanos() - this.ticker.read();
		if (remaining > 0) {
			this.cooldown.extend(event.spec().provider(), Duration.ofNanos(remaining));
		}
	}

}
