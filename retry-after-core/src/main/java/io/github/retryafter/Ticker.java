package io.github.retryafter;

/**
 * A monotonic time source in nanoseconds, like Caffeine's {@code Ticker}: it counts elapsed time and never steps.
 * Deadlines, waits and budgets in this library run on a ticker, never on the wall clock.
 * <p>
 * Only differences between two readings are meaningful. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

	/**
	 * Returns the current reading of this ticker in nanoseconds.
	 * @return nanoseconds since an arbitrary, fixed origin
	 */
	long read();

	/**
	 * Returns the ticker backed by {@link System#nanoTime()}.
	 * @return the system ticker
	 */
	static Ticker system() {
		return System::nanoTime;
	}

}
