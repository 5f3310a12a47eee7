/**
 * Outer retry layers that honour the instant a provider named: when retry-after gives up, the exception the caller
 * catches carries it ({@link io.github.retryafter.engine.NotBefore}); Spring Framework 7's {@code RetryTemplate}
 * ({@link io.github.retryafter.boot.retry.NotBeforeRetryPolicy}) and {@code @Retryable}
 * ({@link io.github.retryafter.boot.retry.NotBeforeRetryPredicate}) retry no earlier than it, wait for it only when a
 * retry follows, and never block for it beyond the provider's {@code max-wait}
 * ({@link io.github.retryafter.boot.retry.NotBeforeWaits}, which the starter provides).
 */
package io.github.retryafter.boot.retry;
