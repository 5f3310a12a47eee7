package io.github.retryafter.engine;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether an attempt may be sent again, decided here once for every adapter: a request is replay-safe when its method
 * is one the policy replays without a key (RFC 9110 §9.2.2), it carries an idempotency key, or the provider refused it
 * before processing it ({@link ProviderConventions#refusedBeforeProcessing}), and its body can be sent again. The engine asks after each attempt it would retry; an adapter that learns only while sending that its
 * body cannot be replayed (the WebClient filter) asks {@link #refuseUnreplayable} before the engine. Stateless.
 */
public final class ReplaySafety {

	/** How the refusal of a body that cannot be replayed begins. */
	static final String CANNOT_BE_REPLAYED = "the request body cannot be replayed";

	private ReplaySafety() {
	}

	/**
	 * Whether {@code spec}'s method may be replayed after {@code outcome}: one the policy replays without a key, a
	 * keyed request, or a refusal the provider's conventions say came before any processing.
	 */
	static boolean replaySafe(RetryPolicy policy, OperationSpec spec, AttemptOutcome outcome) {
		return policy.isRetryableMethod(spec.method()) || spec.idempotencyKey().isPresent()
				|| policy.conventions().refusedBeforeProcessing(outcome);
	}

	/**
	 * The engine's refusal of a retryable outcome that may not be sent again: a method that is not replay-safe
	 * ({@link Outcome#OUTCOME_UNKNOWN} after a failure once sent, else {@link Outcome#NOT_RETRYABLE}), or a body that
	 * cannot be replayed. An attempt that was never sent may always be.
	 */
	static Optional<Decision.Stop> refusal(RetryPolicy policy, OperationSpec spec, AttemptOutcome outcome,
			int attempt) {
		if (outcome instanceof AttemptOutcome.Failure failure && failure.kind() == FailureKind.NOT_SENT) {
			return Optional.empty();
		}
		if (!replaySafe(policy, spec, outcome)) {
			if (outcome instanceof AttemptOutcome.Failure) {
				return Optional.of(new Decision.Stop(Outcome.OUTCOME_UNKNOWN, spec.method() + " without "
						+ policy.idempotencyKeyHeader() + " " + RetryEngine.describe(outcome) + " on attempt " + attempt
						+ " after it was sent: it may have been applied, so it is not repeated; look the outcome up before sending it again"));
			}
			return Optional.of(new Decision.Stop(Outcome.NOT_RETRYABLE, spec.method() + " without "
					+ policy.idempotencyKeyHeader() + " is not replay-safe; " + RetryEngine.describe(outcome)
					+ " on attempt " + attempt + " is not retried"));
		}
		if (!spec.replayable()) {
			return Optional.of(new Decision.Stop(Outcome.NOT_RETRYABLE, unreplayable(outcome, attempt)));
		}
		return Optional.empty();
	}

	/**
	 * Ends {@code operation} {@link Outcome#NOT_RETRYABLE} when its engine would retry {@code outcome} but the body,
	 * found while the attempt was sent, cannot be sent again: for an adapter that learns so only then, and asks before
	 * the engine, so that no retry is scheduled (nor reported) that cannot be sent. An outcome the engine would not
	 * retry, or a request whose method is not replay-safe, is left to the engine, whose reason says so.
	 * @param engine the operation's engine
	 * @param operation the operation, its attempt in flight
	 * @param outcome the attempt's outcome
	 * @param problem why the body cannot be replayed, and what to do
	 * @return the stop the operation ended with, empty when the engine is to decide
	 */
	public static Optional<Decision.Stop> refuseUnreplayable(RetryEngine engine, RetryOperation operation,
			AttemptOutcome outcome, String problem) {
		Objects.requireNonNull(problem, "problem");
		if (!replaySafe(engine.policy(), operation.spec(), outcome) || engine.judge().classify(outcome) != Classification.RETRYABLE) {
			return Optional.empty();
		}
		return Optional.of(operation.stop(Outcome.NOT_RETRYABLE,
				unreplayable(outcome, operation.attempts()) + ": " + problem));
	}

	/**
	 * Adds to the engine's refusal of a body it cannot replay why the body cannot be replayed, and what to do: for an
	 * adapter that knew before the operation started, and so told the engine through
	 * {@link OperationSpec#replayable()}.
	 * @param stop how the operation ended
	 * @param problem why the body cannot be replayed, and what to do
	 * @return the stop with the problem added, or {@code stop} itself when it is not that refusal
	 */
	public static Decision.Stop explained(Decision.Stop stop, String problem) {
		if (stop.outcome() != Outcome.NOT_RETRYABLE || !stop.reason().startsWith(CANNOT_BE_REPLAYED)) {
			return stop;
		}
		return new Decision.Stop(stop.outcome(), stop.reason() + ": " + problem);
	}

	private static String unreplayable(AttemptOutcome outcome, int attempt) {
		return CANNOT_BE_REPLAYED + "; " + RetryEngine.describe(outcome) + " on attempt " + attempt + " is not retried";
	}

}
