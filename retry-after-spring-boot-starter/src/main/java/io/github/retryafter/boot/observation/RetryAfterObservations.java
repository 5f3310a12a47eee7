package io.github.retryafter.boot.observation;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.github.retryafter.engine.Outcome;

/**
 * Opens the observations of the WebClient filter and the RestClient interceptor: one {@code retry.after.operation}
 * per logical operation, a child of the observation current when it starts (Boot's {@code http.client.requests}),
 * and one {@code retry.after.attempt} per attempt inside it, whose request headers carry the attempt's own trace
 * context. Each wait the operation takes is one event on it ({@value #WAIT_EVENT}: its delay and source,
 * {@code RETRY_AFTER}, {@code BACKOFF} or {@code GATE}), told when it begins: the provider's gate holding the operation
 * again as it asks again adds none. With {@link ObservationRegistry#NOOP} nothing is created. Thread-safe.
 */
public final class RetryAfterObservations {

	/** The name of the event recorded on the operation's observation for each wait. */
	public static final String WAIT_EVENT = "wait";

	private static final Duration SHORTEST_WAIT_EVENT = Duration.ofMillis(1);

	/** Observes nothing. */
	public static final RetryAfterObservations NOOP = new RetryAfterObservations(ObservationRegistry.NOOP, null, null);

	private static final DefaultRetryAfterOperationObservationConvention DEFAULT_OPERATION = new DefaultRetryAfterOperationObservationConvention();

	private static final DefaultRetryAfterAttemptObservationConvention DEFAULT_ATTEMPT = new DefaultRetryAfterAttemptObservationConvention();

	private final ObservationRegistry registry;

	private final RetryAfterOperationObservationConvention operationConvention;

	private final RetryAfterAttemptObservationConvention attemptConvention;

	/**
	 * Creates the observations.
	 * @param registry where the observations are reported
	 * @param operationConvention replaces the default operation convention; {@code null} for the default
	 * @param attemptConvention replaces the default attempt convention; {@code null} for the default
	 */
	public RetryAfterObservations(ObservationRegistry registry,
			RetryAfterOperationObservationConvention operationConvention,
			RetryAfterAttemptObservationConvention attemptConvention) {
		this.registry = Objects.requireNonNull(registry, "registry");
		this.operationConvention = operationConvention;
		this.attemptConvention = attemptConvention;
	}

	/**
	 * Starts the observation of one logical operation.
	 * @param provider the provider's configured name
	 * @param method the HTTP method, upper case
	 * @param host the request's host
	 * @param parent the observation to nest it in; {@code null} for the registry's current observation
	 * @return the started operation, or a no-op when nothing observes
	 */
	public OperationObservation start(String provider, String method, String host, Observation parent) {
		if (this.registry.isNoop()) {
			return OperationObservation.NONE;
		}
		RetryAfterOperationContext context = new RetryAfterOperationContext(provider, method,
				(host != null) ? host : "");
		Observation observation = Observation.createNotStarted(this.operationConvention, DEFAULT_OPERATION,
				() -> context, this.registry);
		if (parent != null) {
			observation.parentObservation(parent);
		}
		observation.start();
		return new OperationObservation(this, observation, context);
	}

	/**
	 * One operation's observation. Ends once, whichever of the adapter's paths ends it first.
	 */
	public static final class OperationObservation {

		static final OperationObservation NONE = new OperationObservation(null, Observation.NOOP, null);

		private final RetryAfterObservations owner;

		private final Observation observation;

		private final RetryAfterOperationContext context;

		private final AtomicBoolean stopped = new AtomicBoolean();

		// whether the wait before the next attempt has been told; cleared when an attempt starts
		private volatile boolean waitTold;

		private OperationObservation(RetryAfterObservations owner, Observation observation,
				RetryAfterOperationContext context) {
			this.owner = owner;
			this.observation = observation;
			this.context = context;
		}

		/**
		 * Says whether anything observes this operation: when not, an adapter need not prepare a carrier for
		 * {@link #attempt}.
		 * @return whether the operation is observed
		 */
		public boolean isObserved() {
			return this.context != null;
		}

		/**
		 * Returns the operation's observation, to nest other observations in.
		 * @return the observation; {@link Observation#NOOP} when nothing observes
		 */
		public Observation observation() {
			return this.observation;
		}

