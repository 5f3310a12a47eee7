package io.github.retryafter.engine;

import java.util.List;
import java.util.Objects;

/**
 * Receives what the engine does: every attempt, every scheduled retry and the wait before it, every refusal, every
 * cooldown's start and end, and the end of every logical operation. Metrics and logs bind here; every method does
 * nothing by default.
 * <p>
 * Methods are called on the thread driving the operation, synchronously, so they must be quick and must not block.
 * Implementations shared between operations must be thread-safe. An exception thrown by a listener is logged through
 * {@link System.Logger} and never changes the operation.
 */
public interface RetryListener {

	/** The listener that does nothing. */
	RetryListener NOOP = new RetryListener() {
	};

	/**
	 * An attempt is about to be sent.
	 * @param event the attempt
	 */
	default void onAttempt(AttemptEvent event) {
	}

	/**
	 * A retry was scheduled.
	 * @param event the retry
	 */
	default void onRetryScheduled(RetryScheduledEvent event) {
	}

	/**
	 * A retry or a hint was refused.
	 * @param event the refusal
	 */
	default void onRefusal(RefusalEvent event) {
	}

	/**
	 * A response's rate-limit field was unusable and pacing ignored it (pacing on, rate-limit fields read).
	 * @param event the field and why
	 */
	default void onRateLimitFieldIgnored(RateLimitFieldEvent event) {
	}

	/**
	 * An operation ended.
	 * @param event the end
	 */
	default void onOperationFinished(OperationFinishedEvent event) {
	}

	/**
	 * A retry's wait ended: how long it really lasted, and why.
	 * @param event the wait, by cause
	 */
	default void onWaited(WaitedEvent event) {
	}

	/**
	 * A response closed its provider's gate, or kept it closed longer, whatever field named the instant.
	 * @param event the cooldown's start
	 */
	default void onCooldownStarted(CooldownStartedEvent event) {
	}

	/**
	 * A gate's cooldown ended with its probe's answer.
	 * @param event the end of the cooldown
	 */
	default void onCooldownEnded(CooldownEndedEvent event) {
	}

	/**
	 * Returns a listener that calls each of {@code listeners} in order; one that throws is logged and the others are
	 * still called.
	 * @param listeners the listeners; copied
	 * @return a listener, thread-safe if each of {@code listeners} is
	 */
	static RetryListener composite(List<? extends RetryListener> listeners) {
		// NOOP members do nothing, so leaving them out changes nothing; with none left the engine skips its events
		RetryListener[] all = listeners.stream()
			.filter((listener) -> listener != NOOP)
			.toArray(RetryListener[]::new);
		if (all.length == 0) {
			return NOOP;
		}
		return new CompositeListener(all);
	}

	/**
	 * Returns a listener that calls {@code listener} and logs, instead of propagating, anything it throws.
	 * @param listener the listener to guard
	 * @return a guarded listener
	 */
	static RetryListener guarded(RetryListener listener) {
		Objects.requireNonNull(listener, "listener");
		return composite(List.of(listener));
	}

}
