package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.internal.Saturating;

/**
 * The client's own full-jitter backoff, used when the server gave no usable {@code Retry-After}: after the n-th failure
 * the ceiling is {@code min(max, base × 2^(n-1))} and the delay is {@code draw × ceiling} for a draw in {@code [0, 1)}.
 * Overflow-safe for any failure count; durations beyond a {@code long} of nanoseconds (about 292 years) count as that
 * long. Immutable and thread-safe.
 *
 * @param base the first ceiling
 * @param max the largest ceiling
 */
public record Backoff(Duration base, Duration max) {

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param base the first ceiling
	 * @param max the largest ceiling
	 */
	public Backoff {
		Objects.requireNonNull(base, "base");
		Objects.requireNonNull(max, "max");
		if (base.isNegative() || base.isZero()) {
			throw new IllegalArgumentException("backoff base must be positive but was " + base);
		}
		if (max.compareTo(base) < 0) {
			throw new IllegalArgumentException("backoff max (" + max + ") must not be less than its base (" + base + ")");
		}
	}

	/**
	 * Returns the ceiling after the n-th failure, {@code min(max, base × 2^(n-1))}, without overflowing.
	 * @param failures how many attempts have failed, from 1
	 * @return the ceiling
	 */
	public Duration ceiling(int failures) {
		if (failures < 1) {
			throw new IllegalArgumentException("failures must be at least 1 but was " + failures);
		}
		long baseNanos = Saturating.toNanos(this.base);
		long maxNanos = Saturating.toNanos(this.max);
		int shift = failures - 1;
		if (shift >= 63 || baseNanos > (maxNanos >> shift)) {
			return Duration.ofNanos(maxNanos);
		}
		return Duration.ofNanos(baseNanos << shift);
	}

	/**
	 * Draws the delay after the n-th failure: {@code draw × ceiling(n)}, at millisecond precision.
	 * @param failures how many attempts have failed, from 1
	 * @param draw a random number in {@code [0, 1)}
	 * @return the draw and the delay it gives (rounded to the nearest millisecond)
	 */
	public BackoffDraw draw(int failures, double draw) {
		if (!(draw >= 0.0 && draw < 1.0)) {
			throw new IllegalArgumentException("backoff draw must be in [0, 1) but was " + draw);
		}
		Duration ceiling = ceiling(failures);
		long delayMillis = Math.round(ceiling.toMillis() * draw);
		return new BackoffDraw(failures, ceiling, draw, Duration.ofMillis(delayMillis));
	}

}
