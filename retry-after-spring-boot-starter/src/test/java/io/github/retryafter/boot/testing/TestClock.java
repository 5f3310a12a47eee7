package io.github.retryafter.boot.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;

/**
 * A monotonic clock for blocking tests: sleeping on it advances it at once and records how long was asked, so a test
 * asserts the exact waits without waiting.
 */
public final class TestClock implements Ticker, Sleeper {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	@Override
	public long read() {
		return this.nanos.get();
	}

	@Override
	public void sleep(Duration duration, Cancellation cancellation) {
		this.sleeps.add(duration);
		if (!cancellation.isCancelled()) {
			this.nanos.addAndGet(duration.toNanos());
		}
	}

	/**
	 * Returns every sleep asked for, in order.
	 * @return the sleeps
	 */
	public List<Duration> sleeps() {
		return List.copyOf(this.sleeps);
	}

	/**
	 * Returns the total time slept.
	 * @return the sum of the sleeps
	 */
	public Duration slept() {
		return this.sleeps.stream().reduce(Duration.ZERO, Duration::plus);
	}

}
