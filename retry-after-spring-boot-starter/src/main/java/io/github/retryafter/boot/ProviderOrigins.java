package io.github.retryafter.boot;

import java.net.URI;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.github.retryafter.request.Origins;

/**
 * Origins ({@code scheme://host:port}) whose requests belong to a provider whatever its {@code hosts} say: a model
 * server the application reaches through Spring Boot's builders (Spring AI's Ollama model at
 * {@code spring.ai.ollama.base-url}), so that its requests get the model's provider and profile while other requests
 * to the same host (another service on {@code localhost}) keep theirs. A request's own provider attribute wins over
 * its origin, its origin over its host. Immutable and thread-safe.
 */
public final class ProviderOrigins {

	/** No origin pinned: every request is routed by its attributes and its host. */
	public static final ProviderOrigins NONE = new ProviderOrigins(Map.of());

	// per application, one entry per pinned base URL's origin (Spring AI's model families on Boot's builders), fixed
	// at startup: nothing a request or a server sends adds to it
	private final Map<String, String> providers;

	// the lower-case hosts of those origins, so a request to any other host is answered without building its origin
	private final Set<String> hosts;

	private ProviderOrigins(Map<String, String> providers) {
		this.providers = providers;
		Set<String> hosts = new HashSet<>();
		providers.keySet().forEach((origin) -> hosts.add(Origins.host(URI.create(origin))));
		this.hosts = Set.copyOf(hosts);
	}

	/**
	 * Returns the origins of the given base URLs, each pinned to its provider.
	 * @param baseUrls each base URL ({@code http://localhost:11434}, a path is ignored) and the provider its
	 * requests belong to
	 * @return the origins
	 * @throws IllegalArgumentException if a base URL is not an absolute URL with a host
	 */
	public static ProviderOrigins of(Map<String, String> baseUrls) {
		Map<String, String> providers = new LinkedHashMap<>();
		baseUrls.forEach((baseUrl, provider) -> {
			URI uri = URI.create(baseUrl.trim());
			if (uri.getScheme() == null || Origins.host(uri) == null) {
				throw new IllegalArgumentException("'" + baseUrl + "' is not an absolute URL with a host");
			}
			providers.put(Origins.origin(uri), Objects.requireNonNull(provider, "provider"));
		});
		return providers.isEmpty() ? NONE : new ProviderOrigins(Map.copyOf(providers));
	}

	/**
	 * Returns these origins without those pinned to a provider {@code providers} does not configure.
	 * @param providers the configured providers
	 * @return the origins kept
	 */
	public ProviderOrigins configuredIn(RetryAfterProviders providers) {
		Map<String, String> kept = new LinkedHashMap<>(this.providers);
		kept.values().removeIf((name) -> providers.get(name).isEmpty());
		if (kept.size() == this.providers.size()) {
			return this;
		}
		return kept.isEmpty() ? NONE : new ProviderOrigins(Map.copyOf(kept));
	}

	/**
	 * Returns the provider a request's origin is pinned to.
	 * @param uri the request's URI
	 * @return the provider's name, empty when its origin is not pinned
	 */
	public Optional<String> provider(URI uri) {
		if (this.providers.isEmpty() || (uri.getHost() == null && uri.getAuthority() == null)) {
			return Optional.empty();
		}
		String host = uri.getHost();
		if (host != null && !this.hosts.contains(host) && !this.hosts.contains(host.toLowerCase(Locale.ROOT))) {
			// the request path of every other host: no origin string built
			return Optional.empty();
		}
		return Optional.ofNullable(this.providers.get(Origins.origin(uri)));
	}

	/**
	 * Returns whether no origin is pinned.
	 * @return {@code true} when every request is routed by its attributes and host
	 */
	public boolean isEmpty() {
		return this.providers.isEmpty();
	}

	/**
	 * Returns every pinned origin and its provider.
	 * @return the origins, {@code scheme://host:port} in lower case
	 */
	public Map<String, String> asMap() {
		return this.providers;
	}

	@Override
	public String toString() {
		return this.providers.toString();
	}

}
