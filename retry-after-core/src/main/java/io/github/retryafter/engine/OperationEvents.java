package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Optional;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.pacing.ProviderGate;

/**
 * What a {@link RetryOperation} tells its engine's listener, built only when someone listens: without a listener
 * nothing is allocated and, for the end of an operation or of a cooldown, the ticker is not read. Stateless.
 */
final class OperationEvents {

	private OperationEvents() {
	}

	static void attempt(RetryOperation operation, Duration timeout, long now, double before, double after) {
		RetryEngine engine = operation.engine();
		if (engine.listening()) {
			int attempt = operation.attempts();
			engine.listener()
				.onAttempt(new AttemptEvent(operation.spec(), attempt, (attempt == 1) ? AttemptKind.FIRST
						: AttemptKind.RETRY, operation.spec().idempotencyKey(), timeout,
						DeadlineRule.remaining(operation.deadlineNanos(), now), before, after,
						elapsed(operation, now)));
		}
	}

	static void retryScheduled(RetryOperation operation, AttemptOutcome outcome, Decision.Retry retry, long now) {
		RetryEngine engine = operation.engine();
		if (engine.listening()) {
			engine.listener()
				.onRetryScheduled(new RetryScheduledEvent(operation.spec(), operation.attempts(), outcome, retry,
						DeadlineRule.remaining(operation.deadlineNanos(), retry.notBeforeNanos()),
						operation.totalWait(), engine.tokens().available(operation.spec().scope()),
						elapsed(operation, now)));
		}
	}

	static void refusal(RetryOperation operation, Optional<Outcome> stop, Optional<RetryAfterError> hintError,
			String reason, long now) {
		RetryEngine engine = operation.engine();
		if (engine.listening()) {
			engine.listener()
				.onRefusal(new RefusalEvent(operation.spec(), operation.attempts(), stop, hintError, reason,
						DeadlineRule.remaining(operation.deadlineNanos(), now),
						engine.tokens().available(operation.spec().scope()), elapsed(operation, now)));
		}
	}

	static void finished(RetryOperation operation, Decision.Stop stop) {
		RetryEngine engine = operation.engine();
		if (engine.listening()) {
			// read for the event only: without a listener, ending an operation does not read the ticker
			long now = engine.ticker().read();
			engine.listener()
				.onOperationFinished(new OperationFinishedEvent(operation.spec(), stop.outcome(), stop.reason(),
						operation.attempts(), operation.totalWait(), elapsed(operation, now),
						operation.lastOutcome()));
		}
	}

	/** The retry about to be sent waited through {@code gap}, now ended; nothing when it has none. */
	static void waited(RetryOperation operation, Gap gap, long now) {
		RetryEngine engine = operation.engine();
		if (gap != null && engine.listening()) {
			engine.listener()
				.onWaited(gap.end(operation.spec(), operation.attempts(), now, elapsed(operation, now)));
		}
	}

	/** The response of {@code outcome} closed its gate, or kept it closed longer: reported with the decision after it. */
	static void cooldownStarted(RetryOperation operation, GateFeed.Pause pause, AttemptOutcome outcome,
			Decision decision, long now) {
		RetryEngine engine = operation.engine();
		if (pause != null && pause.closedGate() && engine.listening()) {
			ProviderGate gate = engine.gate(operation.spec().scope());
			engine.listener()
				.onCooldownStarted(new CooldownStartedEvent(operation.spec(), gate.scope(), operation.attempts(),
						(AttemptOutcome.Response) outcome, pause.cause(), pause.field(),
						Duration.ofNanos(Math.max(0, gate.cooldownUntilNanos() - now)), decision,
						elapsed(operation, now)));
		}
	}

	static void cooldownEnded(RetryOperation operation, ProviderGate gate) {
		RetryEngine engine = operation.engine();
		if (engine.listening()) {
			long now = engine.ticker().read();
			engine.listener()
				.onCooldownEnded(new CooldownEndedEvent(operation.spec(), gate.scope(), operation.attempts(),
						elapsed(operation, now)));
		}
	}

	private static Duration elapsed(RetryOperation operation, long now) {
		return Duration.ofNanos(now - operation.startedAtNanos());
	}

}
