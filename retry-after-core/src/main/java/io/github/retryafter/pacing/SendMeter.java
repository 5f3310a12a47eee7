package io.github.retryafter.pacing;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Estimates the rate requests are being sent at over the last second, with the sliding-window approximation of two
 * one-second windows: {@code previous × (1 − elapsedShareOfCurrent) + current}. Lock-free: recording is one read and
 * one {@link LongAdder} increment, plus a compare-and-set once a second.
 */
final class SendMeter {

	private static final long WINDOW_NANOS = 1_000_000_000L;

	private record Window(long startNanos, LongAdder count, long previous) {
	}

	private final AtomicReference<Window> window;

	SendMeter(long nowNanos) {
		this.window = new AtomicReference<>(new Window(nowNanos, new LongAdder(), 0));
	}

	void record(long nowNanos) {
		current(nowNanos).count().increment();
	}

	/** Requests per second over the last second. */
	double rate(long nowNanos) {
		Window current = current(nowNanos);
		double elapsedShare = Math.min(1.0, (nowNanos - current.startNanos()) / (double) WINDOW_NANOS);
		return current.previous() * (1.0 - elapsedShare) + current.count().sum();
	}

	private Window current(long nowNanos) {
		while (true) {
			Window current = this.window.get();
			long elapsed = nowNanos - current.startNanos();
			if (elapsed < WINDOW_NANOS) {
				return current;
			}
			long previous = (elapsed < 2 * WINDOW_NANOS) ? current.count().sum() : 0;
			long start = current.startNanos() + (elapsed / WINDOW_NANOS) * WINDOW_NANOS;
			Window next = new Window(start, new LongAdder(), previous);
			if (this.window.compareAndSet(current, next)) {
				return next;
			}
		}
	}

}
