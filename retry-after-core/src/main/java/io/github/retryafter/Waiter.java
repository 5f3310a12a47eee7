package io.github.retryafter;

import java.time.Duration;
import java.util.Objects;

/**
 * Blocks until a deadline on the monotonic {@link Ticker} has passed. It re-reads the ticker in a loop instead of
 * trusting one timer, so a sleeper that returns early (a timer firing early, a spurious wake-up) costs an extra
 * iteration, never an early retry.
 * <p>
 * Immutable and thread-safe.
 */
public final class Waiter {

	private final Ticker ticker;

	private final Sleeper sleeper;

	private Waiter(Ticker ticker, Sleeper sleeper) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
	}

	/**
	 * Returns a waiter on the given clock and sleeper.
	 * @param ticker the monotonic clock deadlines are read on
	 * @param sleeper how to block
	 * @return a new waiter
	 */
	public static Waiter of(Ticker ticker, Sleeper sleeper) {
		return new Waiter(ticker, sleeper);
	}

	/**
	 * Returns a waiter on the system ticker that really sleeps.
	 * @return the system waiter
	 */
	public static Waiter system() {
		return new Waiter(Ticker.system(), Sleeper.system());
	}

	/**
	 * Returns the monotonic clock this waiter reads deadlines on.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Blocks until {@code plan}'s deadline, or until cancelled.
	 * @param plan the plan whose deadline to wait for
	 * @param cancellation stops the wait early when cancelled
	 * @return {@code true} when the deadline was reached, {@code false} when cancelled first
	 * @throws InterruptedException if the thread is interrupted; the wait is then abandoned
	 */
	public boolean await(RetryPlan plan, Cancellation cancellation) throws InterruptedException {
		return awaitDeadline(plan.deadlineNanos(), cancellation);
	}

	/**
	 * Blocks until the ticker reads at least {@code deadlineNanos}, or until cancelled.
	 * @param deadlineNanos a reading of this waiter's ticker
	 * @param cancellation stops the wait early when cancelled
	 * @return {@code true} when the deadline was reached, {@code false} when cancelled first
	 * @throws InterruptedException if the thread is interrupted; the wait is then abandoned
	 */
	public boolean awaitDeadline(long deadlineNanos, Cancellation cancellation) throws InterruptedException {
		while (true) {
			if (cancellation.isCancelled()) {
				return false;
			}
			if (Thread.interrupted()) {
				throw new InterruptedException("interrupted while waiting to retry");
			}
			long remaining = deadlineNanos - this.ticker.read();
			if (remaining <= 0) {
				return true;
			}
			this.sleeper.sleep(Duration.ofNanos(remaining), cancellation);
		}
	}

}
