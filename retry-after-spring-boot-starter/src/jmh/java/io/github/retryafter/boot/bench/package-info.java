/**
 * JMH benchmarks of the starter's success path, built only by the {@code bench} Maven profile.
 */
package io.github.retryafter.boot.bench;
