package io.github.retryafter.fleet;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * Builds a {@link FleetRetryBudget}. Not thread-safe; the budget it builds is.
 */
public final class FleetRetryBudgetBuilder {

	private final FleetStore store;

	private BudgetSettings global = BudgetSettings.GLOBAL_DEFAULTS;

	private final Map<String, BudgetSettings> providers = new LinkedHashMap<>();

	private Ticker ticker = Ticker.system();

	private int maxOrigins = TokenBucketRetryBudget.DEFAULT_MAX_ORIGINS;

	private BooleanSupplier mayBlock = () -> true;

	FleetRetryBudgetBuilder(FleetStore store) {
		this.store = Objects.requireNonNull(store, "store");
	}

	/**
	 * Sets the global bucket's settings ({@link BudgetSettings#GLOBAL_DEFAULTS} unless set).
	 * @param settings the settings
	 * @return this builder
	 */
	public FleetRetryBudgetBuilder global(BudgetSettings settings) {
		this.global = Objects.requireNonNull(settings, "settings");
		return this;
	}

	/**
	 * Adds a configured provider, whose bucket the fleet shares.
	 * @param name the provider's configured name
	 * @param settings its bucket's settings
	 * @return this builder
	 */
	public FleetRetryBudgetBuilder provider(String name, BudgetSettings settings) {
		this.providers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(settings, "settings"));
		return this;
	}

	/**
	 * Adds configured providers.
	 * @param providers each provider's bucket settings, by configured name
	 * @return this builder
	 */
	public FleetRetryBudgetBuilder providers(Map<String, BudgetSettings> providers) {
		providers.forEach(this::provider);
		return this;
	}

	/**
	 * Sets the monotonic clock of the local shares and estimates ({@link Ticker#system()} unless set).
	 * @param ticker the clock
	 * @return this builder
	 */
	public FleetRetryBudgetBuilder ticker(Ticker ticker) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		return this;
	}

	/**
	 * Sets how many origin buckets this instance keeps at most (they are never shared).
	 * @param maxOrigins at least 1
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxOrigins} is less than 1
	 */
	public FleetRetryBudgetBuilder maxOrigins(int maxOrigins) {
		if (maxOrigins < 1) {
			throw new IllegalArgumentException("maxOrigins must be at least 1 but was " + maxOrigins);
		}
		this.maxOrigins = maxOrigins;
		return this;
	}

	/**
	 * Sets which threads may wait for the store: on a thread where it answers {@code false} (an event loop) a retry
	 * never makes a round trip. Every thread may, unless set; the starter's Reactor wiring supplies Reactor's
	 * non-blocking mark.
	 * @param mayBlock answers, on the calling thread, whether it may block
	 * @return this builder
	 */
	public FleetRetryBudgetBuilder mayBlock(BooleanSupplier mayBlock) {
		this.mayBlock = Objects.requireNonNull(mayBlock, "mayBlock");
		return this;
	}

	/**
	 * Builds the budget and registers it with the store.
	 * @return the budget
	 */
	public FleetRetryBudget build() {
		return new FleetRetryBudget(this.store, this.global, this.providers, this.ticker, this.maxOrigins, this.mayBlock);
	}

}
