package io.github.retryafter;

/**
 * Thrown when a {@code Retry-After} field cannot be turned into a wait. The {@link #code() code} says which rule was
 * broken; the message says what was received (header values cut to 64 characters) and what to do about it.
 * <p>
 * Unchecked: the retry engine catches it and falls back to its own backoff, except for {@link RetryAfterError#TOO_LONG},
 * which stops the operation (the server's instruction is valid, only longer than the caller will wait).
 */
public class RetryAfterException extends RuntimeException {

	/** The rule that was broken; serialized with the exception. */
	private final RetryAfterError code;

	/**
	 * Creates an exception.
	 * @param code the rule that was broken
	 * @param message what was received and what to do about it
	 */
	public RetryAfterException(RetryAfterError code, String message) {
		super(message);
		this.code = code;
	}

	/**
	 * Returns the rule that was broken.
	 * @return the error code
	 */
	public RetryAfterError code() {
		return this.code;
	}

}
