package io.github.retryafter.test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;

/**
 * A virtual clock for tests: a monotonic {@link Ticker}, a wall clock ({@link InstantSource}) and a {@link Sleeper} in
 * one. Sleeping advances virtual time at once instead of blocking, and records the requested duration, so a test can
 * assert the exact sequence of waits. Cancellations can be scheduled at a virtual instant: a sleep that would pass that
 * instant stops there, fires the cancellation and returns early.
 * <p>
 * The wall clock is the monotonic reading plus an origin and an adjustable offset, so a test can give the client a
 * skewed wall clock ({@link #setWallOffset(Duration)}) without touching deadlines.
 * <p>
 * Thread-safe: every method synchronizes on the clock. When several threads sleep on one clock, each sleep advances
 * the shared time, so time runs faster than any one thread's waits; readings stay monotonic.
 */
public final class FakeClock implements Ticker, InstantSource, Sleeper {

	/** The default wall-clock origin: 2025-01-01T10:00:00Z. */
	public static final Instant DEFAULT_ORIGIN = Instant.parse("2025-01-01T10:00:00Z");

	private final Instant origin;

	private long nanos;

	private Duration wallOffset = Duration.ZERO;

	private final List<Duration> sleeps = new ArrayList<>();

	private final List<ScheduledCancel> cancels = new ArrayList<>();

	private record ScheduledCancel(long atNanos, Cancellation cancellation) {
	}

	private FakeClock(Instant origin) {
		this.origin = Objects.requireNonNull(origin, "origin");
	}

	/**
	 * Returns a clock at {@link #DEFAULT_ORIGIN}, ticker reading 0.
	 * @return a new clock
	 */
	public static FakeClock create() {
		return new FakeClock(DEFAULT_ORIGIN);
	}

	/**
	 * Returns a clock whose wall clock starts at {@code origin}, ticker reading 0.
	 * @param origin the wall-clock instant at ticker reading 0
	 * @return a new clock
	 */
	public static FakeClock at(Instant origin) {
		return new FakeClock(origin);
	}

	@Override
	public synchronized long read() {
		return this.nanos;
	}

	@Override
	public synchronized Instant instant() {
		return this.origin.plusNanos(this.nanos).plus(this.wallOffset);
	}

	/**
	 * Returns the virtual time since the clock was created.
	 * @return the elapsed time
	 */
	public synchronized Duration elapsed() {
		return Duration.ofNanos(this.nanos);
	}

	/**
	 * Steps the wall clock by {@code offset} relative to the monotonic time (a client clock that is wrong); deadlines
	 * are unaffected.
	 * @param offset the offset, negative for a clock behind
	 */
	public synchronized void setWallOffset(Duration offset) {
		this.wallOffset = Objects.requireNonNull(offset, "offset");
	}

	/**
	 * Advances virtual time, firing the cancellations scheduled on the way at their instants.
	 * @param duration how far to advance; not negative
	 */
	public void advance(Duration duration) {
		requireNonNegative(duration);
		synchronized (this) {
			advanceTo(this.nanos + duration.toNanos(), null);
		}
	}

	/**
	 * Cancels {@code cancellation} when virtual time reaches {@code fromNow} from now.
	 * @param fromNow how long from now
	 * @param cancellation what to cancel
	 */
	public void cancelAfter(Duration fromNow, Cancellation cancellation) {
		requireNonNegative(fromNow);
		Objects.requireNonNull(cancellation, "cancellation");
		synchronized (this) {
			this.cancels.add(new ScheduledCancel(this.nanos + fromNow.toNanos(), cancellation));
			advanceTo(this.nanos, null);
		}
	}

	/**
	 * Advances virtual time by {@code duration} at once, or only to the instant {@code cancellation} is cancelled by a
	 * scheduled cancellation. Records the requested duration. Returns at once, recording nothing, when already cancelled.
	 */
	@Override
	public void sleep(Duration duration, Cancellation cancellation) {
		Objects.requireNonNull(duration, "duration");
		synchronized (this) {
			if (cancellation.isCancelled() || duration.isNegative() || duration.isZero()) {
				return;
			}
			this.sleeps.add(duration);
			advanceTo(this.nanos + duration.toNanos(), cancellation);
		}
	}

	/**
	 * Returns every duration slept so far, in order.
	 * @return an immutable copy
	 */
	public synchronized List<Duration> sleeps() {
		return List.copyOf(this.sleeps);
	}

	private void advanceTo(long target, Cancellation watched) {
		while (true) {
			ScheduledCancel next = null;
			for (ScheduledCancel scheduled : this.cancels) {
				if (scheduled.atNanos() <= target && (next == null || scheduled.atNanos() < next.atNanos())) {
					next = scheduled;
				}
			}
			if (next == null) {
				this.nanos = Math.max(this.nanos, target);
				return;
			}
			this.cancels.remove(next);
			this.nanos = Math.max(this.nanos, next.atNanos());
			next.cancellation().cancel();
			if (watched != null && watched.isCancelled()) {
				return;
			}
		}
	}

	private static void requireNonNegative(Duration duration) {
		Objects.requireNonNull(duration, "duration");
		if (duration.isNegative()) {
			throw new IllegalArgumentException("duration must not be negative but was " + duration);
		}
	}

	@Override
	public String toString() {
		return "FakeClock[" + elapsed() + " since " + this.origin + "]";
	}

}
