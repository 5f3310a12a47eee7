/**
 * The fleet, store-neutral: a retry budget ({@link io.github.retryafter.fleet.FleetRetryBudget}) and the providers'
 * cooldowns, probe claims and shares ({@link io.github.retryafter.fleet.SharedCooldown}) shared by a fleet of
 * instances over the operations a store runs atomically ({@link io.github.retryafter.fleet.FleetStore}, the SPI: Redis
 * in the starter, {@link io.github.retryafter.fleet.InMemoryFleetStore} for tests and simulations), and the runtime
 * every store shares ({@link io.github.retryafter.fleet.FleetRuntime}: fallback and rejoin, the members' heartbeat, the
 * key fallbacks; {@link io.github.retryafter.fleet.FleetWorker}, the store's thread), so that a store is its I/O only
 * ({@link io.github.retryafter.fleet.FleetStore} and {@link io.github.retryafter.fleet.FleetLink}). No I/O and no
 * transport here: which threads may block is the caller's to say.
 */
package io.github.retryafter.fleet;
