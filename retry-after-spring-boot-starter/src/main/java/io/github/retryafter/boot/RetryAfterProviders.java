package io.github.retryafter.boot;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryEngine;

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
		String host = uri.getHost();
		if (host == null) {
			return this.defaultProvider;
		}
		host = host.toLowerCase(Locale.ROOT);
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

	}

}
