package io.github.retryafter.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import io.github.retryafter.HintField;
import io.github.retryafter.boot.StateScope;

/**
 * Configuration properties for retry-after: global settings under {@code retry.after.*}, overridden per provider under
 * {@code retry.after.providers.<name>.*}.
 */
@ConfigurationProperties("retry.after")
public class RetryAfterProperties extends PolicyProperties {

	/**
	 * Whether to retry requests made by clients built from Spring Boot's builders.
	 */
	private boolean enabled = true;

	/**
	 * Identity of this instance for keyed jitter, combined with each operation's identity. Defaults to the
	 * application name, host name and process id.
	 */
	private String jitterKey;

	/**
	 * WebClient integration.
	 */
	private final Client webClient = new Client();

	/**
	 * RestClient integration.
	 */
	private final Client restClient = new Client();

	/**
	 * RestTemplate integration (the RestClient interceptor on templates built from Spring Boot's RestTemplateBuilder).
	 */
	private final Client restTemplate = new Client();

	/**
	 * Retry budget shared by all providers: a ceiling on the application's retries as a whole.
	 */
	@NestedConfigurationProperty
	private final BudgetProperties globalBudget = new BudgetProperties();

	/**
	 * The recent-events buffer behind the 'retryafterevents' Actuator endpoint.
	 */
	private final Events events = new Events();

	/**
	 * Providers by name, each matched by host or chosen per request, overriding any global setting. Requests that
	 * match no provider use the 'default' provider.
	 */
	private final Map<String, Provider> providers = new LinkedHashMap<>();

	/**
	 * Most origins (scheme, host, port) whose own cooldown, rate and budget bucket each provider kept per origin
	 * tracks; past it the least recently used is forgotten and starts afresh.
	 */
	private int maxOrigins = 1000;

	/**
	 * Returns the {@code enabled} setting: whether to retry requests made by clients built from Spring Boot's builders.
	 * @return the setting
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Sets the {@code enabled} setting.
	 * @param enabled whether to retry requests made by clients built from Spring Boot's builders
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Returns the {@code jitter-key} setting: identity of this instance for keyed jitter, combined with each
	 * operation's identity.
	 * @return the setting, or {@code null} when not set
	 */
	public String getJitterKey() {
		return this.jitterKey;
	}

	/**
	 * Sets the {@code jitter-key} setting.
	 * @param jitterKey identity of this instance for keyed jitter, combined with each operation's identity
	 */
	public void setJitterKey(String jitterKey) {
		this.jitterKey = jitterKey;
	}

	/**
	 * Returns the {@code web-client} settings: WebClient integration.
	 * @return the settings, never {@code null}
	 */
	public Client getWebClient() {
		return this.webClient;
	}

	/**
	 * Returns the {@code rest-client} settings: RestClient integration.
	 * @return the settings, never {@code null}
	 */
	public Client getRestClient() {
		return this.restClient;
	}

	/**
	 * Returns the {@code rest-template} settings: RestTemplate integration.
	 * @return the settings, never {@code null}
	 */
	public Client getRestTemplate() {
		return this.restTemplate;
	}

	/**
	 * Returns the {@code global-budget} settings: retry budget shared by all providers: a ceiling on the application's
	 * retries as a whole.
	 * @return the settings, never {@code null}
	 */
	public BudgetProperties getGlobalBudget() {
		return this.globalBudget;
	}

	/**
	 * Returns the {@code providers} settings: providers by name, each matched by host or chosen per request, overriding
	 * any global setting.
	 * @return the settings, never {@code null}
	 */
	public Map<String, Provider> getProviders() {
		return this.providers;
	}

	/**
	 * Returns the {@code max-origins} setting: the most origins each provider kept per origin tracks.
	 * @return the setting
	 */
	public int getMaxOrigins() {
		return this.maxOrigins;
	}

	/**
	 * Sets the {@code max-origins} setting.
	 * @param maxOrigins the most origins each provider kept per origin tracks
	 */
	public void setMaxOrigins(int maxOrigins) {
		this.maxOrigins = maxOrigins;
	}

	/**
	 * Returns the {@code events} settings: the recent-events buffer behind the 'retryafterevents' Actuator endpoint.
	 * @return the settings, never {@code null}
	 */
	public Events getEvents() {
		return this.events;
	}

	/**
	 * The recent-events buffer.
	 */
	public static class Events {

		/**
		 * Most events kept (failed operations, refused hints, cooldowns); the oldest is dropped first.
		 */
		private int capacity = 100;

