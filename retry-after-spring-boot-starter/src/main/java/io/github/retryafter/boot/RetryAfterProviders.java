package io.github.retryafter.boot;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

import io.github.retryafter.Scope;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.pacing.ProviderGate;

/**
 * The configured providers and the engine of each, and the rule that picks one for a request: the provider named in
 * the request's attributes, else the provider whose hosts match the request's host (an exact name before the longest
 * matching {@code *.suffix}), else {@code default}.
 * <p>
 * The set of providers is fixed at construction, so a provider name is always a configured name: safe as a metric tag.
 * Immutable and thread-safe.
 */
public final class RetryAfterProviders {

	private final Map<String, Provider> byName;

	private final Map<String, Provider> byExactHost;

	private final List<Map.Entry<String, Provider>> bySuffix;

	private final Provider defaultProvider;

	/**
	 * Creates the registry.
	 * @param settings the settings of every provider, one of them named {@code default}
	 * @param engineFactory creates the engine of one provider
	 * @throws IllegalArgumentException if there is no {@code default} provider or a host is listed twice
	 */
	public RetryAfterProviders(Collection<ProviderSettings> settings,
			Function<ProviderSettings, RetryEngine> engineFactory) {
		Map<String, Provider> byName = new LinkedHashMap<>();
		Map<String, Provider> byExactHost = new LinkedHashMap<>();
		Map<String, Provider> bySuffix = new LinkedHashMap<>();
		for (ProviderSettings each : settings) {
			Provider provider = new Provider(each, engineFactory.apply(each));
			byName.put(each.name(), provider);
			for (String host : each.hosts()) {
				String normalized = host.trim().toLowerCase(Locale.ROOT);
				Map<String, Provider> target = byExactHost;
				if (normalized.startsWith("*.")) {
					normalized = normalized.substring(1);
					target = bySuffix;
				}
				Provider previous = target.putIfAbsent(normalized, provider);
				if (previous != null && previous != provider) {
					throw new IllegalArgumentException("host '" + host + "' is listed under two providers, '"
							+ previous.name() + "' and '" + each.name() + "'; list it under one");
				}
			}
		}
		this.defaultProvider = byName.get(OperationSpec.DEFAULT_PROVIDER);
		if (this.defaultProvider == null) {
			throw new IllegalArgumentException("no '" + OperationSpec.DEFAULT_PROVIDER + "' provider was configured");
		}
		this.byName = Map.copyOf(byName);
		this.byExactHost = Map.copyOf(byExactHost);
		List<Map.Entry<String, Provider>> suffixes = new ArrayList<>(bySuffix.entrySet());
		suffixes.sort(Comparator.comparingInt((Map.Entry<String, Provider> entry) -> entry.getKey().length()).reversed());
		this.bySuffix = List.copyOf(suffixes);
	}

	/**
	 * Picks the provider for a request.
	 * @param uri the request's URI
	 * @param explicit the provider named in the request's attributes, if any
	 * @return the provider
	 * @throws IllegalArgumentException if {@code explicit} names no configured provider
	 */
	public Provider resolve(URI uri, Optional<String> explicit) {
		if (explicit.isPresent()) {
			Provider provider = this.byName.get(explicit.get());
			if (provider == null) {
				throw new IllegalArgumentException("request names retry-after provider '" + explicit.get()
						+ "' but only " + this.byName.keySet() + " are configured under retry.after.providers");
			}
			return provider;
		}
		return resolveHost(host(uri));
	}

	/** The provider whose hosts match {@code host} (lower case, or {@code null}), else {@code default}. */
	Provider resolveHost(String host) {
		if (host == null) {
			return this.defaultProvider;
		}
		Provider exact = this.byExactHost.get(host);
		if (exact != null) {
			return exact;
		}
		for (Map.Entry<String, Provider> suffix : this.bySuffix) {
			if (host.endsWith(suffix.getKey())) {
				return suffix.getValue();
			}
		}
		return this.defaultProvider;
	}

	/**
	 * Returns the host of a URI, lower case: {@link URI#getHost()}, or, when that cannot parse it (a name with an
	 * underscore, which URIs do not allow but DNS and HTTP clients do), the host part of the authority.
	 * @param uri the request's URI
	 * @return the host, or {@code null} when the URI has none
	 */
	public static String host(URI uri) {
		String host = uri.getHost();
		if (host == null) {
			String authority = uri.getRawAuthority();
			if (authority == null) {
				return null;
			}
			int at = authority.lastIndexOf('@');
			host = authority.substring(at + 1);
			if (!host.startsWith("[")) {
				int colon = host.lastIndexOf(':');
				host = (colon >= 0) ? host.substring(0, colon) : host;
			}
			if (host.isEmpty()) {
				return null;
			}
		}
		return lowerCase(host);
	}