		/**
		 * Starts the observation of one attempt; a tracer writes its trace context through {@code headers}.
		 * @param attempt the attempt's number, from 1
		 * @param headers sets a header of the attempt's request (replacing any value it had)
		 * @return the started attempt, or a no-op when nothing observes
		 */
		public AttemptObservation attempt(int attempt, BiConsumer<String, String> headers) {
			if (this.context == null) {
				return AttemptObservation.NONE;
			}
			this.waitTold = false;
			RetryAfterAttemptContext attemptContext = new RetryAfterAttemptContext(this.context, attempt, headers);
			Observation child = Observation.createNotStarted(this.owner.attemptConvention, DEFAULT_ATTEMPT,
					() -> attemptContext, this.owner.registry);
			child.parentObservation(this.observation);
			child.start();
			return new AttemptObservation(child, attemptContext);
		}

		/**
		 * Records a wait as an event on the operation, once per wait: from the first call after an attempt (or
		 * before the first) that is told, later calls until the next {@link #attempt} are the same wait going on (a
		 * retry's wait the provider's gate then holds, or the gate holding the operation again each time it asks
		 * again) and are not told. A wait shorter than a millisecond (a gate re-checking a slot that is already due)
		 * is not told, and does not stand for a longer one after it.
		 * @param delay how long the wait lasts, as planned when it is told
		 * @param source why: {@code RETRY_AFTER}, {@code BACKOFF} or {@code GATE}
		 */
		public void waiting(Duration delay, String source) {
			if (this.context == null || this.waitTold || delay.compareTo(SHORTEST_WAIT_EVENT) < 0) {
				return;
			}
			this.waitTold = true;
			double seconds = Math.max(0, delay.toNanos()) / 1e9;
			this.observation.event(Observation.Event.of(WAIT_EVENT,
					String.format(java.util.Locale.ROOT, "wait %.3fs (%s)", seconds, source)));
		}

		/**
		 * Records how the operation ended; the observation stops at {@link #stop()}.
		 * @param outcome how it ended
		 * @param attempts the attempts it sent
		 */
		public void ended(Outcome outcome, int attempts) {
			if (this.context != null) {
				this.context.ended(outcome, attempts);
			}
		}

		/**
		 * Records an exception the caller gets instead of a response.
		 * @param failure the exception
		 */
		public void error(Throwable failure) {
			if (this.context != null) {
				this.observation.error(failure);
			}
		}

		/**
		 * Stops the observation; later calls do nothing.
		 */
		public void stop() {
			if (this.context != null && this.stopped.compareAndSet(false, true)) {
				this.observation.stop();
			}
		}

	}

	/**
	 * One attempt's observation. Ends once: when its response's status is known, when it fails, or when it is
	 * abandoned (a timeout or a cancel), whichever comes first.
	 */
	public static final class AttemptObservation {

		static final AttemptObservation NONE = new AttemptObservation(Observation.NOOP, null);

		private final Observation observation;

		private final RetryAfterAttemptContext context;

		private final AtomicBoolean stopped = new AtomicBoolean();

		private AttemptObservation(Observation observation, RetryAfterAttemptContext context) {
			this.observation = observation;
			this.context = context;
		}

		/**
		 * Returns the attempt observation of an operation nothing observes.
		 * @return a no-op
		 */
		public static AttemptObservation none() {
			return NONE;
		}

		/**
		 * Ends the attempt with the status its response arrived with.
		 * @param status the status code
		 */
		public void response(int status) {
			if (this.context != null && this.stopped.compareAndSet(false, true)) {
				this.context.setResponse(status);
				this.observation.stop();
			}
		}

		/**
		 * Ends the attempt with the exception it failed with.
		 * @param failure the exception
		 */
		public void failure(Throwable failure) {
			if (this.context != null && this.stopped.compareAndSet(false, true)) {
				this.observation.error(failure);
				this.observation.stop();
			}
		}

		/**
		 * Ends the attempt without a response, if nothing ended it yet.
		 */
		public void stop() {
			if (this.context != null && this.stopped.compareAndSet(false, true)) {
				this.observation.stop();
			}
		}

	}

}
