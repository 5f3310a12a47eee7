package io.github.retryafter.boot.observation;

import io.micrometer.observation.Observation;

import io.github.retryafter.engine.Outcome;

/**
 * What a {@code retry.after.operation} observation knows of one logical operation: its provider, method and host from
 * the start, and its outcome and number of attempts once it has ended.
 */
public class RetryAfterOperationContext extends Observation.Context {

	private final String provider;

	private final String method;

	private final String host;

	private volatile Outcome outcome;

	private volatile int attempts;

	/**
	 * Creates the context of an operation that has not sent anything yet.
	 * @param provider the provider's configured name
	 * @param method the HTTP method, upper case
	 * @param host the request's host, never its path or query
	 */
	public RetryAfterOperationContext(String provider, String method, String host) {
		this.provider = provider;
		this.method = method;
		this.host = host;
	}

	/**
	 * Returns the provider's configured name.
	 * @return the provider
	 */
	public String getProvider() {
		return this.provider;
	}

	/**
	 * Returns the HTTP method.
	 * @return the method, upper case
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Returns the request's host.
	 * @return the host, or an empty string when the URI has none
	 */
	public String getHost() {
		return this.host;
	}

	/**
	 * Returns how the operation ended.
	 * @return the outcome, or {@code null} while it runs or when it ended without one (an exception thrown by a
	 * listener, say)
	 */
	public Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Returns the number of attempts sent so far.
	 * @return the attempts
	 */
	public int getAttempts() {
		return this.attempts;
	}

	void ended(Outcome outcome, int attempts) {
		this.outcome = outcome;
		this.attempts = attempts;
	}

}
