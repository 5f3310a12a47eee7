package io.github.retryafter.request;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import io.github.retryafter.NearestName;
import io.github.retryafter.Scope;
import io.github.retryafter.engine.OperationSpec;

/**
 * The routes of the configured providers, and the rule that picks one for a request: the provider the request names,
 * else the one whose hosts match the request's host (an exact name before the longest matching {@code *.suffix}),
 * else {@code default}. The set is fixed at construction, so a provider name is always a configured name.
 * Immutable and thread-safe.
 *
 * @param <P> the type of the routes
 */
public final class ProviderRoutes<P extends ProviderRoute> {

	private final Map<String, P> byName;

	private final Map<String, P> byExactHost;

	private final List<Map.Entry<String, P>> bySuffix;

	private final P defaultRoute;

	/**
	 * Creates the table.
	 * @param routes every route, one of them named {@code default}
	 * @throws IllegalArgumentException if there is no {@code default} route or a host is listed under two
	 */
	public ProviderRoutes(Collection<? extends P> routes) {
		Map<String, P> byName = new LinkedHashMap<>();
		Map<String, P> byExactHost = new LinkedHashMap<>();
		Map<String, P> bySuffix = new LinkedHashMap<>();
		for (P route : routes) {
			byName.put(route.name(), route);
			for (String host : route.hosts()) {
				String normalized = host.trim().toLowerCase(Locale.ROOT);
				Map<String, P> target = byExactHost;
				if (normalized.startsWith("*.")) {
					normalized = normalized.substring(1);
					target = bySuffix;
				}
				P previous = target.putIfAbsent(normalized, route);
				if (previous != null && previous != route) {
					throw new IllegalArgumentException("host '" + host + "' is listed under two providers, '"
							+ previous.name() + "' and '" + route.name() + "'; list it under one");
				}
			}
		}
		this.defaultRoute = byName.get(OperationSpec.DEFAULT_PROVIDER);
		if (this.defaultRoute == null) {
			throw new IllegalArgumentException("no '" + OperationSpec.DEFAULT_PROVIDER + "' provider was configured");
		}
		this.byName = Map.copyOf(byName);
		this.byExactHost = Map.copyOf(byExactHost);
		List<Map.Entry<String, P>> suffixes = new ArrayList<>(bySuffix.entrySet());
		suffixes.sort(Comparator.comparingInt((Map.Entry<String, P> entry) -> entry.getKey().length()).reversed());
		this.bySuffix = List.copyOf(suffixes);
	}

	/**
	 * Returns a table of the given routes.
	 * @param <P> the type of the routes
	 * @param routes every route, one of them named {@code default}
	 * @return the table
	 * @throws IllegalArgumentException if there is no {@code default} route or a host is listed under two
	 */
	@SafeVarargs
	public static <P extends ProviderRoute> ProviderRoutes<P> of(P... routes) {
		return new ProviderRoutes<>(List.of(routes));
	}

	/**
	 * Picks the route for a request.
	 * @param uri the request's URI
	 * @param explicit the provider the request names, if any
	 * @return the route
	 * @throws IllegalArgumentException if {@code explicit} names no configured provider (the message names the
	 * nearest configured one)
	 */
	public P resolve(URI uri, Optional<String> explicit) {
		if (explicit.isPresent()) {
			return named(explicit.get());
		}
		return resolveHost(Origins.host(uri));
	}

	/** The route a request names: its name must be a configured one, else the nearest configured one is named. */
	P named(String name) {
		P route = this.byName.get(name);
		if (route == null) {
			List<String> configured = List.copyOf(new TreeSet<>(this.byName.keySet()));
			throw new IllegalArgumentException("request names retry-after provider '" + name
					+ "', which is not configured under retry.after.providers; did you mean '"
					+ NearestName.of(name, configured).orElseThrow() + "'? Configured providers: " + configured);
		}
		return route;
	}

	/**
	 * Returns the route whose hosts match {@code host}, else {@code default}.
	 * @param host the host in lower case, or {@code null}
	 * @return the route
	 */
	public P resolveHost(String host) {
		if (host == null) {
			return this.defaultRoute;
		}
		P exact = this.byExactHost.get(host);
		if (exact != null) {
			return exact;
		}
		for (Map.Entry<String, P> suffix : this.bySuffix) {
			if (host.endsWith(suffix.getKey())) {
				return suffix.getValue();
			}
		}
		return this.defaultRoute;
	}

	/**
	 * Returns the route of the given name.
	 * @param name a provider name
	 * @return the route, if configured
	 */
	public Optional<P> get(String name) {
		return Optional.ofNullable(this.byName.get(name));
	}

	/**
	 * Returns the {@code default} route, of requests no other route matches.
	 * @return the default route
	 */
	public P defaultRoute() {
		return this.defaultRoute;
	}

	/**
	 * Returns every route, {@code default} included.
	 * @return the routes
	 */
	public Collection<P> all() {
		return this.byName.values();
	}

	/**
	 * Returns whose shared state a request to the origin of {@code scheme}, {@code host} and {@code port} uses on
	 * {@code route}: the route's, or its origin's when the route keeps its state per origin.
	 * @param route the route
	 * @param scheme the scheme, lower case
	 * @param host the host, lower case, or {@code null}
	 * @param port the port
	 * @return the scope
	 */
	public static Scope scope(ProviderRoute route, String scheme, String host, int port) {
		return route.perOrigin() ? Scope.origin(route.name(), Origins.origin(scheme, host, port))
				: Scope.provider(route.name());
	}

}
