/**
 * The fleet, store-neutral: a retry budget ({@link io.github.retryafter.fleet.FleetRetryBudget}) and the providers'
 * cooldowns, probe claims and shares ({@link io.github.retryafter.fleet.SharedCooldown}) shared by a fleet of
 * instances over the operations a store runs atomically ({@link io.github.retryafter.fleet.FleetStore}, the SPI: Redis
 * in the starter, {@link io.github.retryafter.fleet.InMemoryFleetStore} for tests and simulations). No I/O and no
 * transport here: which threads may block is the caller's to say.
 */
package io.github.retryafter.fleet;