		/**
		 * Returns the {@code capacity} setting: most events kept (failed operations, refused hints, cooldowns).
		 * @return the setting
		 */
		public int getCapacity() {
			return this.capacity;
		}

		/**
		 * Sets the {@code capacity} setting.
		 * @param capacity most events kept (failed operations, refused hints, cooldowns)
		 */
		public void setCapacity(int capacity) {
			this.capacity = capacity;
		}

	}

	/**
	 * One client integration.
	 */
	public static class Client {

		/**
		 * Whether to add retries to the clients built from Spring Boot's builder.
		 */
		private boolean enabled = true;

		/**
		 * Returns the {@code enabled} setting: whether to add retries to the clients built from Spring Boot's builder.
		 * @return the setting
		 */
		public boolean isEnabled() {
			return this.enabled;
		}

		/**
		 * Sets the {@code enabled} setting.
		 * @param enabled whether to add retries to the clients built from Spring Boot's builder
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * A provider: a named set of hosts with its own settings and retry budget.
	 */
	public static class Provider extends PolicyProperties {

		/**
		 * Hosts served by this provider: exact names, or '*.example.com' for any subdomain of example.com.
		 */
		private List<String> hosts = new ArrayList<>();

		/**
		 * Whether the provider's cooldown, rate and budget bucket are shared by all its hosts ('provider', the default
		 * of a configured provider) or kept per origin ('origin', the default of 'default').
		 */
		private StateScope scope;

		/**
		 * HTTP service groups ('@ImportHttpServices') whose requests use this provider whatever their host. A group
		 * named like a configured provider uses it without being listed. A group the application does not declare
		 * fails at startup.
		 */
		private List<String> serviceGroups = new ArrayList<>();

		/**
		 * What the provider's API means: 'standard', 'openai', 'anthropic', 'azure', 'stripe', 'github' or 'ollama'.
		 * Picks the hint fields read, the statuses retried, the refusals retried for any method and the attempt
		 * header; each of those set under this provider wins over its profile.
		 */
		private String profile;

		/**
		 * Response fields read for the wait, the should-retry say and the rate-limit windows, overriding the
		 * profile's.
		 */
		private Set<HintField> hintFields;

		/**
		 * Returns the {@code hosts} setting: hosts served by this provider: exact names, or '*.example.com' for any
		 * subdomain of example.com.
		 * @return the setting
		 */
		public List<String> getHosts() {
			return this.hosts;
		}

		/**
		 * Sets the {@code hosts} setting.
		 * @param hosts hosts served by this provider: exact names, or '*.example.com' for any subdomain of example.com
		 */
		public void setHosts(List<String> hosts) {
			this.hosts = hosts;
		}

		/**
		 * Returns the {@code scope} setting: whether the provider's state is shared by its hosts or kept per origin.
		 * @return the setting, or {@code null} for the default of the provider's name
		 */
		public StateScope getScope() {
			return this.scope;
		}

		/**
		 * Sets the {@code scope} setting.
		 * @param scope 'provider' (one state for all its hosts) or 'origin' (one per origin)
		 */
		public void setScope(StateScope scope) {
			this.scope = scope;
		}

		/**
		 * Returns the {@code service-groups} setting: HTTP service groups whose requests use this provider whatever
		 * their host.
		 * @return the setting
		 */
		public List<String> getServiceGroups() {
			return this.serviceGroups;
		}

		/**
		 * Sets the {@code service-groups} setting.
		 * @param serviceGroups HTTP service groups whose requests use this provider whatever their host
		 */
		public void setServiceGroups(List<String> serviceGroups) {
			this.serviceGroups = serviceGroups;
		}

		/**
		 * Returns the {@code profile} setting: what the provider's API means.
		 * @return the profile's name, or {@code null} for 'standard'
		 */
		public String getProfile() {
			return this.profile;
		}

		/**
		 * Sets the {@code profile} setting.
		 * @param profile 'standard', 'openai', 'anthropic', 'azure', 'stripe', 'github' or 'ollama'
		 */
		public void setProfile(String profile) {
			this.profile = profile;
		}

		/**
		 * Returns the {@code hint-fields} setting: response fields read, overriding the profile's.
		 * @return the setting, or {@code null} for the profile's
		 */
		public Set<HintField> getHintFields() {
			return this.hintFields;
		}

		/**
		 * Sets the {@code hint-fields} setting.
		 * @param hintFields response fields read, overriding the profile's
		 */
		public void setHintFields(Set<HintField> hintFields) {
			this.hintFields = hintFields;
		}

	}

}
