package io.github.retryafter.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The instant a provider named, before which no request to it should be sent, as an operation that gave up hands it
 * on to whatever retries outside it (a scheduler, Spring's {@code RetryTemplate}, a message redelivery, an outer
 * {@link RetryRunner}). It is the provider's own floor: the later of the last response's {@code Retry-After} (measured
 * as every wait here is, against the response's {@code Date}, without jitter) and, with pacing on, the provider's
 * cooldown; an outer layer adds its own spread above it. Immutable.
 *
 * @param tickerNanos the instant on the engine's {@link io.github.retryafter.Ticker}: what a waiter in the same
 * process compares against
 * @param instant the same instant on the wall clock, estimated when the operation stopped: what another process, a
 * scheduler or a log line uses
 * @param remaining how much of the wait was left when the operation stopped, never negative
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public record NotBefore(long tickerNanos, Instant instant, Duration remaining) {

	/** How deep {@link #find(Throwable)} looks into causes and suppressed exceptions. */
	private static final int MAX_SEARCHED = 32;

	/**
	 * Checks the arguments.
	 * @param tickerNanos the instant on the engine's ticker
	 * @param instant the same instant on the wall clock
	 * @param remaining how much of the wait was left, not negative
	 */
	public NotBefore {
		Objects.requireNonNull(instant, "instant");
		Objects.requireNonNull(remaining, "remaining");
		if (remaining.isNegative()) {
			throw new IllegalArgumentException("remaining must not be negative but was " + remaining);
		}
	}

	/**
	 * Returns how much of the wait is left at the wall clock's current instant.
	 * @param clock the wall clock
	 * @return the time until {@link #instant()}, zero once it has passed
	 */
	public Duration remainingAt(InstantSource clock) {
		Duration left = Duration.between(clock.instant(), this.instant);
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Finds the instant a failure carries: on the failure itself, or on one of its causes or suppressed exceptions (as
	 * a retrying client attaches it to the exception the caller catches), breadth first, at most 32 exceptions deep.
	 * @param failure what the caller caught
	 * @return the first instant found, empty when none of them carries one
	 */
	public static Optional<NotBefore> find(Throwable failure) {
		if (failure instanceof Carrier carrier && carrier.notBefore().isPresent()) {
			return carrier.notBefore();
		}
		if (failure.getCause() == null && failure.getSuppressed().length == 0) {
			// the common failure (an I/O exception of its own): no search, nothing allocated
			return Optional.empty();
		}
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		Deque<Throwable> queue = new ArrayDeque<>();
		queue.add(Objects.requireNonNull(failure, "failure"));
		while (!queue.isEmpty() && seen.size() < MAX_SEARCHED) {
			Throwable next = queue.poll();
			if (!seen.add(next)) {
				continue;
			}
			if (next instanceof Carrier carrier && carrier.notBefore().isPresent()) {
				return carrier.notBefore();
			}
			if (next.getCause() != null) {
				queue.add(next.getCause());
			}
			Collections.addAll(queue, next.getSuppressed());
		}
		return Optional.empty();
	}

	/**
	 * An exception that says how an operation ended and carries the provider's instant with it, if it named one.
	 */
	public interface Carrier {

		/**
		 * Returns the instant the provider named.
		 * @return the instant, empty when the provider named none (or it had passed when the operation stopped)
		 */
		Optional<NotBefore> notBefore();

	}

}
