package io.github.retryafter.engine;

import java.lang.System.Logger.Level;

/**
 * The listener {@link RetryListener#composite} returns: each event goes to every member in order, and a member that
 * throws is logged and skipped. Plain loops over an array, so an event is delivered without allocating, as it is on
 * every request. Thread-safe if each member is.
 */
final class CompositeListener implements RetryListener {

	private final RetryListener[] all;

	CompositeListener(RetryListener[] all) {
		this.all = all;
	}

	@Override
	public void onAttempt(AttemptEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onAttempt(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onAttempt", ex);
			}
		}
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onRetryScheduled(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onRetryScheduled", ex);
			}
		}
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onRefusal(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onRefusal", ex);
			}
		}
	}

	@Override
	public void onRateLimitFieldIgnored(RateLimitFieldEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onRateLimitFieldIgnored(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onRateLimitFieldIgnored", ex);
			}
		}
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onOperationFinished(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onOperationFinished", ex);
			}
		}
	}

	@Override
	public void onWaited(WaitedEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onWaited(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onWaited", ex);
			}
		}
	}

	@Override
	public void onCooldownStarted(CooldownStartedEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onCooldownStarted(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onCooldownStarted", ex);
			}
		}
	}

	@Override
	public void onCooldownEnded(CooldownEndedEvent event) {
		for (RetryListener listener : this.all) {
			try {
				listener.onCooldownEnded(event);
			}
			catch (RuntimeException ex) {
				warn(listener, "onCooldownEnded", ex);
			}
		}
	}

	private static void warn(RetryListener listener, String method, RuntimeException ex) {
		System.getLogger(RetryListener.class.getName())
			.log(Level.WARNING, "RetryListener " + listener + " threw from " + method + "; ignored", ex);
	}

}
