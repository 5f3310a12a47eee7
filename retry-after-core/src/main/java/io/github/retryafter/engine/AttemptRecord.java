package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;

/**
 * One attempt of a logical operation as it happened, for traces, tests and logs. Times are offsets from the operation's
 * start on the engine's monotonic ticker. Immutable.
 *
 * @param attempt the attempt number, from 1
 * @param kind first attempt or retry
 * @param startedAt when the attempt was permitted
 * @param timeout the time it was given
 * @param remainingDeadline what was left of the deadline when it was permitted
 * @param tokensBefore the budget tokens available to the provider before the attempt
 * @param tokensAfter the same after its token was taken (equal for a first attempt)
 * @param outcome what the attempt produced; empty if the operation was ended while it was in flight
 * @param endedAt when its outcome was recorded
 * @param decision what the engine decided after it; empty if the operation was ended while it was in flight
 */
public record AttemptRecord(int attempt, AttemptKind kind, Duration startedAt, Duration timeout,
		Duration remainingDeadline, double tokensBefore, double tokensAfter, Optional<AttemptOutcome> outcome,
		Optional<Duration> endedAt, Optional<Decision> decision) {

	/**
	 * Returns the response status, if a response arrived.
	 * @return the status
	 */
	public OptionalInt status() {
		return this.outcome.filter(AttemptOutcome.Response.class::isInstance)
			.map((outcome) -> OptionalInt.of(((AttemptOutcome.Response) outcome).status()))
			.orElse(OptionalInt.empty());
	}

	/**
	 * Returns the failure kind, if the attempt failed without a response.
	 * @return the kind
	 */
	public Optional<FailureKind> failure() {
		return this.outcome.filter(AttemptOutcome.Failure.class::isInstance)
			.map((outcome) -> ((AttemptOutcome.Failure) outcome).kind());
	}

	/**
	 * Returns the retry decided after this attempt, if one was.
	 * @return the retry
	 */
	public Optional<Decision.Retry> retry() {
		return this.decision.filter(Decision.Retry.class::isInstance).map(Decision.Retry.class::cast);
	}

	/**
	 * Returns the delay before the next attempt, if a retry was decided.
	 * @return the delay
	 */
	public Optional<Duration> delay() {
		return retry().map(Decision.Retry::delay);
	}

	/**
	 * Returns where the delay came from, if a retry was decided.
	 * @return the source
	 */
	public Optional<DelaySource> source() {
		return retry().map(Decision.Retry::source);
	}

	/**
	 * Returns the planner's plan, if the delay came from {@code Retry-After}.
	 * @return the plan
	 */
	public Optional<RetryPlan> plan() {
		return retry().flatMap(Decision.Retry::plan);
	}

	/**
	 * Returns the backoff draw, if our backoff was used.
	 * @return the draw
	 */
	public Optional<BackoffDraw> draw() {
		return retry().flatMap(Decision.Retry::draw);
	}

	/**
	 * Returns the code of a refused {@code Retry-After}, if one was.
	 * @return the code
	 */
	public Optional<RetryAfterError> refusedHint() {
		return retry().flatMap(Decision.Retry::refusedHint).map((ex) -> ex.code());
	}

	/**
	 * Returns the stop decided after this attempt, if the operation ended there.
	 * @return the stop
	 */
	public Optional<Decision.Stop> stop() {
		return this.decision.filter(Decision.Stop.class::isInstance).map(Decision.Stop.class::cast);
	}

}
