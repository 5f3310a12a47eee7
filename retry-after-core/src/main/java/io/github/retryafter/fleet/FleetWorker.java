package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.retryafter.Ticker;

/**
 * A fleet store's own thread: runs the tasks handed to it as soon as it is free, and a tick every interval on an
 * injected {@link Ticker}. {@link #execute} never blocks nor parks the caller, so an event loop may hand work to it.
 * A test drives it on a fake clock with {@link #runDue()}, without {@link #start starting} a thread; a started
 * worker parks between ticks. What a task or the tick throws goes to the failure handler (a store falls back).
 * Thread-safe.
 */
public final class FleetWorker implements Executor {

	private final Ticker ticker;

	private final long intervalNanos;

	private final Runnable tick;

	private final Consumer<RuntimeException> failed;

	// handed over by request threads: at most one task per participant, each coalesced by its participant
	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private volatile boolean stopping;

	private volatile Thread thread;

	// when the next tick is due; the worker's thread (or the test driving it) only
	private long nextTick;

	private boolean ticked;

	/**
	 * Creates a worker; nothing runs until {@link #start} or {@link #runDue()}.
	 * @param ticker the clock the interval is measured on
	 * @param interval how often {@code tick} runs, positive
	 * @param tick what runs every interval (a store: its heartbeat and its participants' sync, or a probe)
	 * @param failed told of what a task or the tick threw
	 */
	public FleetWorker(Ticker ticker, Duration interval, Runnable tick, Consumer<RuntimeException> failed) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("interval must be positive but was " + interval);
		}
		this.intervalNanos = interval.toNanos();
		this.tick = Objects.requireNonNull(tick, "tick");
		this.failed = Objects.requireNonNull(failed, "failed");
	}

	/**
	 * Hands {@code task} to the worker: a queue offer and an unpark, lock-free. A stopped worker drops it.
	 * @param task the task
	 */
	@Override
	public void execute(Runnable task) {
		if (this.stopping) {
			// closing: the write is dropped, the instance is going away
			return;
		}
		this.tasks.offer(Objects.requireNonNull(task, "task"));
		Thread running = this.thread;
		if (running != null) {
			LockSupport.unpark(running);
		}
	}

	/**
	 * Runs what is due now, on the calling thread: the tasks handed over so far (and those they hand over), then the
	 * tick if it has not run yet or an interval has passed since it last did.
	 * @return nanoseconds until the next tick is due
	 */
	public long runDue() {
		for (Runnable task = this.tasks.poll(); task != null && !this.stopping; task = this.tasks.poll()) {
			guarded(task);
		}
		if (!this.stopping && (!this.ticked || this.ticker.read() - this.nextTick >= 0)) {
			this.ticked = true;
			guarded(this.tick);
			this.nextTick = this.ticker.read() + this.intervalNanos;
		}
		return this.nextTick - this.ticker.read();
	}

	/**
	 * Starts the worker's thread, which runs what is due and parks until the next tick or task, until stopped.
	 * @param threads makes the thread (the starter's: a daemon named {@code retry-after-fleet})
	 * @throws IllegalStateException if it was started already
	 */
	public synchronized void start(ThreadFactory threads) {
		if (this.thread != null) {
			throw new IllegalStateException("the fleet's worker is started already");
		}
		Thread started = threads.newThread(this::loop);
		this.thread = started;
		started.start();
	}

	private void loop() {
		while (!this.stopping) {
			long wait = runDue();
			if (wait > 0 && this.tasks.isEmpty() && !this.stopping) {
				LockSupport.parkNanos(this, wait);
			}
			if (Thread.interrupted()) {
				return;
			}
		}
	}

	/**
	 * Stops the worker: tasks handed over from now on are dropped, the thread is woken and waited for at most
	 * {@code join}, then interrupted. Idempotent.
	 * @param join the longest wait for the thread to end its current task
	 */
	public void stop(Duration join) {
		this.stopping = true;
		Thread running = this.thread;
		if (running == null || running == Thread.currentThread()) {
			return;
		}
		LockSupport.unpark(running);
		try {
			running.join(Math.max(1, join.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		running.interrupt();
	}

	private void guarded(Runnable task) {
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			this.failed.accept(ex);
		}
	}

}
