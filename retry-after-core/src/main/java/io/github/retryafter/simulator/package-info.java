/**
 * A fake-clock simulator for retry policies, usable in your own tests: {@link io.github.retryafter.simulator.FakeClock}
 * (monotonic and wall clock that advance when slept on), {@link io.github.retryafter.simulator.ScriptedTransport}
 * (status and headers per attempt, timeouts, responses lost after the provider applied the request),
 * {@link io.github.retryafter.simulator.FakeProvider} (records every create by idempotency key),
 * {@link io.github.retryafter.simulator.ScriptedRandom} and {@link io.github.retryafter.simulator.SeededRandom}
 * (given draws), and {@link io.github.retryafter.simulator.ScenarioRecorder} (a readable trace). Nothing really sleeps.
 * <p>
 * {@link io.github.retryafter.simulator.FleetSimulation} is a deterministic discrete-event simulation of a fleet of
 * clients (the real engine for every hint mode, plus comparison policies) against a
 * {@link io.github.retryafter.simulator.ProviderModel} under a {@link io.github.retryafter.simulator.Workload}; the
 * {@code simulate} command prints its {@link io.github.retryafter.simulator.FleetReport}.
 */
package io.github.retryafter.simulator;
