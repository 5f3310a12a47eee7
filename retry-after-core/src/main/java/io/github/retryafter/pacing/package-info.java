/**
 * Provider pacing: one {@link io.github.retryafter.pacing.ProviderGate} per provider that holds every request to a
 * provider while it is cooling down after a {@code Retry-After}, and then releases requests through an adaptive rate
 * that follows what the provider admits, keeping a share of that rate for fresh requests. A provider that announces
 * its quota in rate-limit fields ({@link io.github.retryafter.hint.RateLimitFields}) is paced by it before its first
 * refusal. The engine consults the gate before every attempt and reports every response to it, so every adapter gets
 * pacing through the same state machine. Inside, the gate is a façade over its cooldown and probe, its adaptive rate
 * and its slot book; a fleet store sees it through {@link io.github.retryafter.pacing.FleetGate}.
 */
package io.github.retryafter.pacing;
