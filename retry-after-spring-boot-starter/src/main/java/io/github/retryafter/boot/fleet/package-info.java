/**
 * The fleet: a retry budget and a provider cooldown shared by every instance of an application through a store, with
 * a local fallback whenever the store is slow or gone. This package holds what is store-neutral:
 * {@link io.github.retryafter.boot.fleet.FleetCooldown} (the shared cooldown, a budget being a
 * {@link io.github.retryafter.budget.RetryBudget}), the listener that publishes cooldowns and the status reported by
 * the endpoint, health and meters. Each store is one sub-package ({@code redis}).
 */
package io.github.retryafter.boot.fleet;
