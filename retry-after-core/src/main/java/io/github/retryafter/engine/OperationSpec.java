package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What the engine needs to know about one logical operation before its first attempt.
 *
 * @param provider the configured provider name the operation's budget and metrics belong to ({@code default} when none
 * matched); never a host or URL
 * @param method the HTTP method, upper case
 * @param idempotencyKey the key that identifies the logical operation on every attempt, when the request carries one
 * @param deadline a deadline for this operation that overrides the policy's, measured from its start
 * @param jitterKey the operation's identity for keyed jitter (instance identity combined with the operation's)
 * @param replayable whether the request body can be sent again (a buffered body, or none)
 */
public record OperationSpec(String provider, String method, Optional<String> idempotencyKey,
		Optional<Duration> deadline, Optional<String> jitterKey, boolean replayable) {

	/** The provider name used when no configured provider matches. */
	public static final String DEFAULT_PROVIDER = "default";

	/**
	 * Checks and normalizes the arguments.
	 * @param provider the configured provider name the operation's budget and metrics belong to ({@code default} when
	 * none matched); never a host or URL
	 * @param method the HTTP method, upper case
	 * @param idempotencyKey the key that identifies the logical operation on every attempt, when the request carries
	 * one
	 * @param deadline a deadline for this operation that overrides the policy's, measured from its start
	 * @param jitterKey the operation's identity for keyed jitter (instance identity combined with the operation's)
	 * @param replayable whether the request body can be sent again (a buffered body, or none)
	 */
	public OperationSpec {
		Objects.requireNonNull(provider, "provider");
		Objects.requireNonNull(method, "method");
		method = method.toUpperCase(Locale.ROOT);
		Objects.requireNonNull(idempotencyKey, "idempotencyKey");
		Objects.requireNonNull(deadline, "deadline");
		Objects.requireNonNull(jitterKey, "jitterKey");
		deadline.ifPresent(value -> {
			if (value.isNegative()) {
				throw new IllegalArgumentException("deadline must not be negative but was " + value);
			}
		});
	}

	/**
	 * Returns a spec for a replayable request with the given method on the default provider, with no key, no deadline
	 * override and no jitter key.
	 * @param method the HTTP method
	 * @return a new spec
	 */
	public static OperationSpec of(String method) {
		return new OperationSpec(DEFAULT_PROVIDER, method, Optional.empty(), Optional.empty(), Optional.empty(), true);
	}

	/**
	 * Returns a copy for the given provider.
	 * @param provider the provider name
	 * @return a new spec
	 */
	public OperationSpec withProvider(String provider) {
		return new OperationSpec(provider, this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				this.replayable);
	}

	/**
	 * Returns a copy carrying the given idempotency key.
	 * @param key the key, or {@code null} for none
	 * @return a new spec
	 */
	public OperationSpec withIdempotencyKey(String key) {
		return new OperationSpec(this.provider, this.method, Optional.ofNullable(key), this.deadline, this.jitterKey,
				this.replayable);
	}

	/**
	 * Returns a copy with its own deadline.
	 * @param deadline the deadline from the operation's start, or {@code null} for the policy's
	 * @return a new spec
	 */
	public OperationSpec withDeadline(Duration deadline) {
		return new OperationSpec(this.provider, this.method, this.idempotencyKey, Optional.ofNullable(deadline),
				this.jitterKey, this.replayable);
	}

	/**
	 * Returns a copy with the given jitter key.
	 * @param key the key, or {@code null} for none
	 * @return a new spec
	 */
	public OperationSpec withJitterKey(String key) {
		return new OperationSpec(this.provider, this.method, this.idempotencyKey, this.deadline,
				Optional.ofNullable(key), this.replayable);
	}

	/**
	 * Returns a copy saying whether the body can be replayed.
	 * @param replayable whether the body can be sent again
	 * @return a new spec
	 */
	public OperationSpec withReplayable(boolean replayable) {
		return new OperationSpec(this.provider, this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				replayable);
	}

}
