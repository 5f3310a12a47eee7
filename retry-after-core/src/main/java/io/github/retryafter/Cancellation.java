package io.github.retryafter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.retryafter.internal.Saturating;

/**
 * A one-way switch that tells a logical operation to stop: once cancelled, an operation sends no further request and
 * ends with {@code CANCELLED}.
 * <p>
 * Thread-safe: any thread may cancel, and a thread sleeping through {@link Sleeper#system()} wakes at once.
 */
public final class Cancellation {

	private static final Cancellation NEVER = new Cancellation();

	private volatile boolean cancelled;

	/**
	 * Callbacks to run on cancel, guarded by {@code this}; allocated on first registration, so most cancellations
	 * allocate nothing more. Bounded by the waits in progress: a wait removes its callback when it ends
	 * ({@link #removeCallback}), and {@link #cancel()} drops them all.
	 */
	private List<Runnable> callbacks;

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
		List<Runnable> toRun;
		synchronized (this) {
			if (this.cancelled) {
				return;
			}
			this.cancelled = true;
			toRun = this.callbacks;
			this.callbacks = null;
			notifyAll();
		}
		if (toRun != null) {
			for (Runnable callback : toRun) {
				callback.run();
			}
		}
	}

	/**
	 * Returns whether {@link #cancel()} was called.
	 * @return {@code true} once cancelled
	 */
	public boolean isCancelled() {
		return this.cancelled;
	}

	/**
	 * Runs {@code callback} when this is cancelled, or at once if it already is.
	 * @param callback what to run; it must not block
	 */
	public void onCancel(Runnable callback) {
		if (this == NEVER) {
			return;
		}
		synchronized (this) {
			if (!this.cancelled) {
				if (this.callbacks == null) {
					this.callbacks = new ArrayList<>(2);
				}
				this.callbacks.add(callback);
				return;
			}
		}
		callback.run();
	}

	/**
	 * Removes a callback added with {@link #onCancel} that is no longer wanted (its wait ended), so an operation that
	 * waits many times does not accumulate them. Compares by identity; allocates nothing. Removing a callback that
	 * already ran, or was never added, does nothing.
	 * @param callback the callback given to {@link #onCancel}
	 */
	public void removeCallback(Runnable callback) {
		if (this == NEVER) {
			return;
		}
		synchronized (this) {
			List<Runnable> registered = this.callbacks;
			if (registered == null) {
				return;
			}
			for (int i = registered.size() - 1; i >= 0; i--) {
				if (registered.get(i) == callback) {
					registered.remove(i);
					return;
				}
			}
		}
	}

	/**
	 * Returns how many callbacks wait for {@link #cancel()}, for tests and diagnostics.
	 * @return the number of registered callbacks
	 */
	public synchronized int pendingCallbacks() {
		return (this.callbacks != null) ? this.callbacks.size() : 0;
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
		// Past a long of nanoseconds (about 292 years) the wait is "forever": the sums stick there instead of wrapping.
		long nanos = Saturating.toNanos(timeout);
		if (this == NEVER) {
			TimeUnit.NANOSECONDS.sleep(nanos);
			return false;
		}
		long end = Saturating.add(System.nanoTime(), nanos);
		synchronized (this) {
			while (!this.cancelled) {
				long left = Saturating.subtract(end, System.nanoTime());
				if (left <= 0) {
					return false;
				}
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			return true;
		}
	}

}
