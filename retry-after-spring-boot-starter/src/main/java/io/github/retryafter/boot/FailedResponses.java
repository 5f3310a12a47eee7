package io.github.retryafter.boot;

import java.time.Duration;

/**
 * What both HTTP adapters do with a failed response the engine retries: read at most the provider's
 * {@code retry.after.max-drain} bytes of its body ({@link ProviderSettings#maxDrainBytes()}), for at most
 * {@link #DRAIN_TIMEOUT} and never past the instant its retry is due, so that its connection can go back to the pool;
 * abort the connection of a body that is longer or still arriving then; and keep a {@link StandInResponse} of its
 * status and header fields for the caller, should the engine refuse the retry after the wait. Stateless.
 */
public final class FailedResponses {

	/**
	 * The longest a failed response's body is read before its retry, however far off the retry is: 500 ms. Long
	 * enough for {@code retry.after.max-drain}'s 64 KB over a 1 Mbit/s link; a slower body costs less dropped (one
	 * new connection) than held, and the RestClient's drain is the one part of a wait that neither a cancel nor
	 * shutdown cuts short.
	 */
	public static final Duration DRAIN_TIMEOUT = Duration.ofMillis(500);

	private FailedResponses() {
	}

	/**
	 * Returns how long a failed body may be drained: until its retry is due, and at most {@link #DRAIN_TIMEOUT}.
	 * @param untilDue the time left until the retry is due
	 * @return the drain's window; zero when the retry is due already
	 */
	public static Duration drainWindow(Duration untilDue) {
		if (untilDue.isNegative()) {
			return Duration.ZERO;
		}
		return (untilDue.compareTo(DRAIN_TIMEOUT) < 0) ? untilDue : DRAIN_TIMEOUT;
	}

	/**
	 * Returns how long a failed body may be drained when its retry is due at {@code notBeforeNanos}.
	 * @param notBeforeNanos when the retry is due, on {@code nowNanos}'s ticker
	 * @param nowNanos the ticker's reading now
	 * @return the drain's window; zero when the retry is due already
	 */
	public static Duration drainWindow(long notBeforeNanos, long nowNanos) {
		return drainWindow(Duration.ofNanos(Math.max(0, notBeforeNanos - nowNanos)));
	}

}
