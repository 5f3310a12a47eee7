package io.github.retryafter.pacing;

import io.github.retryafter.internal.Seconds;

/**
 * Arithmetic on ticker readings for the gate's parts: instants compared by their difference, like
 * {@link System#nanoTime()}, so a ticker that wraps around the end of {@code long} is fine. Stateless.
 */
final class Ticks {

	static final double NANOS_PER_SECOND = 1_000_000_000.0;

	private Ticks() {
	}

	/** The later of two ticker readings. */
	static long later(long a, long b) {
		return (a - b > 0) ? a : b;
	}

	/** The earlier of two ticker readings. */
	static long earlier(long a, long b) {
		return (a - b < 0) ? a : b;
	}

	/** The spacing of slots at {@code rate} requests per second: at least a nanosecond. */
	static long interval(double rate) {
		return Math.max(1, (long) Math.ceil(NANOS_PER_SECOND / rate));
	}

	/** A duration in nanoseconds, for messages. */
	static String seconds(long nanos) {
		return Seconds.format(nanos);
	}

}
