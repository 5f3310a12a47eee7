/**
 * The fleet: a retry budget and a provider cooldown shared by every instance of an application through a store, with
 * a local fallback whenever the store is slow or gone. This package holds what is store-neutral in the starter:
 * {@link io.github.retryafter.boot.fleet.FleetCooldown} (the shared cooldown; the budget is the core's
 * {@link io.github.retryafter.fleet.FleetRetryBudget}), the listener that publishes cooldowns, the status reported by
 * the endpoint, health and meters, and {@link io.github.retryafter.boot.fleet.FleetThreads} (which threads may wait
 * for a store). Each store is one sub-package ({@code redis}).
 */
package io.github.retryafter.boot.fleet;