	/**
	 * Returns {@code text} in lower case, as {@code text.toLowerCase(Locale.ROOT)} does: the same string when it holds
	 * no upper-case ASCII letter and nothing beyond ASCII (a host or scheme as URIs usually spell them), found by a
	 * plain scan instead of the JDK's case tables, which cost every request some 1-2 ns a character.
	 * @param text the text
	 * @return its lower case
	 */
	static String lowerCase(String text) {
		return asciiWithout(text, 'A') ? text : text.toLowerCase(Locale.ROOT);
	}

	/**
	 * Returns {@code text} in upper case, as {@code text.toUpperCase(Locale.ROOT)} does: the same string when it holds
	 * no lower-case ASCII letter and nothing beyond ASCII (an HTTP method as clients spell it).
	 * @param text the text
	 * @return its upper case
	 */
	static String upperCase(String text) {
		return asciiWithout(text, 'a') ? text : text.toUpperCase(Locale.ROOT);
	}

	/** Whether {@code text} is ASCII without a letter of the case that starts at {@code first}. */
	private static boolean asciiWithout(String text, char first) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if ((c >= first && c <= first + 25) || c >= 0x80) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns the origin of a URI, {@code scheme://host:port}, lower case, with the scheme's default port made
	 * explicit, so {@code https://API.example} and {@code https://api.example:443} are one origin.
	 * @param uri the request's URI
	 * @return the origin; {@code scheme://} alone when the URI has no host
	 */
	public static String origin(URI uri) {
		return origin(uri, host(uri));
	}

	/** The origin of {@code uri}, whose host ({@link #host}) was read already. */
	static String origin(URI uri, String host) {
		String scheme = scheme(uri);
		return origin(scheme, host, port(uri, scheme));
	}

	/** The origin {@code scheme://host:port}, or {@code scheme://} without a host. */
	static String origin(String scheme, String host, int port) {
		return (host == null) ? scheme + "://" : scheme + "://" + host + ":" + port;
	}

	/** The URI's scheme in lower case, {@code http} if it has none. */
	static String scheme(URI uri) {
		return (uri.getScheme() != null) ? lowerCase(uri.getScheme()) : "http";
	}

	/** The URI's port, or its scheme's default. */
	static int port(URI uri, String scheme) {
		if (uri.getPort() >= 0) {
			return uri.getPort();
		}
		String authority = uri.getRawAuthority();
		if (uri.getHost() == null && authority != null) {
			String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
			int colon = hostPort.lastIndexOf(':');
			if (colon >= 0 && !hostPort.endsWith("]")) {
				try {
					return Integer.parseInt(hostPort.substring(colon + 1));
				}
				catch (NumberFormatException ex) {
					// not a port: the scheme's default below
				}
			}
		}
		return switch (scheme) {
			case "https", "wss" -> 443;
			default -> 80;
		};
	}

	/**
	 * Returns the provider with the given name.
	 * @param name a provider name
	 * @return the provider, if configured
	 */
	public Optional<Provider> get(String name) {
		return Optional.ofNullable(this.byName.get(name));
	}

	/**
	 * Returns every provider, {@code default} included.
	 * @return the providers
	 */
	public Collection<Provider> all() {
		return this.byName.values();
	}

	/**
	 * One provider: its settings and its engine.
	 *
	 * @param settings the settings in force
	 * @param engine the engine that decides its retries
	 */
	public record Provider(ProviderSettings settings, RetryEngine engine) {

		/**
		 * Returns the provider's name.
		 * @return the name
		 */
		public String name() {
			return this.settings.name();
		}

		/**
		 * Returns whose shared state a request to {@code uri} uses: the provider's, or its origin's when the
		 * provider keeps its state per origin.
		 * @param uri the request's URI
		 * @return the scope
		 */
		public Scope scope(URI uri) {
			return scope(uri, host(uri));
		}

		/** The scope of a request to {@code uri}, whose host ({@link RetryAfterProviders#host}) was read already. */
		Scope scope(URI uri, String host) {
			String scheme = scheme(uri);
			return scope(scheme, host, port(uri, scheme));
		}

		/** The scope of a request to the origin of {@code scheme}, {@code host} and {@code port}. */
		Scope scope(String scheme, String host, int port) {
			return (this.settings.scope() == StateScope.ORIGIN) ? Scope.origin(name(), origin(scheme, host, port))
					: Scope.provider(name());
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
