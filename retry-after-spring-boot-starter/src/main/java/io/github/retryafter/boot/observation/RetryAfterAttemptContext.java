package io.github.retryafter.boot.observation;

import java.util.function.BiConsumer;

import io.micrometer.observation.transport.RequestReplySenderContext;

/**
 * What a {@code retry.after.attempt} observation knows of one attempt: its number, and the carrier a tracer writes the
 * attempt's trace context into (it sets a header of the request the attempt sends). The response is the attempt's
 * status code, when one arrived.
 */
public class RetryAfterAttemptContext extends RequestReplySenderContext<BiConsumer<String, String>, Integer> {

	private final RetryAfterOperationContext operation;

	private final int attempt;

	/**
	 * Creates the context of one attempt.
	 * @param operation the operation it belongs to
	 * @param attempt the attempt's number, from 1
	 * @param headers sets a header of the attempt's request: the trace context is written through it
	 */
	public RetryAfterAttemptContext(RetryAfterOperationContext operation, int attempt,
			BiConsumer<String, String> headers) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.accept(key, value);
			}
		});
		this.operation = operation;
		this.attempt = attempt;
		setCarrier(headers);
	}

	/**
	 * Returns the context of the operation the attempt belongs to.
	 * @return the operation's context
	 */
	public RetryAfterOperationContext getOperation() {
		return this.operation;
	}

	/**
	 * Returns the attempt's number.
	 * @return the number, from 1
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * Returns how many times the request was sent before this attempt (OpenTelemetry's
	 * {@code http.request.resend_count}).
	 * @return the attempt's number minus one
	 */
	public int getResendCount() {
		return this.attempt - 1;
	}

}
