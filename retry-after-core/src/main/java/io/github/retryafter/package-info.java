/**
 * The types every other package shares: a response's {@link io.github.retryafter.HeaderSource}, the
 * {@link io.github.retryafter.RetryPlan} the planner ({@code io.github.retryafter.hint.RetryAfterPlanner}) makes from
 * it, measured against the response's own {@code Date}, jittered only above the server's floor and held as a deadline
 * on a monotonic {@link io.github.retryafter.Ticker}, its options and errors. Also the clocks, sleeper, random source
 * and cancellation everything else in this library is given rather than reads, and
 * {@link io.github.retryafter.NearestName} for messages that name what a misspelt name probably meant. This package
 * imports only {@code internal}.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
package io.github.retryafter;
