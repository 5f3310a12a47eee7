package io.github.retryafter;

import java.util.Objects;
import java.util.Optional;

/**
 * Whose shared state an operation uses (its provider's gate and retry-budget bucket): the whole provider's, or one
 * origin's within it.
 * <p>
 * A provider whose hosts a user grouped together shares one state: one host's {@code Retry-After} pauses them all,
 * because that is what grouping them means. A provider that keeps its state per origin (the starter's
 * {@code default}, which collects every host nobody named) gives each origin its own, so one remote's trouble never
 * pauses or starves another. An origin is {@code scheme://host:port}, lower case, with the scheme's default port
 * made explicit.
 *
 * @param provider the configured provider name (a bounded set: safe as a metric tag)
 * @param origin the origin within the provider whose own state this is, empty for the provider's shared state
 */
public record Scope(String provider, Optional<String> origin) {

	/**
	 * Checks the arguments.
	 * @param provider the configured provider name (a bounded set: safe as a metric tag)
	 * @param origin the origin within the provider whose own state this is, empty for the provider's shared state
	 */
	public Scope {
		Objects.requireNonNull(provider, "provider");
		Objects.requireNonNull(origin, "origin");
	}

	/**
	 * Returns the shared state of a whole provider.
	 * @param provider the provider name
	 * @return the provider's scope
	 */
	public static Scope provider(String provider) {
		return new Scope(provider, Optional.empty());
	}

	/**
	 * Returns the state of one origin of a provider.
	 * @param provider the provider name
	 * @param origin the origin, {@code scheme://host:port}
	 * @return the origin's scope
	 */
	public static Scope origin(String provider, String origin) {
		return new Scope(provider, Optional.of(origin));
	}

	/**
	 * Returns whether this is one origin's state rather than the whole provider's.
	 * @return whether an origin is named
	 */
	public boolean perOrigin() {
		return this.origin.isPresent();
	}

	/**
	 * Returns the scope as people read it: {@code payments}, or {@code default (https://api.example:443)}.
	 * @return a short description
	 */
	@Override
	public String toString() {
		return this.origin.map((value) -> this.provider + " (" + value + ")").orElse(this.provider);
	}

}
