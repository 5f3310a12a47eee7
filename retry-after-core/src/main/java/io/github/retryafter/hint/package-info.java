/**
 * The hint room: everything a response says about when to come back, read once. {@link
 * io.github.retryafter.hint.ResponseHints} wraps one response's {@link io.github.retryafter.HeaderSource} and reads and
 * parses each field a decision uses ({@code Retry-After}, {@code Date}, {@code Age}, the RateLimit and X-RateLimit
 * fields) at most once; {@link io.github.retryafter.hint.RetryAfterPlanner} turns it into a
 * {@link io.github.retryafter.RetryPlan}, and {@link io.github.retryafter.hint.RateLimitFields} is what the rate-limit
 * fields announce. The strict parsers behind them are package-private, except {@link io.github.retryafter.hint.HttpDate}.
 * <p>
 * A new hint field is added here only: a parser and a memoized accessor on {@code ResponseHints}, read by the planner
 * or {@code RateLimitFields}. This package imports the root package and {@code internal}, nothing else.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
package io.github.retryafter.hint;
