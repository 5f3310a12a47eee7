package io.github.retryafter.boot.restclient;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one scheduler that fires every RestClient attempt's bound ({@link AttemptGuard}): a single daemon thread for
 * the whole JVM, not a thread per request. Its tasks only close streams and interrupt threads, which do not block,
 * so one thread keeps up with any number of requests. A task cancelled before it fires is removed at once, so the
 * queue holds at most one task per attempt in flight or response not yet closed. Thread-safe.
 */
final class Watchdog {

	/** JVM-wide, one daemon thread; its queue holds one task per guarded attempt or open response, no more. */
	private static final ScheduledThreadPoolExecutor SCHEDULER = scheduler();

	private Watchdog() {
	}

	/**
	 * Runs {@code task} once {@code delay} has passed on the real clock, unless cancelled first.
	 * @param task what to do at the bound; must not block
	 * @param delay how long from now
	 * @return the handle to cancel it with
	 */
	static ScheduledFuture<?> schedule(Runnable task, Duration delay) {
		return SCHEDULER.schedule(task, nanos(delay), TimeUnit.NANOSECONDS);
	}

	/**
	 * Returns {@code delay} in nanoseconds, zero if negative, saturated at {@link Long#MAX_VALUE}.
	 * @param delay a duration
	 * @return its nanoseconds
	 */
	static long nanos(Duration delay) {
		if (delay.isNegative()) {
			return 0;
		}
		return (delay.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) ? Long.MAX_VALUE : delay.toNanos();
	}

	private static ScheduledThreadPoolExecutor scheduler() {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "retry-after-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setRemoveOnCancelPolicy(true);
		return scheduler;
	}

}
