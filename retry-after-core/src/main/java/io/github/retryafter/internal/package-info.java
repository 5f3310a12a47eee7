/**
 * <b>Not API.</b> Helpers with no knowledge of HTTP fields: saturating arithmetic, duration and value formatting, the
 * keyed jitter hash and a bounded LRU map. Public only so the core's own packages can reach them; not part of the API,
 * not covered by semantic versioning, free to change or disappear in any release, and imported by no module but the
 * core. The parsers of response fields are in {@link io.github.retryafter.hint}.
 */
package io.github.retryafter.internal;
