/**
 * Spring-facing API of retry-after: the providers, per-request attributes and the outcome of an operation.
 */
package io.github.retryafter.boot;
