/**
 * The retry budget: a shared allowance of retries per provider, under a global ceiling, so that retries cannot
 * multiply the load on a failing dependency. {@link io.github.retryafter.budget.TokenBucketRetryBudget} is the
 * lock-free token-bucket implementation.
 */
package io.github.retryafter.budget;
