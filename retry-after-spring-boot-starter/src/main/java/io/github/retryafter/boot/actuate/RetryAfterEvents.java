package io.github.retryafter.boot.actuate;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.CooldownEndedEvent;
import io.github.retryafter.engine.CooldownStartedEvent;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * A listener that keeps the most recent events an operator investigating an incident wants, in a ring buffer of a
 * fixed capacity (the oldest is dropped first): operations that ended without success, {@code Retry-After} values that
 * were refused, cooldowns a provider asked for (a {@code 429} or {@code 503} with a usable wait field, and any response
 * that closed the provider's gate, whatever its status and whichever field named the instant) and their ends (the
 * probe after a cooldown got an answer that left the gate open), and the fleet falling back from its store to local
 * state ({@link #fleetFellBack}).
 * Each event names its provider, time, outcome, attempts and a reason cut to {@value #MAX_REASON_LENGTH} characters;
 * nothing from a request's URL is kept. Bounded: at most {@code capacity} events of at most a few hundred bytes each.
 * Thread-safe.
 */
public final class RetryAfterEvents implements RetryListener {

	/** The longest reason kept; a longer one is cut and ends with an ellipsis. */
	public static final int MAX_REASON_LENGTH = 200;

	private final int capacity;

	private final InstantSource wallClock;

	private final ArrayDeque<Event> events;

	private long recorded;

	/**
	 * Creates the buffer.
	 * @param capacity the most events kept, at least 1
	 * @param wallClock stamps each event, for display only
	 */
	public RetryAfterEvents(int capacity, InstantSource wallClock) {
		if (capacity < 1) {
			throw new IllegalArgumentException("retry.after.events.capacity must be at least 1, was " + capacity);
		}
		this.capacity = capacity;
		this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
		this.events = new ArrayDeque<>(capacity);
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		if (event.outcome() != Outcome.SUCCESS) {
			record(Type.OPERATION_FAILED, event.spec().provider(), event.outcome().name(), event.attempts(),
					event.reason());
		}
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		// a refusal that ends the operation is reported once, by the operation's end
		if (event.stop().isEmpty()) {
			record(Type.HINT_REFUSED, event.spec().provider(),
					event.hintError().map(Enum::name).orElse("REFUSED"), event.attempt(), event.reason());
		}
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		if (event.outcome() instanceof AttemptOutcome.Response response
				&& (response.status() == 429 || response.status() == 503)
				&& event.source() == io.github.retryafter.engine.DelaySource.RETRY_AFTER) {
			record(new Event(this.wallClock.instant(), Type.COOLDOWN, event.spec().provider(),
					"STATUS_" + response.status(), event.attempt(), cut(ProviderWords.of(event)),
					event.plan().map((plan) -> ProviderWords.asked(plan, event.delay())).orElse(null)));
		}
	}

	/**
	 * Records a gate closed by any field, unless {@link #onRetryScheduled} just recorded the same response (a
	 * {@code 429} or {@code 503} whose retry was planned from its wait field), in the provider's words.
	 */
	@Override
	public void onCooldownStarted(CooldownStartedEvent event) {
		boolean recorded = (event.status() == 429 || event.status() == 503)
				&& event.decision() instanceof Decision.Retry retry && retry.plan().isPresent();
		if (!recorded) {
			record(new Event(this.wallClock.instant(), Type.COOLDOWN, event.spec().provider(),
					"STATUS_" + event.status(), event.attempt(),
					cut("the provider's " + event.field() + " closed the gate of '" + event.scope() + "' for "
							+ event.closedFor().toMillis() + " ms after attempt " + event.attempt() + " (status "
							+ event.status() + ")"),
					new Asked(event.field(), event.closedFor().toMillis(), 0, null, false)));
		}
	}

	@Override
	public void onCooldownEnded(CooldownEndedEvent event) {
		record(Type.COOLDOWN_ENDED, event.scope().provider(), "OPEN", event.attempt(),
				"the probe after the cooldown of " + event.scope() + " was answered and the gate is open again");
	}

	/**
	 * Records that this instance fell back from the fleet's store to its local budget and gates.
	 * @param status the fleet's status as it fell back
	 */
	public void fleetFellBack(FleetStatus status) {
		record(Type.FLEET_FALLBACK, "fleet", status.state(), 0,
				"the fleet's " + status.store() + " store failed (" + status.lastError().orElse("unknown")
						+ "); budget and cooldowns are this instance's own until it rejoins");
	}

	private void record(Type type, String provider, String outcome, int attempts, String reason) {
		record(new Event(this.wallClock.instant(), type, provider, outcome, attempts, cut(reason)));
	}

	private void record(Event event) {
		synchronized (this.events) {
			if (this.events.size() == this.capacity) {
				this.events.removeFirst();
			}
			this.events.addLast(event);
			this.recorded++;
		}
	}

	/**
	 * Returns the events kept, newest first.
	 * @return a copy of the buffer
	 */
	public List<Event> recent() {
		synchronized (this.events) {
			List<Event> copy = new ArrayList<>(this.events.size());
			Iterator<Event> newestFirst = this.events.descendingIterator();
			newestFirst.forEachRemaining(copy::add);
			return copy;
		}
	}

	/**
	 * Returns how many events were recorded since start, including those since dropped.
	 * @return the count
	 */
	public long recorded() {
		synchronized (this.events) {
			return this.recorded;
		}
	}

	/**
	 * Returns the most events kept.
	 * @return the capacity
	 */
	public int capacity() {
		return this.capacity;
	}

	private static String cut(String reason) {
		if (reason == null || reason.length() <= MAX_REASON_LENGTH) {
			return reason;
		}
		return reason.substring(0, MAX_REASON_LENGTH - 1) + "…";
	}

	/**
	 * What an event is about.
	 */
	public enum Type {

		/** An operation ended without success; its outcome says how. */
		OPERATION_FAILED,

		/** A {@code Retry-After} was unusable and treated as absent; the outcome is its error code. */
		HINT_REFUSED,

		/**
		 * This instance fell back from the fleet's store to its own budget and gates; provider {@code fleet}, the
		 * outcome is the fleet's state.
		 */
		FLEET_FALLBACK,

		/**
		 * A provider asked for a pause: it answered {@code 429} or {@code 503} with a usable wait field, or a
		 * response closed its gate (any status, any field: a window's reset too); the outcome is {@code STATUS_} and
		 * the status.
		 */
		COOLDOWN,

		/** A gate's cooldown ended: its probe was answered and the gate is open again ({@code OPEN}). */
		COOLDOWN_ENDED

	}

	/**
	 * One event.
	 *
	 * @param time when it was recorded (wall clock)
	 * @param type what it is about
	 * @param provider the provider's configured name
	 * @param outcome the operation's outcome, the refused hint's error code, or the status that asked for a pause
	 * @param attempts the attempts sent so far
	 * @param reason a sentence with the numbers, at most {@value RetryAfterEvents#MAX_REASON_LENGTH} characters
	 * @param asked what the provider asked for, apart from what this library added; {@code null} except on a
	 * {@link Type#COOLDOWN} (for a gate closed by a field no retry was planned from, the time the gate stays closed,
	 * nothing added)
	 */
	public record Event(Instant time, Type type, String provider, String outcome, int attempts, String reason,
			Asked asked) {

		/**
		 * An event without a provider's wait.
		 * @param time when it was recorded (wall clock)
		 * @param type what it is about
		 * @param provider the provider's configured name
		 * @param outcome the operation's outcome, the refused hint's error code, or the status that asked for a pause
		 * @param attempts the attempts sent so far
		 * @param reason a sentence with the numbers
		 */
		public Event(Instant time, Type type, String provider, String outcome, int attempts, String reason) {
			this(time, type, provider, outcome, attempts, reason, null);
		}

	}

	/**
	 * What the provider asked for, kept apart from what this library added above it.
	 *
	 * @param field the field the wait came from ({@code Retry-After}, {@code retry-after-ms}, {@code x-ms-retry-after-ms},
	 * {@code google.rpc.RetryInfo}, or a window's reset such as {@code X-RateLimit-Reset})
	 * @param floorMillis the provider's wait after the response's age was taken off: never retried before it
	 * @param addedMillis what this library added above the floor (the jitter, or the backoff it was compared with)
	 * @param skewSeconds the server's {@code Date} minus the client's clock, signed; {@code null} without a usable
	 * {@code Date}
	 * @param skewWithinDatePrecision whether that skew is under one second, the {@code Date}'s precision, and so no
	 * skew at all as far as the field can tell
	 */
	public record Asked(String field, long floorMillis, long addedMillis, Double skewSeconds,
			boolean skewWithinDatePrecision) {
	}

}
