package io.github.retryafter.test;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One request as the {@link ScriptedTransport} saw it. Immutable.
 *
 * @param method the HTTP method
 * @param path the path
 * @param idempotencyKey the idempotency key it carried
 * @param body the body
 * @param attempt the attempt number
 * @param timeout the timeout it was given
 * @param sentAt the virtual time it was sent, since the clock's creation
 */
public record SimRequest(String method, String path, Optional<String> idempotencyKey, String body, int attempt,
		Duration timeout, Duration sentAt) {

	/**
	 * Checks the arguments.
	 * @param method the HTTP method
	 * @param path the path
	 * @param idempotencyKey the idempotency key it carried
	 * @param body the body
	 * @param attempt the attempt number
	 * @param timeout the timeout it was given
	 * @param sentAt the virtual time it was sent, since the clock's creation
	 */
	public SimRequest {
		Objects.requireNonNull(method, "method");
		Objects.requireNonNull(path, "path");
		Objects.requireNonNull(idempotencyKey, "idempotencyKey");
		Objects.requireNonNull(body, "body");
		Objects.requireNonNull(timeout, "timeout");
		Objects.requireNonNull(sentAt, "sentAt");
	}

}
