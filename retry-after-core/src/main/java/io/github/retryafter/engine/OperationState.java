package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * Where a logical operation stands when the engine decides after an attempt. Immutable.
 *
 * @param spec the operation
 * @param attempts how many attempts have been made, including the one just finished
 * @param startedAtNanos the ticker reading when the operation started
 * @param deadlineNanos the absolute deadline on the monotonic ticker
 * @param totalWait the waiting done so far between attempts
 * @param cancelled whether the operation's cancellation has fired
 */
public record OperationState(OperationSpec spec, int attempts, long startedAtNanos, long deadlineNanos,
		Duration totalWait, boolean cancelled) {

	/**
	 * Checks the arguments.
	 * @param spec the operation
	 * @param attempts how many attempts have been made, including the one just finished
	 * @param startedAtNanos the ticker reading when the operation started
	 * @param deadlineNanos the absolute deadline on the monotonic ticker
	 * @param totalWait the waiting done so far between attempts
	 * @param cancelled whether the operation's cancellation has fired
	 */
	public OperationState {
		Objects.requireNonNull(spec, "spec");
		Objects.requireNonNull(totalWait, "totalWait");
		if (attempts < 1) {
			throw new IllegalArgumentException("attempts must be at least 1 but was " + attempts);
		}
	}

	/**
	 * Creates a state for an operation that is not cancelled.
	 * @param spec the operation
	 * @param attempts how many attempts have been made, including the one just finished
	 * @param startedAtNanos the ticker reading when the operation started
	 * @param deadlineNanos the absolute deadline on the monotonic ticker
	 * @param totalWait the waiting done so far between attempts
	 */
	public OperationState(OperationSpec spec, int attempts, long startedAtNanos, long deadlineNanos,
			Duration totalWait) {
		this(spec, attempts, startedAtNanos, deadlineNanos, totalWait, false);
	}

}
