/**
 * The transport-agnostic retry engine: {@link io.github.retryafter.engine.RetryPolicy} says how to retry,
 * {@link io.github.retryafter.engine.RetryEngine} decides after each attempt, a
 * {@link io.github.retryafter.engine.RetryOperation} carries one logical operation through its attempts, and
 * {@link io.github.retryafter.engine.RetryRunner} drives it for blocking callers. Events reach a
 * {@link io.github.retryafter.engine.RetryListener}. Nothing here does I/O or depends on a logging or metrics library.
 */
package io.github.retryafter.engine;
