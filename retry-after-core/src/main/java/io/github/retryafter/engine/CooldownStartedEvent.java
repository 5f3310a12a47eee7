package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.Scope;

/**
 * A response closed its provider's gate, or kept it closed longer: whatever field named the instant (a wait field, or
 * a rate-limit window with nothing left until its reset) and whatever the status (a {@code 200} whose window is
 * exhausted closes it too). Reported once the operation decided what follows that response, so after its
 * {@link RetryScheduledEvent} and before its {@link OperationFinishedEvent}; a response that names an instant no
 * later than the gate's end already reports nothing. Its end is a {@link CooldownEndedEvent}.
 *
 * @param spec the operation whose response it was
 * @param scope whose gate closed: the provider, or one of its origins
 * @param attempt the attempt that got the response
 * @param response the response that closed it
 * @param cause the field that named the latest instant, as a cause of waits ({@link WaitCause#RETRY_AFTER},
 * {@link WaitCause#RETRY_AFTER_MS}, {@link WaitCause#X_MS_RETRY_AFTER_MS}, {@link WaitCause#RETRY_INFO} or
 * {@link WaitCause#WINDOW_RESET})
 * @param field that field's name, as providers spell it ({@code Retry-After}, {@code X-RateLimit-Reset},
 * {@code anthropic-ratelimit-tokens-reset}, {@code google.rpc.RetryInfo}…), never its value
 * @param closedFor how long the gate stays closed from now (capped at the gate's max cooldown)
 * @param decision what the operation decided after the response
 * @param elapsed the time since the operation started
 */
public record CooldownStartedEvent(OperationSpec spec, Scope scope, int attempt, AttemptOutcome.Response response,
		WaitCause cause, String field, Duration closedFor, Decision decision, Duration elapsed) {

	/**
	 * Checks the arguments.
	 * @param spec the operation whose response it was
	 * @param scope whose gate closed
	 * @param attempt the attempt that got the response
	 * @param response the response that closed it
	 * @param cause the field that named the latest instant, as a cause of waits
	 * @param field that field's name
	 * @param closedFor how long the gate stays closed from now
	 * @param decision what the operation decided after the response
	 * @param elapsed the time since the operation started
	 */
	public CooldownStartedEvent {
		Objects.requireNonNull(spec, "spec");
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(response, "response");
		Objects.requireNonNull(cause, "cause");
		Objects.requireNonNull(field, "field");
		Objects.requireNonNull(closedFor, "closedFor");
		Objects.requireNonNull(decision, "decision");
		Objects.requireNonNull(elapsed, "elapsed");
	}

	/**
	 * Returns the status of the response that closed the gate.
	 * @return the status
	 */
	public int status() {
		return this.response.status();
	}

}
