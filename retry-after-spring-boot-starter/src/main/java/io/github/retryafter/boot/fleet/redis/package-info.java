/**
 * The fleet's store on Redis, on Redis's own clock, through Spring Data Redis with Lettuce: the Lua scripts, the
 * connection and the I/O only. {@link io.github.retryafter.boot.fleet.redis.RedisFleet} holds the connection and the
 * background thread, and {@link io.github.retryafter.boot.fleet.redis.RedisFleetStore} runs the core's
 * {@link io.github.retryafter.fleet.FleetStore} operations as scripts; the algorithms are the core's
 * ({@link io.github.retryafter.fleet.FleetRetryBudget}, {@link io.github.retryafter.fleet.SharedCooldown}).
 */
package io.github.retryafter.boot.fleet.redis;
