package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A retry is about to be sent after its wait, measured as it happened on the engine's ticker: from the end of the
 * attempt before (when its outcome was recorded) to the start of this one (when it was permitted). Reported just
 * before the retry's {@link AttemptEvent}.
 * <p>
 * A wait has parts: the delay the engine planned ({@link Decision.Retry}, its cause the provider's wait field or the
 * backoff), then each hold of the provider's gate or the budget, each from the moment it was answered until the next
 * answer (so a wake-up late by a few milliseconds counts for the part it ends). The {@link #parts()} sum to
 * {@link #waited()}; the wait's {@link #cause()} is the part that lasted longest (the earlier on a tie). A gate's
 * cooldown counts as the field of this operation's own last response when that response named an instant not yet
 * passed as the hold began ({@link WaitCause#WINDOW_RESET} for a rate-limit window's reset), and as
 * {@link WaitCause#COOLDOWN} otherwise; after the cooldown's end, the wait for its probe's answer is
 * {@link WaitCause#PROBE}.
 *
 * @param spec the operation
 * @param attempt the attempt the wait came before, from 2
 * @param waited how long the retry waited, from the end of the attempt before to the start of this one (named
 * {@code waited} because a record component cannot be called {@code wait})
 * @param cause the part of the wait that lasted longest
 * @param parts the wait's parts by cause, in the order they began, summing to {@code waited}; a part of no length is
 * left out unless it is the only one
 * @param elapsed the time since the operation started
 */
public record WaitedEvent(OperationSpec spec, int attempt, Duration waited, WaitCause cause,
		Map<WaitCause, Duration> parts, Duration elapsed) {

	/**
	 * Checks the arguments and copies the parts, keeping their order.
	 * @param spec the operation
	 * @param attempt the attempt the wait came before, from 2
	 * @param waited how long the retry waited, from the end of the attempt before to the start of this one
	 * @param cause the part of the wait that lasted longest
	 * @param parts the wait's parts by cause, in the order they began
	 * @param elapsed the time since the operation started
	 */
	public WaitedEvent {
		Objects.requireNonNull(spec, "spec");
		Objects.requireNonNull(waited, "waited");
		Objects.requireNonNull(cause, "cause");
		Objects.requireNonNull(elapsed, "elapsed");
		parts = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(parts, "parts")));
	}

}
