package io.github.retryafter;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A source of uniform random draws in {@code [0, 1)}, injected wherever this library needs randomness so that a trace
 * with given draws reproduces to the millisecond.
 * <p>
 * Draws are validated before use: a source returning {@code NaN}, a negative number or a number {@code >= 1} is refused
 * with {@link RetryAfterError#INVALID_RANDOM} rather than becoming a strange delay. Implementations must be thread-safe
 * if the planner or engine using them is shared between threads.
 */
@FunctionalInterface
public interface RandomSource {

	/**
	 * Returns the next draw.
	 * @return a number in {@code [0, 1)}
	 */
	double nextDouble();

	/**
	 * Returns a thread-safe source backed by {@link ThreadLocalRandom}. It is not cryptographic; it is adequate for
	 * breaking up a herd.
	 * @return the default source
	 */
	static RandomSource threadLocal() {
		return () -> ThreadLocalRandom.current().nextDouble();
	}

}
