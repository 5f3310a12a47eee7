/**
 * The fleet: a retry budget and the provider cooldowns shared by every instance of an application through a store,
 * with a local fallback whenever the store is slow or gone. Both algorithms are the core's
 * ({@link io.github.retryafter.fleet.FleetRetryBudget}, {@link io.github.retryafter.fleet.SharedCooldown}); this
 * package holds what is store-neutral in the starter: the status reported by the endpoint, health and meters, and
 * {@link io.github.retryafter.boot.fleet.FleetThreads} (which threads may wait for a store). Each store is one
 * sub-package ({@code redis}).
 */
package io.github.retryafter.boot.fleet;
