/**
 * <b>Not API.</b> Helpers behind the planner: the strict HTTP-date and delay-seconds parsers and the keyed jitter
 * hash. Public only so the library's own packages can reach them; not part of the API, not covered by semantic
 * versioning, and free to change or disappear in any release. Use {@link io.github.retryafter.RetryAfterPlanner}
 * and the other types of the root package instead.
 */
package io.github.retryafter.internal;
