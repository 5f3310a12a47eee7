package io.github.retryafter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-way switch that tells a logical operation to stop: once cancelled, an operation sends no further request and
 * ends with {@code CANCELLED}.
 * <p>
 * Thread-safe: any thread may cancel, and a thread sleeping through {@link Sleeper#system()} wakes at once.
 */
public final class Cancellation {

	private static final Cancellation NEVER = new Cancellation();

	private final CountDownLatch latch = new CountDownLatch(1);

	private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

	private Cancellation() {
	}

	/**
	 * Creates a cancellation that is not yet cancelled.
	 * @return a new cancellation
	 */
	public static Cancellation create() {
		return new Cancellation();
	}

	/**
	 * Returns a shared cancellation for operations nobody will cancel; {@link #cancel()} on it is refused.
	 * @return the cancellation that never fires
	 */
	public static Cancellation never() {
		return NEVER;
	}

	/**
	 * Cancels: wakes sleepers and runs the registered callbacks once. Calling it again does nothing.
	 * @throws IllegalStateException on {@link #never()}
	 */
	public void cancel() {
		if (this == NEVER) {
			throw new IllegalStateException("Cancellation.never() cannot be cancelled; use Cancellation.create()");
		}
		synchronized (this) {
			if (this.latch.getCount() == 0) {
				return;
			}
			this.latch.countDown();
		}
		for (Runnable callback : this.callbacks) {
			callback.run();
		}
	}

	/**
	 * Returns whether {@link #cancel()} was called.
	 * @return {@code true} once cancelled
	 */
	public boolean isCancelled() {
		return this.latch.getCount() == 0;
	}

	/**
	 * Runs {@code callback} when this is cancelled, or at once if it already is.
	 * @param callback what to run; it must not block
	 */
	public void onCancel(Runnable callback) {
		if (this == NEVER) {
			return;
		}
		this.callbacks.add(callback);
		if (isCancelled() && this.callbacks.remove(callback)) {
			callback.run();
		}
	}

	/**
	 * Blocks for at most {@code timeout} or until cancelled, whichever comes first.
	 * @param timeout the longest time to block
	 * @return {@code true} if cancelled
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	public boolean awaitCancellation(Duration timeout) throws InterruptedException {
		if (timeout.isNegative() || timeout.isZero()) {
			return isCancelled();
		}
		long nanos = saturatedNanos(timeout);
		if (this == NEVER) {
			TimeUnit.NANOSECONDS.sleep(nanos);
			return false;
		}
		return this.latch.await(nanos, TimeUnit.NANOSECONDS);
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
