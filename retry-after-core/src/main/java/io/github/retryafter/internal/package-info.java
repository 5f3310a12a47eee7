/**
 * Helpers behind the planner: the strict HTTP-date and delay-seconds parsers and the keyed jitter hash. Public only so
 * the library's own packages can reach them; not part of the API, and free to change in any release.
 */
package io.github.retryafter.internal;
