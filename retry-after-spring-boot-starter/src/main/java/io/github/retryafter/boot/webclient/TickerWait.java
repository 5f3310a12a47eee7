package io.github.retryafter.boot.webclient;

import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Ticker;

/**
 * A wait on the engine's {@link Ticker}, timed on an injectable {@link Scheduler}, that may wait again as often as its
 * step asks, always at one level: each wake schedules the next, so a request held at the gate for an hour holds one
 * timer and this object, not a chain of operators that grows with every time it asked again. A timer that
 * fires before the ticker reached the instant is re-armed (a wait is never cut short by a fast timer); a cancelled
 * operation wakes at once, and its step then finds the operation cancelled. The cancellation callback lives exactly as
 * long as the wait. Thread-safe: one wake at a time runs the step, outside this object's monitor.
 * @param <T> what the wait completes with
 */
final class TickerWait<T> implements Runnable {

	/** What a wake does: completes the sink, or returns the next instant to wait until. */
	@FunctionalInterface
	interface Step<T> {

		/**
		 * Called when the wait ended, or was cut short by a cancellation.
		 * @param sink completes the wait; call it unless another wait follows
		 * @return the instant to wait until next, on the ticker, or empty once {@code sink} was completed
		 */
		OptionalLong next(MonoSink<T> sink);

	}

	private final MonoSink<T> sink;

	private final Ticker ticker;

	private final Scheduler scheduler;

	private final Cancellation cancellation;

	private final Step<T> step;

	private final Runnable wake = this::wakeNow;

	// guarded by this object's monitor
	private long untilNanos;

	private Disposable timer;

	private boolean done;

	// whether a wake is running the step: another wake meanwhile (a cancellation's) leaves it to that one
	private boolean stepping;

	private TickerWait(MonoSink<T> sink, Ticker ticker, Scheduler scheduler, Cancellation cancellation, Step<T> step) {
		this.sink = sink;
		this.ticker = ticker;
		this.scheduler = scheduler;
		this.cancellation = cancellation;
		this.step = step;
	}

	/**
	 * Waits until {@code untilNanos}, then runs {@code step}, and again until the step completes the sink.
	 * @param untilNanos the first instant, on the ticker
	 * @param ticker the clock the instants are on
	 * @param scheduler where the timers run
	 * @param cancellation wakes the wait at once when cancelled
	 * @param step what each wake does
	 * @param <T> what the wait completes with
	 * @return a mono that completes when the step completes it
	 */
	static <T> Mono<T> until(long untilNanos, Ticker ticker, Scheduler scheduler, Cancellation cancellation,
			Step<T> step) {
		return Mono.create((sink) -> {
			TickerWait<T> wait = new TickerWait<>(sink, ticker, scheduler, cancellation, step);
			sink.onDispose(wait::dispose);
			cancellation.onCancel(wait.wake);
			wait.arm(untilNanos);
		});
	}

	private synchronized void arm(long untilNanos) {
		if (this.done) {
			return;
		}
		this.untilNanos = untilNanos;
		// a cancellation that came while the step ran (its wake found the step running) is not waited out
		long remaining = this.cancellation.isCancelled() ? 0 : Math.max(0, untilNanos - this.ticker.read());
		try {
			this.timer = this.scheduler.schedule(this, remaining, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.done = true;
			this.sink.error(ex);
		}
	}

	private void wakeNow() {
		try {
			this.scheduler.schedule(this);
		}
		catch (RejectedExecutionException ex) {
			// the scheduler is gone: the timer in place (if any) will not fire either
			synchronized (this) {
				if (!this.done) {
					this.done = true;
					this.sink.error(ex);
				}
			}
		}
	}

	@Override
	public void run() {
		synchronized (this) {
			if (this.done || this.stepping) {
				return;
			}
			if (!this.cancellation.isCancelled() && this.untilNanos - this.ticker.read() > 0) {
				// the timer fired early: wait the rest, never less
				arm(this.untilNanos);
				return;
			}
			Disposable fired = this.timer;
			if (fired != null) {
				// a cancellation's wake: the timer in place is no longer needed
				fired.dispose();
			}
			this.stepping = true;
		}
		// the step runs outside the monitor: completing the sink sends the next attempt downstream
		OptionalLong next;
		try {
			next = this.step.next(this.sink);
		}
		catch (RuntimeException | Error ex) {
			synchronized (this) {
				this.stepping = false;
				this.done = true;
			}
			this.sink.error(ex);
			return;
		}
		synchronized (this) {
			this.stepping = false;
			if (next.isEmpty()) {
				this.done = true;
				return;
			}
			arm(next.getAsLong());
		}
	}

	private void dispose() {
		Disposable pending;
		synchronized (this) {
			this.done = true;
			pending = this.timer;
		}
		this.cancellation.removeCallback(this.wake);
		if (pending != null) {
			pending.dispose();
		}
	}

}
