package io.github.retryafter.request;

import java.time.Duration;
import java.util.Optional;

/**
 * What one request says of its own operation, beside its method, URI and header fields: the provider it names, the
 * idempotency key it gives, and a deadline of its own. The Spring Boot starter reads these from request attributes.
 */
public interface OperationOptions {

	/** The options of a request that sets none. */
	OperationOptions NONE = of(Optional.empty(), Optional.empty(), Optional.empty());

	/**
	 * Returns the provider the request names, whatever its host.
	 * @return the provider's name, if named
	 */
	Optional<String> provider();

	/**
	 * Returns the idempotency key the request gives, sent on every attempt.
	 * @return the key, if given
	 */
	Optional<String> idempotencyKey();

	/**
	 * Returns the operation's own deadline, measured from its start, in place of its provider's.
	 * @return the deadline, if given
	 */
	Optional<Duration> deadline();

	/**
	 * Returns options of the given values.
	 * @param provider the provider the request names
	 * @param idempotencyKey the key the request gives
	 * @param deadline the operation's own deadline
	 * @return the options
	 */
	static OperationOptions of(Optional<String> provider, Optional<String> idempotencyKey,
			Optional<Duration> deadline) {
		return new Given(provider, idempotencyKey, deadline);
	}

	/** Options given by their values. */
	record Given(Optional<String> provider, Optional<String> idempotencyKey, Optional<Duration> deadline)
			implements OperationOptions {

		/**
		 * Describes the options without the idempotency key's value: a key may be a secret a log must not hold.
		 * @return the options, the key shown as {@code present} or {@code none}
		 */
		@Override
		public String toString() {
			return "OperationOptions[provider=" + this.provider + ", idempotencyKey="
					+ (this.idempotencyKey.isPresent() ? "present" : "none") + ", deadline=" + this.deadline + "]";
		}

	}

}
