/**
 * The fleet's store on Redis, on Redis's own clock, through Spring Data Redis with Lettuce:
 * {@link io.github.retryafter.boot.fleet.redis.RedisFleet} holds the connection and the background thread,
 * {@link io.github.retryafter.boot.fleet.redis.RedisRetryBudget} the budget and
 * {@link io.github.retryafter.boot.fleet.redis.RedisProviderCooldown} the cooldown.
 */
package io.github.retryafter.boot.fleet.redis;
