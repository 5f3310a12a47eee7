/**
 * Micrometer metrics of retry-after: {@link io.github.retryafter.boot.metrics.RetryAfterMetrics} binds the engine's
 * events to meters whose tags take bounded values only (configured provider names and enum names).
 */
package io.github.retryafter.boot.metrics;
