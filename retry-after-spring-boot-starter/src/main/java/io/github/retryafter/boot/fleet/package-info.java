/**
 * The fleet: a retry budget and a provider cooldown shared by every instance of an application through Redis, on
 * Redis's own clock, with a local fallback whenever Redis is slow or gone.
 * {@link io.github.retryafter.boot.fleet.RedisFleet} holds the connection and the background thread,
 * {@link io.github.retryafter.boot.fleet.RedisRetryBudget} the budget and
 * {@link io.github.retryafter.boot.fleet.RedisProviderCooldown} the cooldown.
 */
package io.github.retryafter.boot.fleet;
