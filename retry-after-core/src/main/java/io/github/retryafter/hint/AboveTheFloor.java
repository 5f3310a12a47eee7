package io.github.retryafter.hint;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.JitterMode;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.KeyedPosition;
import io.github.retryafter.internal.Saturating;

/**
 * The planner's last steps, the same whether the floor came from a response's field or from an instant an inner
 * retry layer handed on: refuse a floor above the max wait (never shorten it), and draw the jitter above the floor
 * within its spread. Everything in whole milliseconds, the spread and the jitter rounded down. Immutable and
 * thread-safe as long as its {@link RandomSource} is.
 */
final class AboveTheFloor {

	private final PlannerOptions options;

	private final RandomSource random;

	AboveTheFloor(PlannerOptions options, RandomSource random) {
		this.options = options;
		this.random = random;
	}

	/**
	 * Refuses a floor above the max wait: the wait is refused rather than shortened.
	 * @param label how the instruction is named in the message
	 * @param instructedMillis what was instructed, before age
	 * @param ageMillis the age taken off it
	 * @return the max wait in milliseconds, {@link Long#MAX_VALUE} without one
	 */
	long requireWithinMaxWait(long floorMillis, String label, long instructedMillis, long ageMillis) {
		Optional<Duration> maxWait = this.options.maxWait();
		if (maxWait.isEmpty()) {
			return Long.MAX_VALUE;
		}
		long maxWaitMillis = Saturating.toMillis(maxWait.get());
		if (floorMillis > maxWaitMillis) {
			throw new RetryAfterException(RetryAfterError.TOO_LONG, label + " asks for at least " + floorMillis
					+ " ms (" + instructedMillis + " ms instructed, " + ageMillis + " ms of age taken off) but maxWait is "
					+ maxWaitMillis + " ms. The wait is refused rather than shortened, because retrying earlier than the"
					+ " server said is the failure this library exists to prevent. Stop retrying this operation, or raise"
					+ " maxWait if waiting that long is acceptable.");
		}
		return maxWaitMillis;
	}

	/** {@code clamp(floor × ratio, minSpread, maxSpread)}, rounded down to the millisecond. */
	long spread(long floorMillis) {
		long min = Saturating.toMillis(this.options.minSpread());
		long max = Saturating.toMillis(this.options.maxSpread());
		double scaled = Math.floor(floorMillis * this.options.spreadRatio());
		if (scaled <= min) {
			return min;
		}
		return (scaled >= max) ? max : (long) scaled;
	}

	/** A position in {@code [0, spread)}, rounded down to the millisecond. */
	long jitter(PlanRequest request, long spreadMillis) {
		JitterMode mode = this.options.jitter();
		if (mode == JitterMode.NONE) {
			return 0;
		}
		double position = (mode == JitterMode.KEYED && request.jitterKey().isPresent())
				? KeyedPosition.of(request.jitterKey().get(), request.attempt()) : draw();
		if (spreadMillis == 0) {
			return 0;
		}
		// position < 1, but position × spread can round up to spread in floating point: stay strictly below it.
		return Math.min((long) (position * spreadMillis), spreadMillis - 1);
	}

	private double draw() {
		double value = this.random.nextDouble();
		if (!(value >= 0 && value < 1)) {
			throw new RetryAfterException(RetryAfterError.INVALID_RANDOM, "The RandomSource returned " + value
					+ ", but draws must be in [0, 1); a draw outside it would become a strange or immediate retry."
					+ " Fix the RandomSource given to the planner (or use RandomSource.threadLocal()).");
		}
		return value;
	}

}
