package io.github.retryafter.boot;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

import io.github.retryafter.Scope;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.request.Origins;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;

/**
 * The configured providers and the engine of each, and the rule that picks one for a request: the provider named in
 * the request's attributes, else the provider whose hosts match the request's host (an exact name before the longest
 * matching {@code *.suffix}), else {@code default}.
 * <p>
 * The set of providers is fixed at construction, so a provider name is always a configured name: safe as a metric tag.
 * Immutable and thread-safe.
 */
public final class RetryAfterProviders {

	private final ProviderRoutes<Provider> routes;

	/**
	 * Creates the registry.
	 * @param settings the settings of every provider, one of them named {@code default}
	 * @param engineFactory creates the engine of one provider
	 * @throws IllegalArgumentException if there is no {@code default} provider or a host is listed twice
	 */
	public RetryAfterProviders(Collection<ProviderSettings> settings,
			Function<ProviderSettings, RetryEngine> engineFactory) {
		List<Provider> providers = new ArrayList<>();
		for (ProviderSettings each : settings) {
			providers.add(new Provider(each, engineFactory.apply(each)));
		}
		this.routes = new ProviderRoutes<>(providers);
	}

	/**
	 * Returns the providers as the core routes requests along them.
	 * @return the routes
	 */
	public ProviderRoutes<Provider> routes() {
		return this.routes;
	}

	/**
	 * Picks the provider for a request.
	 * @param uri the request's URI
	 * @param explicit the provider named in the request's attributes, if any
	 * @return the provider
	 * @throws IllegalArgumentException if {@code explicit} names no configured provider
	 */
	public Provider resolve(URI uri, Optional<String> explicit) {
		return this.routes.resolve(uri, explicit);
	}

	/**
	 * Returns the host of a URI, lower case: {@link URI#getHost()}, or, when that cannot parse it (a name with an
	 * underscore, which URIs do not allow but DNS and HTTP clients do), the host part of the authority.
	 * @param uri the request's URI
	 * @return the host, or {@code null} when the URI has none
	 */
	public static String host(URI uri) {
		return Origins.host(uri);
	}

	/**
	 * Returns the origin of a URI, {@code scheme://host:port}, lower case, with the scheme's default port made
	 * explicit, so {@code https://API.example} and {@code https://api.example:443} are one origin.
	 * @param uri the request's URI
	 * @return the origin; {@code scheme://} alone when the URI has no host
	 */
	public static String origin(URI uri) {
		return Origins.origin(uri);
	}

	/**
	 * Returns the provider with the given name.
	 * @param name a provider name
	 * @return the provider, if configured
	 */
	public Optional<Provider> get(String name) {
		return this.routes.get(name);
	}

	/**
	 * Returns every provider, {@code default} included.
	 * @return the providers
	 */
	public Collection<Provider> all() {
		return this.routes.all();
	}

	/**
	 * One provider: its settings and its engine.
	 *
	 * @param settings the settings in force
	 * @param engine the engine that decides its retries
	 */
	public record Provider(ProviderSettings settings, RetryEngine engine) implements ProviderRoute {

		/**
		 * Returns the provider's name.
		 * @return the name
		 */
		@Override
		public String name() {
			return this.settings.name();
		}

		@Override
		public List<String> hosts() {
			return this.settings.hosts();
		}

		@Override
		public RetryPolicy policy() {
			return this.settings.policy();
		}

		@Override
		public boolean perOrigin() {
			return this.settings.scope() == StateScope.ORIGIN;
		}

		@Override
		public boolean idempotencyKeys() {
			return this.settings.idempotencyKeyEnabled();
		}

		@Override
		public long maxReplayBodyBytes() {
			return this.settings.maxReplayBodyBytes();
		}

		/**
		 * Returns whose shared state a request to {@code uri} uses: the provider's, or its origin's when the
		 * provider keeps its state per origin.
		 * @param uri the request's URI
		 * @return the scope
		 */
		public Scope scope(URI uri) {
			String scheme = Origins.scheme(uri);
			return ProviderRoutes.scope(this, scheme, Origins.host(uri), Origins.port(uri, scheme));
		}

		/**
		 * Returns the gates of this provider that hold requests back now: its own, or, when it keeps its state per
		 * origin, those of its origins.
		 * @return the gates cooling down or paced now
		 */
		public List<ProviderGate> activeGates() {
			List<ProviderGate> active = new ArrayList<>();
			ProviderGate own = this.engine.gate(name());
			if (isActive(own)) {
				active.add(own);
			}
			for (ProviderGate gate : this.engine.originGates()) {
				if (gate.provider().equals(name()) && isActive(gate)) {
					active.add(gate);
				}
			}
			return active;
		}

		/**
		 * Returns how long the provider's longest cooldown lasts: its own gate's, or its origins' longest.
		 * @return the remaining cooldown, zero when no gate of the provider is closed
		 */
		public Duration cooldownRemaining() {
			Duration longest = this.engine.gate(name()).cooldownRemaining();
			for (ProviderGate gate : this.engine.originGates()) {
				Duration remaining = gate.provider().equals(name()) ? gate.cooldownRemaining() : Duration.ZERO;
				if (remaining.compareTo(longest) > 0) {
					longest = remaining;
				}
			}
			return longest;
		}

		/**
		 * Returns the lowest adaptive rate in force among the provider's gates.
		 * @return requests per second, empty while no gate of the provider is paced
		 */
		public OptionalDouble rate() {
			OptionalDouble lowest = this.engine.gate(name()).rate();
			for (ProviderGate gate : this.engine.originGates()) {
				OptionalDouble rate = gate.provider().equals(name()) ? gate.rate() : OptionalDouble.empty();
				if (rate.isPresent() && (lowest.isEmpty() || rate.getAsDouble() < lowest.getAsDouble())) {
					lowest = rate;
				}
			}
			return lowest;
		}

		/**
		 * Returns how many requests wait at the provider's gates.
		 * @return the count over its own gate and its origins'
		 */
		public int queued() {
			int queued = this.engine.gate(name()).queued();
			for (ProviderGate gate : this.engine.originGates()) {
				queued += gate.provider().equals(name()) ? gate.queued() : 0;
			}
			return queued;
		}

		private static boolean isActive(ProviderGate gate) {
			return !gate.cooldownRemaining().isZero() || gate.rate().isPresent() || gate.probing()
					|| gate.queued() > 0;
		}

	}

}
