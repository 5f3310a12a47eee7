package io.github.retryafter.engine;

/**
 * How a logical operation ended. When several stops apply at once, the engine reports them in this priority: cancelled,
 * deadline, not retryable / outcome unknown, attempts, wait too long, wait exceeds deadline, total wait, the budget
 * last, so no token is spent on a retry that would not happen. Before an attempt: cancelled, deadline, provider cooling
 * down, then the budget, so no token is spent on a request the provider's gate holds back.
 */
public enum Outcome {

	/** An attempt succeeded. */
	SUCCESS,

	/** The last response or failure is not one to retry (a 400, a 404, a redirect...), or the body cannot be replayed. */
	NOT_RETRYABLE,

	/** The attempt limit was reached. */
	ATTEMPTS_EXHAUSTED,

	/** The operation's deadline passed, or too little of it is left for a useful attempt. */
	DEADLINE_EXCEEDED,

	/** The server's wait (or our backoff) plus a useful attempt does not fit in the remaining deadline. */
	WAIT_EXCEEDS_DEADLINE,

	/** The server asked for a wait longer than the configured maximum; it is never shortened to fit. */
	WAIT_TOO_LONG,

	/** The next wait would take the operation's total waiting past its cap. */
	TOTAL_WAIT_EXCEEDED,

	/** The retry budget (the provider's or the global one) has no token for another attempt. */
	BUDGET_EXHAUSTED,

	/** An unsafe request may have been applied and cannot be replayed safely: look the outcome up before sending again. */
	OUTCOME_UNKNOWN,

	/**
	 * The provider is cooling down after a {@code Retry-After} (its own or another operation's) or paced, and the
	 * operation's deadline cannot accommodate the wait, pacing is fail-fast, or its gate already holds
	 * {@code max-queued} requests; no request was sent to it.
	 */
	PROVIDER_COOLING_DOWN,

	/** The operation was cancelled; no further request was sent. */
	CANCELLED

}
