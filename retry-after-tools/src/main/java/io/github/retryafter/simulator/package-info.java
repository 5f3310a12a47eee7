/**
 * A deterministic discrete-event simulation of retry policies at fleet scale.
 * {@link io.github.retryafter.simulator.FleetSimulation} runs a fleet of clients (the real engine for every hint
 * mode, plus comparison policies) against a {@link io.github.retryafter.simulator.ProviderModel} under a
 * {@link io.github.retryafter.simulator.Workload}, on virtual time (the fixtures' {@code FakeClock} origin and
 * {@code SeededRandom} draws of {@code retry-after-test}); the {@code simulate} command prints its
 * {@link io.github.retryafter.simulator.FleetReport}. Nothing really sleeps, and the same seed gives the same report.
 */
package io.github.retryafter.simulator;
