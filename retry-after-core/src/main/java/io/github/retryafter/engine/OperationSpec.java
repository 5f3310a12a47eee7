package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.Scope;

/**
 * What the engine needs to know about one logical operation before its first attempt.
 *
 * @param scope whose shared state (gate and budget bucket) the operation uses: its configured provider ({@code default}
 * when none matched; never a host or URL), and the request's origin when that provider keeps its state per origin
 * @param method the HTTP method, upper case
 * @param idempotencyKey the key that identifies the logical operation on every attempt, when the request carries one
 * @param deadline a deadline for this operation that overrides the policy's, measured from its start
 * @param jitterKey the operation's identity for keyed jitter (instance identity combined with the operation's)
 * @param replayable whether the request body can be sent again (a buffered body, or none)
 * @param host the host the request goes to, for logs and events only (never a path, query or user info), when known
 */
public record OperationSpec(Scope scope, String method, Optional<String> idempotencyKey,
		Optional<Duration> deadline, Optional<String> jitterKey, boolean replayable, Optional<String> host) {

	/** The provider name used when no configured provider matches. */
	public static final String DEFAULT_PROVIDER = "default";

	/**
	 * Checks and normalizes the arguments.
	 * @param scope whose shared state (gate and budget bucket) the operation uses: its configured provider
	 * ({@code default} when none matched; never a host or URL), and the request's origin when that provider keeps its
	 * state per origin
	 * @param method the HTTP method, upper case
	 * @param idempotencyKey the key that identifies the logical operation on every attempt, when the request carries
	 * one
	 * @param deadline a deadline for this operation that overrides the policy's, measured from its start
	 * @param jitterKey the operation's identity for keyed jitter (instance identity combined with the operation's)
	 * @param replayable whether the request body can be sent again (a buffered body, or none)
	 * @param host the host the request goes to, for logs and events only (never a path, query or user info), when known
	 */
	public OperationSpec {
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(method, "method");
		method = method.toUpperCase(Locale.ROOT);
		Objects.requireNonNull(idempotencyKey, "idempotencyKey");
		Objects.requireNonNull(deadline, "deadline");
		Objects.requireNonNull(jitterKey, "jitterKey");
		Objects.requireNonNull(host, "host");
		deadline.ifPresent(value -> {
			if (value.isNegative()) {
				throw new IllegalArgumentException("deadline must not be negative but was " + value);
			}
		});
	}

	/**
	 * Creates a spec that uses the whole provider's shared state.
	 * @param provider the configured provider name ({@code default} when none matched); never a host or URL
	 * @param method the HTTP method
	 * @param idempotencyKey the operation's idempotency key, if any
	 * @param deadline a deadline overriding the policy's, if any
	 * @param jitterKey the operation's identity for keyed jitter, if any
	 * @param replayable whether the request body can be sent again
	 */
	public OperationSpec(String provider, String method, Optional<String> idempotencyKey, Optional<Duration> deadline,
			Optional<String> jitterKey, boolean replayable) {
		this(Scope.provider(provider), method, idempotencyKey, deadline, jitterKey, replayable, Optional.empty());
	}

	/**
	 * Creates a spec whose host is not known.
	 * @param scope whose shared state the operation uses
	 * @param method the HTTP method
	 * @param idempotencyKey the operation's idempotency key, if any
	 * @param deadline a deadline overriding the policy's, if any
	 * @param jitterKey the operation's identity for keyed jitter, if any
	 * @param replayable whether the request body can be sent again
	 */
	public OperationSpec(Scope scope, String method, Optional<String> idempotencyKey, Optional<Duration> deadline,
			Optional<String> jitterKey, boolean replayable) {
		this(scope, method, idempotencyKey, deadline, jitterKey, replayable, Optional.empty());
	}

	/**
	 * Returns the configured provider the operation's settings, budget and metrics belong to.
	 * @return the provider name
	 */
	public String provider() {
		return this.scope.provider();
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
		return new OperationSpec(Scope.provider(provider), this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				this.replayable, this.host);
	}

	/**
	 * Returns a copy that uses the given scope's shared state.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return a new spec
	 */
	public OperationSpec withScope(Scope scope) {
		return new OperationSpec(scope, this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				this.replayable, this.host);
	}

	/**
	 * Returns a copy carrying the given idempotency key.
	 * @param key the key, or {@code null} for none
	 * @return a new spec
	 */
	public OperationSpec withIdempotencyKey(String key) {
		return new OperationSpec(this.scope, this.method, Optional.ofNullable(key), this.deadline, this.jitterKey,
				this.replayable, this.host);
	}

	/**
	 * Returns a copy with its own deadline.
	 * @param deadline the deadline from the operation's start, or {@code null} for the policy's
	 * @return a new spec
	 */
	public OperationSpec withDeadline(Duration deadline) {
		return new OperationSpec(this.scope, this.method, this.idempotencyKey, Optional.ofNullable(deadline),
				this.jitterKey, this.replayable, this.host);
	}

	/**
	 * Returns a copy with the given jitter key.
	 * @param key the key, or {@code null} for none
	 * @return a new spec
	 */
	public OperationSpec withJitterKey(String key) {
		return new OperationSpec(this.scope, this.method, this.idempotencyKey, this.deadline,
				Optional.ofNullable(key), this.replayable, this.host);
	}

	/**
	 * Returns a copy naming the host the request goes to, for logs and events.
	 * @param host the host, or {@code null} when unknown
	 * @return a new spec
	 */
	public OperationSpec withHost(String host) {
		return new OperationSpec(this.scope, this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				this.replayable, Optional.ofNullable(host));
	}

	/**
	 * Returns a copy saying whether the body can be replayed.
	 * @param replayable whether the body can be sent again
	 * @return a new spec
	 */
	public OperationSpec withReplayable(boolean replayable) {
		return new OperationSpec(this.scope, this.method, this.idempotencyKey, this.deadline, this.jitterKey,
				replayable, this.host);
	}

	/**
	 * Describes the operation without the idempotency key's or the jitter key's value: a key may be a secret a log
	 * must not hold.
	 * @return the operation, each key shown as {@code present} or {@code none}
	 */
	@Override
	public String toString() {
		return "OperationSpec[scope=" + this.scope + ", method=" + this.method + ", idempotencyKey="
				+ (this.idempotencyKey.isPresent() ? "present" : "none") + ", deadline=" + this.deadline
				+ ", jitterKey=" + (this.jitterKey.isPresent() ? "present" : "none") + ", replayable="
				+ this.replayable + ", host=" + this.host + "]";
	}

}
