/**
 * The strict {@code Retry-After} parser and the skew-free wait planner: {@link io.github.retryafter.RetryAfterPlanner}
 * turns a response's headers into a {@link io.github.retryafter.RetryPlan} measured against the response's own
 * {@code Date}, jittered only above the server's floor and held as a deadline on a monotonic
 * {@link io.github.retryafter.Ticker}. Also the clocks, sleeper, random source and cancellation everything else in
 * this library is given rather than reads.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
package io.github.retryafter;
