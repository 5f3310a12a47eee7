package io.github.retryafter.fleet;

import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.budget.BudgetSettings;

/**
 * One of the fleet's token buckets, as a {@link FleetStore} is asked about it: the global bucket every provider draws
 * from, or a configured provider's bucket. A store maps it to its own key (Redis: {@code {prefix}:budget:<name>});
 * the settings travel with it because the store applies the floor's refill and the capacity on its own clock.
 * Immutable and thread-safe.
 *
 * @param provider the provider's name, empty for the global bucket
 * @param settings the bucket's capacity, deposit ratio and per-second floor
 */
public record FleetBucket(Optional<String> provider, BudgetSettings settings) {

	/**
	 * Checks the arguments.
	 * @param provider the provider's name, empty for the global bucket
	 * @param settings the bucket's capacity, deposit ratio and per-second floor
	 */
	public FleetBucket {
		Objects.requireNonNull(provider, "provider");
		Objects.requireNonNull(settings, "settings");
	}

	/**
	 * Returns the global bucket.
	 * @param settings its settings
	 * @return the bucket
	 */
	public static FleetBucket ofGlobal(BudgetSettings settings) {
		return new FleetBucket(Optional.empty(), settings);
	}

	/**
	 * Returns a configured provider's bucket.
	 * @param provider the provider's configured name
	 * @param settings its settings
	 * @return the bucket
	 */
	public static FleetBucket ofProvider(String provider, BudgetSettings settings) {
		return new FleetBucket(Optional.of(Objects.requireNonNull(provider, "provider")), settings);
	}

	/**
	 * Returns whether this is the global bucket.
	 * @return {@code true} for the global bucket
	 */
	public boolean global() {
		return this.provider.isEmpty();
	}

	/**
	 * Returns the bucket's name in a store's keys: {@code global} for the global bucket, the provider's name otherwise
	 * ({@code provider-global} for a provider named {@code global}, so the two never share a key).
	 * @return the name
	 */
	public String keyName() {
		return this.provider.map((name) -> "global".equals(name) ? "provider-global" : name).orElse("global");
	}

}
