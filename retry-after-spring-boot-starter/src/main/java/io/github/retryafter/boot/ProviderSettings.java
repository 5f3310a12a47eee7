package io.github.retryafter.boot;

import java.util.List;
import java.util.Objects;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.OperationSpec;
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
 * @param maxDrainBytes the most of a failed response's body read before its retry to keep its connection; beyond it,
 * the connection is closed
 * @param scope whether the provider's gate and budget bucket are shared by all its hosts or kept per origin
 * @param clientTimeouts whether the client's own timeouts bound each attempt rather than the policy's attempt timeout
 * ({@link io.github.retryafter.engine.RetryEngine#clientTimeouts()}): a model profile's, unless the provider sets
 * its own {@code attempt-timeout}
 */
public record ProviderSettings(String name, List<String> hosts, RetryPolicy policy, BudgetSettings budget,
		boolean idempotencyKeyEnabled, long maxReplayBodyBytes, long maxDrainBytes, StateScope scope,
		boolean clientTimeouts) {

	/** What {@code retry.after.max-drain} is unless set: 64 KB. */
	public static final long DEFAULT_MAX_DRAIN_BYTES = 64 * 1024;

	/**
	 * Checks the arguments and copies the host list.
	 * @param name the provider's configured name ({@code default} for requests no provider matched)
	 * @param hosts the host names and {@code *.suffix} patterns the provider serves
	 * @param policy the retry policy
	 * @param budget the provider's retry budget
	 * @param idempotencyKeyEnabled whether POST and PATCH requests get an idempotency key and so become retryable
	 * @param maxReplayBodyBytes the largest request body buffered for replay
	 * @param maxDrainBytes the most of a failed response's body read before its retry to keep its connection; beyond
	 * it, the connection is closed
	 * @param scope whether the provider's gate and budget bucket are shared by all its hosts or kept per origin
	 * @param clientTimeouts whether the client's own timeouts bound each attempt rather than the attempt timeout
	 */
	public ProviderSettings {
		Objects.requireNonNull(name, "name");
		hosts = List.copyOf(hosts);
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(budget, "budget");
		if (maxDrainBytes < 0) {
			throw new IllegalArgumentException("maxDrainBytes must not be negative but was " + maxDrainBytes);
		}
		Objects.requireNonNull(scope, "scope");
	}

	/**
	 * Creates settings whose attempts are bounded by the policy's attempt timeout.
	 * @param name the provider's configured name
	 * @param hosts the host names and patterns the provider serves
	 * @param policy the retry policy
	 * @param budget the provider's retry budget
	 * @param idempotencyKeyEnabled whether POST and PATCH requests get an idempotency key
	 * @param maxReplayBodyBytes the largest request body buffered for replay
	 * @param maxDrainBytes the most of a failed response's body read before its retry
	 * @param scope whether the provider's gate and budget bucket are shared by all its hosts or kept per origin
	 */
	public ProviderSettings(String name, List<String> hosts, RetryPolicy policy, BudgetSettings budget,
			boolean idempotencyKeyEnabled, long maxReplayBodyBytes, long maxDrainBytes, StateScope scope) {
		this(name, hosts, policy, budget, idempotencyKeyEnabled, maxReplayBodyBytes, maxDrainBytes, scope, false);
	}

	/**
	 * Creates settings with the default scope of their name ({@link #defaultScope}).
	 * @param name the provider's configured name
	 * @param hosts the host names and patterns the provider serves
	 * @param policy the retry policy
	 * @param budget the provider's retry budget
	 * @param idempotencyKeyEnabled whether POST and PATCH requests get an idempotency key
	 * @param maxReplayBodyBytes the largest request body buffered for replay
	 * @param maxDrainBytes the most of a failed response's body read before its retry
	 */
	public ProviderSettings(String name, List<String> hosts, RetryPolicy policy, BudgetSettings budget,
			boolean idempotencyKeyEnabled, long maxReplayBodyBytes, long maxDrainBytes) {
		this(name, hosts, policy, budget, idempotencyKeyEnabled, maxReplayBodyBytes, maxDrainBytes, defaultScope(name));
	}

	/**
	 * Returns the scope a provider of this name has unless configured: {@link StateScope#ORIGIN} for {@code default}
	 * (the hosts nobody grouped must not share a state), {@link StateScope#PROVIDER} for a configured provider.
	 * @param name the provider's name
	 * @return its default scope
	 */
	public static StateScope defaultScope(String name) {
		return OperationSpec.DEFAULT_PROVIDER.equals(name) ? StateScope.ORIGIN : StateScope.PROVIDER;
	}

	/**
	 * Creates settings that drain at most {@link #DEFAULT_MAX_DRAIN_BYTES} of a failed body.
	 * @param name the provider's configured name
	 * @param hosts the host names and patterns the provider serves
	 * @param policy the retry policy
	 * @param budget the provider's retry budget
	 * @param idempotencyKeyEnabled whether POST and PATCH requests get an idempotency key
	 * @param maxReplayBodyBytes the largest request body buffered for replay
	 */
	public ProviderSettings(String name, List<String> hosts, RetryPolicy policy, BudgetSettings budget,
			boolean idempotencyKeyEnabled, long maxReplayBodyBytes) {
		this(name, hosts, policy, budget, idempotencyKeyEnabled, maxReplayBodyBytes, DEFAULT_MAX_DRAIN_BYTES);
	}

}
