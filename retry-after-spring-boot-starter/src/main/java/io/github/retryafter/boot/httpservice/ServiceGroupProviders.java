package io.github.retryafter.boot.httpservice;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.retryafter.NearestName;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.engine.OperationSpec;

/**
 * Which provider an HTTP service group's requests use: the provider that lists the group under
 * {@code retry.after.providers.<name>.service-groups}, else the provider named like the group (except {@code default},
 * Spring's name for the group of services that name none), else none, and the group's requests go by host as every
 * other request does. A call that names a provider itself ({@link RetryAfterAttributes#PROVIDER}) keeps it.
 * Immutable and thread-safe.
 */
public final class ServiceGroupProviders {

	private static final Log logger = LogFactory.getLog(ServiceGroupProviders.class);

	private final Map<String, String> listed;

	private final Set<String> providers;

	/**
	 * Creates the mapping.
	 * @param listed the provider of each group listed under a provider's {@code service-groups}, by group name
	 * @param providers the names of every configured provider
	 * @throws IllegalArgumentException if a group is listed under a provider that is not configured (the message
	 * names the configured provider nearest it)
	 */
	public ServiceGroupProviders(Map<String, String> listed, Collection<String> providers) {
		this.listed = Map.copyOf(listed);
		this.providers = Set.copyOf(providers);
		this.listed.forEach((group, provider) -> {
			if (!this.providers.contains(provider)) {
				List<String> configured = List.copyOf(new TreeSet<>(this.providers));
				String nearest = NearestName.of(provider, configured).map((name) -> "; did you mean '" + name + "'?")
					.orElse(".");
				throw new IllegalArgumentException("HTTP service group '" + group + "' is listed under provider '"
						+ provider + "', which is not configured" + nearest + " Configure it under "
						+ "retry.after.providers or list the group under one of " + configured);
			}
		});
	}

	/**
	 * Returns the provider a group's requests use.
	 * @param group the group's name ({@code HttpServiceGroup.name()})
	 * @return the provider's name, or empty when the group's requests go by host
	 */
	public Optional<String> providerOf(String group) {
		Objects.requireNonNull(group, "group");
		String provider = this.listed.get(group);
		if (provider != null) {
			return Optional.of(provider);
		}
		boolean named = this.providers.contains(group) && !OperationSpec.DEFAULT_PROVIDER.equals(group);
		return named ? Optional.of(group) : Optional.empty();
	}

	/**
	 * Returns what a group's client does to each request's attributes: name the group's provider unless the call
	 * named one itself.
	 * @param group the group's name
	 * @return the consumer for a default request's {@code attributes(...)}, or empty when the group has no provider
	 */
	public Optional<Consumer<Map<String, Object>>> defaultAttributes(String group) {
		return providerOf(group).map((provider) -> (attributes) -> attributes.putIfAbsent(RetryAfterAttributes.PROVIDER,
				provider));
	}

	/**
	 * Gives a group's client, when the group maps to a provider, a default request that names it: what both
	 * clients' group configurers do, each through its own builder.
	 * @param group the group's name
	 * @param defaultRequestAttributes sets what the group's client does to each request's attributes
	 */
	public void configure(String group, Consumer<Consumer<Map<String, Object>>> defaultRequestAttributes) {
		defaultAttributes(group).ifPresent((attributes) -> {
			if (logger.isDebugEnabled()) {
				logger.debug("HTTP service group '" + group + "' uses provider '" + providerOf(group).orElseThrow()
						+ "'");
			}
			defaultRequestAttributes.accept(attributes);
		});
	}

}
