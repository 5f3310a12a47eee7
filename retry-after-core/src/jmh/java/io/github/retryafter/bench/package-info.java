/**
 * JMH benchmarks of the parser and the planner; built only with the {@code bench} Maven profile.
 */
package io.github.retryafter.bench;
