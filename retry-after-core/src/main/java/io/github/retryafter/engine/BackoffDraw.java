package io.github.retryafter.engine;

import java.time.Duration;

/**
 * One fallback backoff decision, with the numbers it was made from.
 *
 * @param failures how many attempts had failed
 * @param ceiling the backoff ceiling after that many failures
 * @param draw the random number in {@code [0, 1)}
 * @param delay {@code draw × ceiling}, at millisecond precision
 */
public record BackoffDraw(int failures, Duration ceiling, double draw, Duration delay) {
}
