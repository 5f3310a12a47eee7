package io.github.retryafter.boot;

import java.util.List;
import java.util.Objects;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.RetryPolicy;

/**
 * The settings in force for one provider, after its own properties were laid over the global ones and the defaults.
 *
 * @param name the provider's configured name ({@code default} for requests no provider matched)
 * @param hosts the host names and {@code *.suffix} patterns the provider serves
 * @param policy the retry policy
 * @param budget the provider's retry budget
 * @param idempotencyKeyEnabled whether POST and PATCH requests get an idempotency key and so become retryable
 * @param maxReplayBodyBytes the largest request body buffered for replay
 */
public record ProviderSettings(String name, List<String> hosts, RetryPolicy policy, BudgetSettings budget,
		boolean idempotencyKeyEnabled, long maxReplayBodyBytes) {

	/**
	 * Checks the arguments and copies the host list.
	 */
	public ProviderSettings {
		Objects.requireNonNull(name, "name");
		hosts = List.copyOf(hosts);
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(budget, "budget");
	}

}
