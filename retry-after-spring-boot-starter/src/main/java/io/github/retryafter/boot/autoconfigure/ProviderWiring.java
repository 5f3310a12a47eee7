package io.github.retryafter.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import org.springframework.util.StringUtils;

import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterWiring;
import io.github.retryafter.boot.springai.ModelClients.ModelClient;

/**
 * What the startup tells about each provider: the {@link RetryAfterWiring} built from the properties in force (its
 * profile, the HTTP service groups it takes whatever their host, the client integrations that are on), and one INFO
 * line each, with its hosts and the Spring AI model clients pinned to it. Stateless.
 */
final class ProviderWiring {

	private ProviderWiring() {
	}

	/**
	 * Returns what is wired under each provider.
	 * @param providers the settings of every provider, {@code default} included
	 * @param configured the configured providers' properties, by name (the profile and service groups as written)
	 * @param clients the client integrations that are on, as a user names them ("RestClient", "OkHttp builders", …)
	 * @return the wiring, providers in the order of {@code providers}
	 */
	static RetryAfterWiring of(List<ProviderSettings> providers, Map<String, RetryAfterProperties.Provider> configured,
			List<String> clients) {
		Map<String, RetryAfterWiring.Provider> wired = new LinkedHashMap<>();
		for (ProviderSettings provider : providers) {
			RetryAfterProperties.Provider properties = configured.get(provider.name());
			String profile = (properties != null && StringUtils.hasText(properties.getProfile()))
					? properties.getProfile() : "standard";
			List<String> groups = (properties != null) ? properties.getServiceGroups() : List.of();
			wired.put(provider.name(), new RetryAfterWiring.Provider(profile, groups));
		}
		return new RetryAfterWiring(wired, clients);
	}

	/**
	 * Returns one line per provider, in the order they are configured, {@code default} last.
	 * @param providers the settings of every provider, {@code default} included
	 * @param wiring what is wired under each
	 * @param models the Spring AI model clients under the starter
	 * @return the lines
	 */
	static List<String> lines(List<ProviderSettings> providers, RetryAfterWiring wiring, List<ModelClient> models) {
		List<String> lines = new ArrayList<>(providers.size());
		String routed = wiring.clientIntegrations().isEmpty() ? "no client integration is on"
				: String.join(", ", wiring.clientIntegrations()) + " requests to its hosts";
		for (ProviderSettings provider : providers) {
			RetryAfterWiring.Provider wired = wiring.provider(provider.name())
				.orElseGet(() -> new RetryAfterWiring.Provider("standard", List.of()));
			StringJoiner under = new StringJoiner("; ");
			under.add(routed);
			if (!wired.serviceGroups().isEmpty()) {
				under.add("HTTP service groups " + wired.serviceGroups());
			}
			for (ModelClient model : models) {
				if (model.provider().equals(provider.name())) {
					under.add(model.describe());
				}
			}
			String hosts = provider.name().equals("default") ? "every host no other provider lists"
					: "hosts " + provider.hosts();
			lines.add("retry-after provider '" + provider.name() + "': profile " + wired.profile() + ", " + hosts
					+ ", scope " + provider.scope().name().toLowerCase(Locale.ROOT) + "; under it: " + under);
		}
		return lines;
	}

}
