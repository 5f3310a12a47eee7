/**
 * Micrometer Observation API support: one {@code retry.after.operation} observation per logical operation and, inside
 * it, one {@code retry.after.attempt} observation per attempt, whose request carries that attempt's own trace context.
 * With a tracer these are a span per operation and a span per attempt; with a meter registry they are timers; with
 * neither they cost nothing.
 */
package io.github.retryafter.boot.observation;
