package io.github.retryafter.request;

import java.util.List;
import java.util.Objects;

import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;

/**
 * One provider as requests are routed to it: its name, the hosts it serves, the engine that decides its retries, and
 * what its requests are prepared with. The Spring Boot starter's providers are routes; {@link #of} makes one for the
 * JDK adapter. Implementations are immutable and thread-safe.
 */
public interface ProviderRoute {

	/** The most a request body of known length may hold and still be replayed unless a route says otherwise: 1 MiB. */
	long DEFAULT_MAX_REPLAY_BODY_BYTES = 1024 * 1024;

	/**
	 * Returns the provider's configured name: a bounded value, safe as a metric tag.
	 * @return the name ({@code default} for requests no other route matches)
	 */
	String name();

	/**
	 * Returns the host names and {@code *.suffix} patterns the provider serves.
	 * @return the hosts, in any case
	 */
	List<String> hosts();

	/**
	 * Returns the engine that decides the provider's retries.
	 * @return the engine
	 */
	RetryEngine engine();

	/**
	 * Returns the policy the provider's requests are prepared with (its idempotency-key header, its jitter).
	 * @return the policy, by default the engine's
	 */
	default RetryPolicy policy() {
		return engine().policy();
	}

	/**
	 * Returns whether each origin ({@code scheme://host:port}) of the provider keeps its own gate and budget bucket,
	 * rather than all its hosts sharing one.
	 * @return whether the state is kept per origin
	 */
	boolean perOrigin();

	/**
	 * Returns whether a POST or PATCH without an idempotency key is given a fresh one, which makes it retryable.
	 * @return whether keys are added
	 */
	boolean idempotencyKeys();

	/**
	 * Returns the largest request body, in bytes, that is kept for replay.
	 * @return the bound
	 */
	long maxReplayBodyBytes();

	/**
	 * Returns a route that adds no idempotency keys and replays bodies up to {@link #DEFAULT_MAX_REPLAY_BODY_BYTES};
	 * its state is kept per origin when it is {@code default}, else shared by its hosts.
	 * @param name the provider's name
	 * @param engine the engine that decides its retries
	 * @param hosts the host names and {@code *.suffix} patterns it serves
	 * @return the route
	 */
	static Simple of(String name, RetryEngine engine, String... hosts) {
		return new Simple(name, List.of(hosts), engine, OperationSpec.DEFAULT_PROVIDER.equals(name), false,
				DEFAULT_MAX_REPLAY_BODY_BYTES);
	}

	/**
	 * A route given by its values.
	 *
	 * @param name the provider's name
	 * @param hosts the host names and {@code *.suffix} patterns it serves
	 * @param engine the engine that decides its retries
	 * @param perOrigin whether each origin keeps its own state
	 * @param idempotencyKeys whether a POST or PATCH without a key is given one
	 * @param maxReplayBodyBytes the largest request body kept for replay
	 */
	record Simple(String name, List<String> hosts, RetryEngine engine, boolean perOrigin, boolean idempotencyKeys,
			long maxReplayBodyBytes) implements ProviderRoute {

		/**
		 * Checks the values and copies the host list.
		 * @param name the provider's name
		 * @param hosts the host names and {@code *.suffix} patterns it serves
		 * @param engine the engine that decides its retries
		 * @param perOrigin whether each origin keeps its own state
		 * @param idempotencyKeys whether a POST or PATCH without a key is given one
		 * @param maxReplayBodyBytes the largest request body kept for replay
		 */
		public Simple {
			Objects.requireNonNull(name, "name");
			hosts = List.copyOf(hosts);
			Objects.requireNonNull(engine, "engine");
			if (maxReplayBodyBytes < 0) {
				throw new IllegalArgumentException(
						"maxReplayBodyBytes must not be negative but was " + maxReplayBodyBytes);
			}
		}

		/**
		 * Returns a copy that adds idempotency keys, or not.
		 * @param enabled whether a POST or PATCH without a key is given one
		 * @return a new route
		 */
		public Simple withIdempotencyKeys(boolean enabled) {
			return new Simple(this.name, this.hosts, this.engine, this.perOrigin, enabled, this.maxReplayBodyBytes);
		}

		/**
		 * Returns a copy whose state is kept per origin, or shared by its hosts.
		 * @param enabled whether each origin keeps its own state
		 * @return a new route
		 */
		public Simple withPerOrigin(boolean enabled) {
			return new Simple(this.name, this.hosts, this.engine, enabled, this.idempotencyKeys,
					this.maxReplayBodyBytes);
		}

	}

}
