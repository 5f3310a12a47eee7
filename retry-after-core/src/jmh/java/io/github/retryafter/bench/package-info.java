/**
 * JMH benchmarks of the parser, the planner, the engine, and the budget and gate under contention (each shipped
 * lock-free structure against a locked copy of it); built only with the {@code bench} Maven profile.
 */
package io.github.retryafter.bench;
