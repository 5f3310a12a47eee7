package io.github.retryafter.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.springframework.util.StringUtils;

import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.springai.ModelClients.ModelClient;

/**
 * What the startup tells about each provider, one INFO line each: its profile, the hosts it serves, the HTTP service
 * groups it takes whatever their host, and the clients under it (the client integrations that are on, which route by
 * host; the Spring AI model clients pinned to it). Built from the settings in force, once; stateless.
 */
final class ProviderWiring {

	private ProviderWiring() {
	}

	/**
	 * Returns one line per provider, in the order they are configured, {@code default} last.
	 * @param providers the settings of every provider, {@code default} included
	 * @param configured the configured providers' properties, by name (the profile and service groups as written)
	 * @param clients the client integrations that are on, as a user names them ("RestClient", "OkHttp builders", …)
	 * @param models the Spring AI model clients under the starter
	 * @return the lines
	 */
	static List<String> lines(List<ProviderSettings> providers, Map<String, RetryAfterProperties.Provider> configured,
			List<String> clients, List<ModelClient> models) {
		List<String> lines = new ArrayList<>(providers.size());
		String routed = clients.isEmpty() ? "no client integration is on"
				: String.join(", ", clients) + " requests to its hosts";
		for (ProviderSettings provider : providers) {
			RetryAfterProperties.Provider properties = configured.get(provider.name());
			String profile = (properties != null && StringUtils.hasText(properties.getProfile()))
					? properties.getProfile() : "standard";
			List<String> groups = (properties != null) ? properties.getServiceGroups() : List.of();
			StringJoiner under = new StringJoiner("; ");
			under.add(routed);
			if (!groups.isEmpty()) {
				under.add("HTTP service groups " + groups);
			}
			for (ModelClient model : models) {
				if (model.provider().equals(provider.name())) {
					under.add("Spring AI's " + model.provider() + " model ("
							+ (model.onBootBuilders() ? "Spring Boot's builders" : model.httpClients() + " OkHttp clients")
							+ ")");
				}
			}
			String hosts = provider.name().equals("default") ? "every host no other provider lists"
					: "hosts " + provider.hosts();
			lines.add("retry-after provider '" + provider.name() + "': profile " + profile + ", " + hosts + ", scope "
					+ provider.scope().name().toLowerCase(java.util.Locale.ROOT) + "; under it: " + under);
		}
		return lines;
	}

}
