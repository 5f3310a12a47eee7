package io.github.retryafter;

import java.time.Duration;

/**
 * Blocks the calling thread for a while, so tests can replace real sleeping with a fake clock that advances instead.
 * <p>
 * A sleeper may return early (spuriously, or because {@code cancellation} was cancelled); callers re-read their
 * {@link Ticker} and sleep again for what is left, so an early return is an extra iteration, never an early retry.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {

	/**
	 * Sleeps for at most {@code duration}, returning early when {@code cancellation} is cancelled.
	 * @param duration how long to sleep; zero or negative returns at once
	 * @param cancellation the cancellation to watch while sleeping
	 * @throws InterruptedException if the thread is interrupted while sleeping
	 */
	void sleep(Duration duration, Cancellation cancellation) throws InterruptedException;

	/**
	 * Returns the sleeper that really blocks, waking as soon as the cancellation fires.
	 * @return the system sleeper
	 */
	static Sleeper system() {
		return (duration, cancellation) -> cancellation.awaitCancellation(duration);
	}

}
