/**
 * Fixtures for your own tests of code that retries with this library, to add with test scope:
 * {@link io.github.retryafter.test.FakeClock} (monotonic and wall clock that advance when slept on),
 * {@link io.github.retryafter.test.ScriptedTransport} (status and headers per attempt, timeouts, responses lost after
 * the provider applied the request), {@link io.github.retryafter.test.FakeProvider} (records every create by
 * idempotency key), {@link io.github.retryafter.test.ScriptedRandom} and
 * {@link io.github.retryafter.test.SeededRandom} (given draws), and
 * {@link io.github.retryafter.test.ScenarioRecorder} (a readable trace). Nothing really sleeps.
 * <p>
 * No dependency besides {@code retry-after-core}: the fixtures work with any test framework. The fleet store contract
 * ({@link io.github.retryafter.test.fleet}) alone needs JUnit 5 and AssertJ, optional dependencies of this module.
 */
package io.github.retryafter.test;
