package io.github.retryafter.engine;

import java.time.Duration;

/**
 * Where a logical operation stands when the engine decides after an attempt.
 *
 * @param spec the operation
 * @param attempts how many attempts have been made, including the one just finished
 * @param startedAtNanos the ticker reading when the operation started
 * @param deadlineNanos the absolute deadline on the monotonic ticker
 * @param totalWait the waiting done so far between attempts
 */
public record OperationState(OperationSpec spec, int attempts, long startedAtNanos, long deadlineNanos,
		Duration totalWait) {
}
