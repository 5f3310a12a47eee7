package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;

import io.github.retryafter.boot.AttemptTimeouts;

/**
 * Bounds one RestClient attempt on the real clock: from sending it until its headers arrive, then each wait for the
 * body's next bytes and the close (a read timeout's bound, so a streamed body is never cut as a whole), until the
 * response is closed or read to the end. An attempt the client's own timeouts alone bound has no bound of its own
 * (only a failed response's drain is bounded). At the bound, fired by the {@link Watchdog}, it aborts the response's
 * body if headers arrived (closing the raw stream, so the connection is dropped rather than pooled) and interrupts the
 * thread blocked in a guarded call, if any; the interrupt is cleared when that call returns, so the caller's thread
 * carries no trace of it. What unblocks depends on the request factory: the JDK {@code HttpClient} and Reactor Netty
 * answer an interrupt while waiting for headers and a closed stream while reading a body; Apache HttpClient 5 and
 * {@code HttpURLConnection} answer only an aborted body, and wait for headers until their own read timeout.
 * <p>
 * Thread-safe: the calling thread and the watchdog's meet under the guard's lock; the interrupt is sent under it, so
 * a call that has left the guard is never interrupted by it.
 */
final class AttemptGuard extends AttemptTimeouts.Timeout {

	private final int attempt;

	/** The attempt's bound, or {@code null} when the client's own timeouts alone bound it. */
	private final Duration bound;

	// Written under the guard's lock, but in armEntered, before the guard is published: when the bound is due, and
	// whether it is armed (a bound that fired is not, and then nothing arms it again).
	private long firesAtNanos;

	private boolean armed;

	// All below guarded by this.

	private GuardedResponse response;

	private Thread blocked;

	private boolean interrupted;

	private boolean fired;

	private boolean over;

	private AttemptGuard(int attempt, Duration bound) {
		this.attempt = attempt;
		this.bound = bound;
	}

	/**
	 * Returns a guard that fires once {@code bound} has passed, entered by the calling thread: as after
	 * {@link #enter()}, the thread is interruptible by it until {@link #exit()}.
	 * @param attempt the attempt's number, for messages
	 * @param bound the time the attempt is given until its headers arrive, and each read after, or {@code null} when
	 * the client's own timeouts alone bound it (the guard is then not armed)
	 * @return the guard, armed if it has a bound
	 */
	static AttemptGuard armEntered(int attempt, Duration bound) {
		AttemptGuard guard = new AttemptGuard(attempt, bound);
		// no lock: the watchdog reaches the guard only through the timeouts' lock, which publishes the fields written
		// here, and reads none of them but under the guard's lock; one reading of the clock, the timeouts'
		guard.blocked = Thread.currentThread();
		if (bound != null) {
			guard.firesAtNanos = Watchdog.TIMEOUTS.arm(guard, Watchdog.nanos(bound));
			guard.armed = true;
		}
		return guard;
	}

	/**
	 * Runs one read of the response's body on the calling thread, bounded by the attempt's bound from now and
	 * interruptible by the guard while it runs: the bound of a wait for the body's next bytes, as a read timeout.
	 * @param <T> what the read returns
	 * @param read blocking I/O
	 * @return what it returned
	 * @throws IOException what it threw
	 */
	<T> T read(IoCall<T> read) throws IOException {
		enterRead();
		try {
			return read.run();
		}
		finally {
			exitRead();
		}
	}

	/** {@link #enter()}, the bound armed from now for one wait for the body (if it has one and is still on). */
	synchronized void enterRead() {
		enter();
		if (this.bound != null && !this.over && !this.fired) {
			this.firesAtNanos = Watchdog.TIMEOUTS.arm(this, Watchdog.nanos(this.bound));
			this.armed = true;
		}
	}

	/** {@link #exit()}, the bound put aside until the next wait for the body. */
	private synchronized void exitRead() {
		exit();
		pause();
	}

	/** Puts the bound aside while nothing is waited for: after the headers, between reads. Holds the lock. */
	private void pause() {
		if (this.armed && !this.over && !this.fired) {
			Watchdog.TIMEOUTS.disarm(this);
			this.armed = false;
		}
	}

