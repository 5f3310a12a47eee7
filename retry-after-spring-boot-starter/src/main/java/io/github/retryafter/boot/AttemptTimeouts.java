package io.github.retryafter.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.retryafter.Ticker;

/**
 * Fires the bounds of attempts in flight from one scheduled wake-up, not from a task scheduled and cancelled per
 * attempt: arming and disarming a bound only link and unlink it under a lock, and the scheduler is asked for a
 * wake-up only when a bound is due before the one already planned. An attempt that ends within its bound, the
 * common case, therefore schedules nothing and wakes no thread; the wake-up planned for an earlier attempt's bound
 * sweeps whatever is armed when it comes, fires what is due on the ticker and plans the next. A wake-up that comes
 * early only costs another one: nothing fires before its due reading of the ticker.
 * <p>
 * Used by both HTTP adapters: the RestClient interceptor on one daemon thread and the system clock, the WebClient
 * filter on its Reactor scheduler and ticker (so virtual-time tests drive its bounds). Thread-safe.
 */
public final class AttemptTimeouts {

	/** Bounds longer than this are held at it, so due readings never overflow. */
	private static final long MAX_NANOS = Long.MAX_VALUE / 4;

	private final Ticker ticker;

	private final Scheduling scheduling;

	private final Runnable sweep = this::sweep;

	private final Object lock = new Object();

	// All below guarded by lock. The bounds armed now, the latest armed first: one per attempt in flight, no more.
	// Arming writes one reference into this long-lived object (the head), not two: each such write of a new object
	// into an old one costs the garbage collector's write barrier its slow path.

	private Timeout first;

	private boolean wakeScheduled;

	private long wakeAtNanos;

	private Runnable cancelWake;

	/**
	 * Creates the timeouts.
	 * @param ticker the monotonic clock bounds are due on; the one the scheduler's delays run on
	 * @param scheduling plans a wake-up
	 */
	public AttemptTimeouts(Ticker ticker, Scheduling scheduling) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.scheduling = Objects.requireNonNull(scheduling, "scheduling");
	}

	/**
	 * Arms {@code timeout} to fire once {@code boundNanos} have passed on the ticker, or moves it there if it is armed
	 * already.
	 * @param timeout what fires
	 * @param boundNanos from now; zero or less fires at the next wake-up, at once
	 * @return the ticker reading it is due at (the one reading taken, so a caller that wants it reads none)
	 */
	public long arm(Timeout timeout, long boundNanos) {
		synchronized (this.lock) {
			if (linked(timeout)) {
				unlink(timeout);
			}
			long now = this.ticker.read();
			timeout.dueNanos = now + Math.max(0, Math.min(boundNanos, MAX_NANOS));
			link(timeout);
			if (!this.wakeScheduled || timeout.dueNanos - this.wakeAtNanos < 0) {
				if (this.cancelWake != null) {
					this.cancelWake.run();
				}
				planWake(timeout.dueNanos, now);
			}
			return timeout.dueNanos;
		}
	}

	/**
	 * Arms {@code timeout} to fire once {@code bound} has passed on the ticker, or moves it there if it is armed
	 * already.
	 * @param timeout what fires
	 * @param bound from now; zero or negative fires at the next wake-up, at once
	 * @return the ticker reading it is due at
	 */
	public long arm(Timeout timeout, Duration bound) {
		long nanos = (bound.getSeconds() >= MAX_NANOS / 1_000_000_000L) ? MAX_NANOS : bound.toNanos();
		return arm(timeout, nanos);
	}

	/**
	 * Disarms {@code timeout}: it will not fire, unless a sweep has taken it already.
	 * @param timeout what no longer needs to fire
	 * @return whether it was still armed
	 */
	public boolean disarm(Timeout timeout) {
		synchronized (this.lock) {
			if (!linked(timeout)) {
				return false;
			}
			unlink(timeout);
			return true;
		}
	}

	/** Fires every bound that is due, outside the lock, and plans the wake-up for the earliest left. */
	private void sweep() {
		// made only when something is due: a sweep after bounds that all ended in time allocates nothing
		List<Timeout> due = null;
		synchronized (this.lock) {
			this.wakeScheduled = false;
			this.cancelWake = null;
			long now = this.ticker.read();
			Timeout earliest = null;
			for (Timeout each = this.first; each != null;) {
				Timeout following = each.next;
				if (each.dueNanos - now <= 0) {
					unlink(each);
					if (due == null) {
						due = new ArrayList<>();
					}
					due.add(each);
				}
				else if (earliest == null || each.dueNanos - earliest.dueNanos < 0) {
					earliest = each;
				}
				each = following;
			}
			if (earliest != null) {
				planWake(earliest.dueNanos, now);
			}
		}
		if (due == null) {
			return;
		}
		RuntimeException thrown = null;
		// the latest armed first, the list's order
		for (Timeout firing : due) {
			try {
				firing.expired();
			}
			catch (RuntimeException ex) {
				// the others due still fire; the scheduler sees the first failure
				if (thrown == null) {
					thrown = ex;
				}
			}
		}
		if (thrown != null) {
			throw thrown;
		}
	}

	private void planWake(long atNanos, long now) {
		this.wakeScheduled = true;
		this.wakeAtNanos = atNanos;
		this.cancelWake = this.scheduling.schedule(this.sweep, Math.max(0, atNanos - now));
	}

	/** Whether {@code timeout} is armed here: linked into the list. Holds the lock. */
	private boolean linked(Timeout timeout) {
		return timeout.previous != null || this.first == timeout;
	}

	private void link(Timeout timeout) {
		Timeout head = this.first;
		timeout.previous = null;
		timeout.next = head;
		if (head != null) {
			head.previous = timeout;
		}
		this.first = timeout;
	}

	private void unlink(Timeout timeout) {
		if (timeout.previous == null) {
			this.first = timeout.next;
		}
		else {
			timeout.previous.next = timeout.next;
		}
		if (timeout.next != null) {
			timeout.next.previous = timeout.previous;
		}
		timeout.previous = null;
		timeout.next = null;
	}

	/**
	 * Plans a wake-up.
	 */
	@FunctionalInterface
	public interface Scheduling {

		/**
		 * Runs {@code task} once {@code delayNanos} have passed, unless cancelled first.
		 * @param task what to run; it does not block
		 * @param delayNanos from now, not negative
		 * @return what cancels it
		 */
		Runnable schedule(Runnable task, long delayNanos);

	}

	/**
	 * One attempt's bound: armed on at most one {@link AttemptTimeouts} at a time. Its links are guarded by that
	 * object's lock; it is armed while it is linked, so it holds nothing more than its links and its due reading.
	 */
	public abstract static class Timeout {

		private Timeout previous;

		private Timeout next;

		private long dueNanos;

		/**
		 * Creates a bound that is not armed.
		 */
		protected Timeout() {
		}

		/**
		 * Called once the bound was reached while armed, on the scheduler's thread and outside any lock of the
		 * timeouts'; it does not block.
		 */
		protected abstract void expired();

	}

}
