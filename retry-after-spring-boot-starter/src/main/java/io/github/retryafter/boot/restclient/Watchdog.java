package io.github.retryafter.boot.restclient;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.retryafter.boot.AttemptTimeouts;

/**
 * The one scheduler that fires every RestClient attempt's bound ({@link AttemptGuard}): a single daemon thread for
 * the whole JVM, not a thread per request, woken through {@link AttemptTimeouts} only when a bound is due before the
 * wake-up already planned, so an attempt that ends in time schedules nothing. Its tasks only close streams and
 * interrupt threads, which do not block, so one thread keeps up with any number of requests. Thread-safe.
 */
final class Watchdog {

	/** JVM-wide, one daemon thread; its queue holds the one planned wake-up (and any it replaced, cancelled). */
	private static final ScheduledThreadPoolExecutor SCHEDULER = scheduler();

	/** JVM-wide: one entry per guarded attempt or open response, no more. */
	static final AttemptTimeouts TIMEOUTS = new AttemptTimeouts(System::nanoTime, (task, delayNanos) -> {
		ScheduledFuture<?> wake = SCHEDULER.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
		return () -> wake.cancel(false);
	});

	private Watchdog() {
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
