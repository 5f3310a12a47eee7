package io.github.retryafter.boot;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.OperationSpec;

/**
 * Every setting of retry-after in force, mapped once from the configuration properties: each provider's settings, the
 * global budget every provider also draws from, and the instance's jitter key. The engines, the retry budget and the
 * fleet are all built from this one object, so they cannot disagree about a provider. Immutable and thread-safe.
 *
 * @param providers every provider's settings, {@code default} among them, in configuration order
 * @param globalBudget the global bucket's shape
 * @param jitterKey this instance's identity for keyed jitter, when configured
 * @param maxOrigins how many origins each provider that keeps its state per origin tracks at most
 */
public record RetryAfterSettings(List<ProviderSettings> providers, BudgetSettings globalBudget,
		Optional<String> jitterKey, int maxOrigins) {

	/** What {@code retry.after.max-origins} is unless set. */
	public static final int DEFAULT_MAX_ORIGINS = 1000;

	/**
	 * Checks the arguments and copies the provider list.
	 * @param maxOrigins how many origins each provider that keeps its state per origin tracks at most
	 * @throws IllegalArgumentException if there is no {@code default} provider or two providers share a name
	 * @param providers every provider's settings, {@code default} among them, in configuration order
	 * @param globalBudget the global bucket's shape
	 * @param jitterKey this instance's identity for keyed jitter, when configured
	 */
	public RetryAfterSettings {
		providers = List.copyOf(providers);
		Objects.requireNonNull(globalBudget, "globalBudget");
		Objects.requireNonNull(jitterKey, "jitterKey");
		Set<String> names = new HashSet<>();
		for (ProviderSettings provider : providers) {
			if (!names.add(provider.name())) {
				throw new IllegalArgumentException("provider '" + provider.name() + "' is listed twice");
			}
		}
		if (!names.contains(OperationSpec.DEFAULT_PROVIDER)) {
			throw new IllegalArgumentException("no '" + OperationSpec.DEFAULT_PROVIDER + "' provider was configured");
		}
		if (maxOrigins < 1) {
			throw new IllegalArgumentException("maxOrigins must be at least 1 but was " + maxOrigins);
		}
	}

	/**
	 * Creates settings that track at most {@value #DEFAULT_MAX_ORIGINS} origins per provider kept per origin.
	 * @param providers every provider's settings, {@code default} among them
	 * @param globalBudget the global bucket's shape
	 * @param jitterKey this instance's identity for keyed jitter, when configured
	 */
	public RetryAfterSettings(List<ProviderSettings> providers, BudgetSettings globalBudget,
			Optional<String> jitterKey) {
		this(providers, globalBudget, jitterKey, DEFAULT_MAX_ORIGINS);
	}

	/**
	 * Returns the settings of the provider with the given name.
	 * @param name a provider name
	 * @return its settings, if configured
	 */
	public Optional<ProviderSettings> provider(String name) {
		return this.providers.stream().filter((provider) -> provider.name().equals(name)).findFirst();
	}

	/**
	 * Returns every provider's name, in configuration order.
	 * @return the names, {@code default} among them
	 */
	public List<String> providerNames() {
		return this.providers.stream().map(ProviderSettings::name).toList();
	}

	/**
	 * Returns every provider's bucket shape, by name, in configuration order.
	 * @return an unmodifiable map
	 */
	public Map<String, BudgetSettings> providerBudgets() {
		Map<String, BudgetSettings> budgets = new LinkedHashMap<>();
		this.providers.forEach((provider) -> budgets.put(provider.name(), provider.budget()));
		return Collections.unmodifiableMap(budgets);
	}

}