	/**
	 * Runs {@code call} on the calling thread, interruptible by the guard while it runs.
	 * @param <T> what the call returns
	 * @param call blocking I/O
	 * @return what it returned
	 * @throws IOException what it threw
	 */
	<T> T call(IoCall<T> call) throws IOException {
		enter();
		try {
			return call.run();
		}
		finally {
			exit();
		}
	}

	/**
	 * Makes the calling thread interruptible by the guard, until {@link #exit()}: {@link #call} without a lambda to
	 * allocate, for the paths every request takes.
	 */
	synchronized void enter() {
		this.blocked = Thread.currentThread();
	}

	/**
	 * Ends {@link #enter()}: the guard no longer interrupts the thread, and an interrupt it sent is cleared.
	 */
	synchronized void exit() {
		this.blocked = null;
		if (this.interrupted) {
			this.interrupted = false;
			Thread.interrupted();
		}
	}

	/**
	 * {@link #exit()} then {@link #attach}, under one lock: the call that brought the response has returned.
	 * @param response the response
	 * @return {@code false} if the guard has already fired: the response came too late
	 */
	synchronized boolean exitAttaching(GuardedResponse response) {
		exit();
		pause();
		return attach(response);
	}

	/**
	 * {@link #exit()} then {@link #disarm()}, under one lock: the call that closed the response has returned.
	 */
	synchronized void exitDisarming() {
		exit();
		disarm();
	}

	/**
	 * Brings the bound forward to {@code within} from now, if that is sooner.
	 * @param within the new bound
	 */
	synchronized void shorten(Duration within) {
		if (this.over || this.fired) {
			return;
		}
		long at = System.nanoTime() + Watchdog.nanos(within);
		if (!this.armed || at - this.firesAtNanos < 0) {
			this.firesAtNanos = Watchdog.TIMEOUTS.arm(this, Watchdog.nanos(within));
			this.armed = true;
		}
	}

	/**
	 * Hands the guard the response whose body it aborts when it fires.
	 * @param response the response
	 * @return {@code false} if the guard has already fired: the response came too late
	 */
	synchronized boolean attach(GuardedResponse response) {
		this.response = response;
		return !this.fired;
	}

	/**
	 * Fires now, whatever the bound: aborts the response's body. Used when a drain gives up.
	 */
	synchronized void abortNow() {
		if (!this.over) {
			fire();
		}
	}

	/**
	 * Stops guarding: the attempt's response was closed or read to its end.
	 */
	synchronized void disarm() {
		this.over = true;
		Watchdog.TIMEOUTS.disarm(this);
	}

	/**
	 * Returns whether the bound was reached (or the body aborted) before the guard was disarmed.
	 * @return whether it fired
	 */
	synchronized boolean fired() {
		return this.fired;
	}

	/**
	 * Returns the exception that says the attempt ran out of time, with what the transport threw as its cause.
	 * @param cause what the blocked call threw once the guard fired, or {@code null}
	 * @return a {@link SocketTimeoutException}, which the engine classifies as a timed-out attempt
	 */
	SocketTimeoutException timedOut(Throwable cause) {
		SocketTimeoutException timeout = new SocketTimeoutException((this.bound != null) ? "Attempt " + this.attempt
				+ " had no answer within " + this.bound.toMillis() + " ms (the smaller of retry.after.attempt-timeout"
				+ " and what was left of the deadline; once its headers arrived, a bound on each wait for the body);"
				+ " its connection was closed" : "Attempt " + this.attempt + " was aborted; its connection was closed");
		if (cause != null) {
			timeout.initCause(cause);
		}
		return timeout;
	}

	@Override
	protected synchronized void expired() {
		if (!this.over && !this.fired) {
			fire();
		}
	}

	/** Aborts the body and interrupts the blocked caller; holds the lock. */
	private void fire() {
		this.fired = true;
		if (this.response != null) {
			this.response.abortBody();
		}
		if (this.blocked != null && !this.interrupted) {
			this.interrupted = true;
			this.blocked.interrupt();
		}
	}

	/**
	 * Blocking I/O that may throw {@link IOException}.
	 * @param <T> what it returns
	 */
	@FunctionalInterface
	interface IoCall<T> {

		T run() throws IOException;

	}

}
