package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How long a provider's calls may take, as its {@link ProviderProfile} says: whether the client's own timeouts bound
 * each attempt ({@link RetryEngine#clientTimeouts()}) rather than the attempt timeout, and the deadline that fits its
 * calls. Like the rest of a profile, these are defaults: a provider's own {@code attempt-timeout} or {@code deadline}
 * wins. Immutable and thread-safe.
 *
 * @param clientTimeouts whether the client's own timeouts bound each attempt, so that adding retries never ends a call
 * earlier than the client alone would
 * @param deadline the operation's deadline under the profile, or empty to keep the one in force
 */
public record CallTimeouts(boolean clientTimeouts, Optional<Duration> deadline) {

	/** What a deadline fits model calls: the OpenAI and Anthropic SDKs' own default timeout of one request. */
	public static final Duration MODEL_DEADLINE = Duration.ofMinutes(10);

	/** The attempt timeout in force bounds each attempt, lowering the client's own; the deadline in force. */
	public static final CallTimeouts STANDARD = new CallTimeouts(false, Optional.empty());

	/**
	 * Model calls, long by nature (a completion of minutes, a stream that pauses while the model thinks): the
	 * client's own timeouts bound each attempt, and the deadline is {@link #MODEL_DEADLINE}, so a completion the
	 * client would wait for is never cut by the retry layer, and a retry still fits after a long first attempt.
	 */
	public static final CallTimeouts MODEL_CALLS = new CallTimeouts(true, Optional.of(MODEL_DEADLINE));

	/**
	 * Checks the arguments.
	 * @param clientTimeouts whether the client's own timeouts bound each attempt
	 * @param deadline the operation's deadline under the profile, or empty to keep the one in force
	 * @throws IllegalArgumentException if the deadline is not positive
	 */
	public CallTimeouts {
		Objects.requireNonNull(deadline, "deadline");
		deadline.ifPresent((value) -> PolicyChecks.positive("deadline", value));
	}

}
