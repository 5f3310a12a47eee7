package io.github.retryafter.engine;

import java.util.Optional;

import io.github.retryafter.PlanRequest;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.hint.ResponseHints;
import io.github.retryafter.hint.RetryAfterPlanner;

/**
 * What the response's wait fields ({@code Retry-After} and the millisecond fields the policy reads) gave an
 * operation: a plan, or a refusal (possibly {@code TOO_LONG}), or nothing. A refused should-retry field is reported
 * here too, beside a plan, unless a wait field's refusal takes its place. Immutable.
 *
 * @param plan the plan, when a wait field was usable
 * @param refused why the wait fields (or else a should-retry field) were refused, when they were
 */
record Hint(Optional<RetryPlan> plan, Optional<RetryAfterException> refused) {

	static final Hint NONE = new Hint(Optional.empty(), Optional.empty());

	/**
	 * Reads the response's {@code Retry-After} from its hints with the engine's planner: a plan, a refusal treated as
	 * absent (and reported), or {@link RetryAfterError#TOO_LONG}, which stops the operation. A broken random source
	 * or a half measured round trip is a bug of the caller's and is thrown.
	 */
	static Hint read(RetryAfterPlanner planner, RetryPolicy policy, OperationState state, AttemptOutcome outcome) {
		if (outcome instanceof AttemptOutcome.Failure failure) {
			return handedOn(planner, state, failure);
		}
		if (!(outcome instanceof AttemptOutcome.Response response)) {
			return NONE;
		}
		Optional<RetryAfterException> shouldRetryRefused = response.hints()
			.shouldRetry(planner.options().fields())
			.refused();
		if (!response.hints().hasWaitField(planner.options().fields())) {
			return shouldRetryRefused.isEmpty() ? NONE : new Hint(Optional.empty(), shouldRetryRefused);
		}
		return plan(planner, response.hints(), planRequest(policy, state, response), shouldRetryRefused);
	}

	/**
	 * Plans the wait until the instant a failure hands on ({@link NotBefore#find}: an inner retry layer gave up and
	 * named the provider's instant) as an instant ({@link RetryAfterPlanner#planUntil}), so an outer
	 * {@link RetryRunner} waits no less than the provider asked, with the same jitter, max wait and refusals as a field
	 * it read itself, whichever fields its policy reads.
	 */
	private static Hint handedOn(RetryAfterPlanner planner, OperationState state, AttemptOutcome.Failure failure) {
		Optional<NotBefore> carried = NotBefore.find(failure.cause());
		if (carried.isEmpty()) {
			return NONE;
		}
		PlanRequest request = PlanRequest.forAttempt(state.attempts());
		if (state.spec().jitterKey().isPresent()) {
			request = request.withJitterKey(state.spec().jitterKey().get());
		}
		try {
			return new Hint(Optional.of(planner.planUntil(carried.get().instant(), request)), Optional.empty());
		}
		catch (RetryAfterException ex) {
			if (ex.code() == RetryAfterError.INVALID_RANDOM) {
				throw ex;
			}
			return new Hint(Optional.empty(), Optional.of(ex));
		}
	}

	private static Hint plan(RetryAfterPlanner planner, ResponseHints hints, PlanRequest request,
			Optional<RetryAfterException> shouldRetryRefused) {
		try {
			return new Hint(planner.plan(hints, request), shouldRetryRefused);
		}
		catch (RetryAfterException ex) {
			if (ex.code() == RetryAfterError.INVALID_RANDOM || ex.code() == RetryAfterError.HALF_MEASURED_ROUND_TRIP) {
				throw ex;
			}
			return new Hint(Optional.empty(), Optional.of(ex));
		}
	}

	boolean tooLong() {
		return this.refused.isPresent() && this.refused.get().code() == RetryAfterError.TOO_LONG;
	}

	Optional<RetryAfterError> error() {
		return this.refused.map(RetryAfterException::code);
	}

	private static PlanRequest planRequest(RetryPolicy policy, OperationState state, AttemptOutcome.Response response) {
		PlanRequest request = PlanRequest.forAttempt(state.attempts());
		if (state.spec().jitterKey().isPresent()) {
			request = request.withJitterKey(state.spec().jitterKey().get());
		}
		if (policy.subtractRoundTrip()) {
			request = request.withRoundTrip(response.sentAtNanos(), response.receivedAtNanos());
		}
		return request;
	}

}
