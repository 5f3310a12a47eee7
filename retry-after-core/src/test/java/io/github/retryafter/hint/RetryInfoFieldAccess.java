package io.github.retryafter.hint;

import io.github.retryafter.BodySource;

/**
 * The package-private body reader, for the generated tests of another package.
 */
public final class RetryInfoFieldAccess {

	private RetryInfoFieldAccess() {
	}

	/**
	 * Parses a body read to the bound.
	 * @param body the body's first bytes
	 * @return the wait in milliseconds, or {@code -1} when absent
	 */
	public static long parse(byte[] body) {
		return RetryInfoField.parse(body, BodySource.MAX_BYTES);
	}

}
