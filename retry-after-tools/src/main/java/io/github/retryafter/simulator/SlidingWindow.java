package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * A provider's sliding-window limit: it admits at most {@code requests} requests in any {@code window} (a request is
 * admitted when fewer than {@code requests} were admitted in the {@code window} before it) and refuses the rest with
 * {@code 429}, {@code retry-after-ms} of {@code retryAfter} and {@code Retry-After} in delay-seconds (rounded up),
 * whatever the window would allow; no field describes the window. Refused requests do not count against it.
 * <p>
 * Immutable and thread-safe.
 *
 * @param requests the requests any window admits
 * @param window the window's length
 * @param retryAfter what every refusal asks for, at least 1 ms
 */
public record SlidingWindow(int requests, Duration window, Duration retryAfter) {

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param requests the requests any window admits
	 * @param window the window's length
	 * @param retryAfter what every refusal asks for, at least 1 ms
	 */
	public SlidingWindow {
		Objects.requireNonNull(window, "window");
		Objects.requireNonNull(retryAfter, "retryAfter");
		if (requests < 1) {
			throw new IllegalArgumentException("requests per window must be at least 1 but was " + requests);
		}
		if (window.toMillis() < 1) {
			throw new IllegalArgumentException("the window must last at least 1 ms but was " + window);
		}
		if (retryAfter.toMillis() < 1 || retryAfter.toNanosPart() % 1_000_000 != 0) {
			throw new IllegalArgumentException("retryAfter must be a whole number of milliseconds, at least 1, but was "
					+ retryAfter);
		}
	}

	/**
	 * Returns how long a backlog of {@code backlog} requests started together needs at the least, ignoring any
	 * {@code Retry-After}: the window admits {@code requests} at once and as many a window after,
	 * {@code ceil(backlog / requests) × window}.
	 * @param backlog the requests, at least 1
	 * @return the bound, from the workload's start
	 */
	public Duration bound(long backlog) {
		if (backlog < 1) {
			throw new IllegalArgumentException("backlog must be at least 1 but was " + backlog);
		}
		return this.window.multipliedBy((backlog + this.requests - 1) / this.requests);
	}

}
