package io.github.retryafter.boot;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import io.micrometer.observation.Observation;

import io.github.retryafter.Cancellation;
import io.github.retryafter.boot.RetryAfterAttributes.RequestOptions;
import io.github.retryafter.boot.RetryAfterProviders.Provider;
import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Ending;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.request.RequestPreparer;

/**
 * The Spring side of an operation's front half: reads a request's attributes, has the core's {@link RequestPreparer}
 * pick its provider, settle its idempotency key and build its keyed-jitter identity, and tracks pending operations so
 * that closing the application context cancels their waits. Shared by the WebClient filter and the RestClient
 * interceptor. Thread-safe.
 */
public final class RetryAfterOperations {

	/**
	 * The {@code bodySize} of a request whose body cannot be replayed (a stream the adapter does not buffer): it is
	 * sent once.
	 */
	public static final long BODY_NOT_REPLAYABLE = RequestPreparer.BODY_NOT_REPLAYABLE;

	/**
	 * The {@code bodySize} of a request whose body the adapter records as its first attempt writes it, and replays
	 * from that recording (the WebClient filter). Its size is not known before it is sent, so the operation counts as
	 * replayable and the adapter itself ends it {@code NOT_RETRYABLE} when the recording exceeds
	 * {@link ProviderSettings#maxReplayBodyBytes()} or is otherwise incomplete.
	 */
	public static final long BODY_RECORDED_WHEN_SENT = RequestPreparer.BODY_RECORDED_WHEN_SENT;

	/** How many hosts' scopes are kept at most. */
	static final int MAX_CACHED_HOSTS = RequestPreparer.MAX_CACHED_HOSTS;

	private final RetryAfterProviders providers;

	private final RequestPreparer<Provider, Prepared> preparer;

	private final String instanceKey;

	private final RequestPreparer.UnmatchedHostListener unmatchedHosts;

	private final RetryAfterObservations observations;

	private final ProviderOrigins origins;

	private final Set<Cancellation> pending = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/**
	 * Creates the factory.
	 * @param providers the configured providers
	 * @param instanceKey this instance's identity for keyed jitter
	 */
	public RetryAfterOperations(RetryAfterProviders providers, String instanceKey) {
		this(providers, instanceKey, RetryAfterObservations.NOOP);
	}

	/**
	 * Creates the factory, observing every operation and attempt.
	 * @param providers the configured providers
	 * @param instanceKey this instance's identity for keyed jitter
	 * @param observations opens each operation's and attempt's observation
	 */
	public RetryAfterOperations(RetryAfterProviders providers, String instanceKey,
			RetryAfterObservations observations) {
		this(providers, instanceKey, observations, RequestPreparer.UnmatchedHostListener.NONE);
	}

	/**
	 * Creates the factory, observing every operation and attempt, and telling {@code unmatchedHosts} of the hosts no
	 * provider lists (their requests use {@code default}) when their route is looked up, not on every request.
	 * @param providers the configured providers
	 * @param instanceKey this instance's identity for keyed jitter
	 * @param observations opens each operation's and attempt's observation
	 * @param unmatchedHosts told of each host whose requests fall to {@code default}; must not block
	 */
	public RetryAfterOperations(RetryAfterProviders providers, String instanceKey,
			RetryAfterObservations observations, RequestPreparer.UnmatchedHostListener unmatchedHosts) {
		this(providers, instanceKey, observations, unmatchedHosts, ProviderOrigins.NONE);
	}

	/**
	 * Creates the factory, as {@link #RetryAfterOperations(RetryAfterProviders, String, RetryAfterObservations,
	 * RequestPreparer.UnmatchedHostListener)} does, routing a request that names no provider to the provider its
	 * origin is pinned to before its host is looked at.
	 * @param providers the configured providers
	 * @param instanceKey this instance's identity for keyed jitter
	 * @param observations opens each operation's and attempt's observation
	 * @param unmatchedHosts told of each host whose requests fall to {@code default}; must not block
	 * @param origins origins pinned to a provider; those pinned to a provider not configured are ignored
	 */
	public RetryAfterOperations(RetryAfterProviders providers, String instanceKey,
			RetryAfterObservations observations, RequestPreparer.UnmatchedHostListener unmatchedHosts,
			ProviderOrigins origins) {
		this.origins = origins.configuredIn(providers);
		this.providers = Objects.requireNonNull(providers, "providers");
		// a request prepared with no options and retries on is what the adapters run as it is
		this.preparer = new RequestPreparer<>(providers.routes(), instanceKey,
				(provider, spec, header) -> new Prepared(provider, spec, header, RequestOptions.NONE, false),
				unmatchedHosts);
		this.observations = Objects.requireNonNull(observations, "observations");
		this.instanceKey = instanceKey;
		this.unmatchedHosts = unmatchedHosts;
	}

	/**
	 * Returns the configured providers.
	 * @return the providers
	 */
	public RetryAfterProviders providers() {
		return this.providers;
	}

	/**
	 * Prepares the operation for one request.
	 * @param method the HTTP method
	 * @param uri the request URI
	 * @param header reads the first value of a request header, or {@code null}; asked with the name in lower case, as
	 * HTTP field names are case-insensitive (so Spring's {@code HttpHeaders} looks it up without lowering it again)
	 * @param attributes the request's attributes
	 * @param bodySize the size of the buffered body in bytes ({@code 0} for a request without a body),
	 * {@link #BODY_NOT_REPLAYABLE}, or {@link #BODY_RECORDED_WHEN_SENT}
	 * @return the prepared operation
	 * @throws IllegalArgumentException if an attribute is unusable, such as an idempotency key holding CR, LF or
	 * another control character ({@link RetryAfterAttributes#read}): nothing may be sent
	 */
	public Prepared prepare(String method, URI uri, Function<String, String> header, Map<String, Object> attributes,
			long bodySize) {
		Objects.requireNonNull(header, "header");
		return prepare(method, uri, header, Function::apply, attributes, bodySize);
	}

	/**
	 * Prepares the operation for one request, reading its header fields with {@code header}: the same as
	 * {@link #prepare(String, URI, Function, Map, long)}, for an adapter that passes its request's headers and a
	 * method reference that captures nothing ({@code HttpHeaders::getFirst}), so no reader is made per request.
	 * @param <H> the type of the request's header fields
	 * @param method the HTTP method
	 * @param uri the request URI
	 * @param headers the request's header fields
	 * @param header reads the first value of a header field from {@code headers}, or {@code null}; asked with the
	 * name in lower case
	 * @param attributes the request's attributes
	 * @param bodySize the size of the buffered body in bytes ({@code 0} for a request without a body),
	 * {@link #BODY_NOT_REPLAYABLE}, or {@link #BODY_RECORDED_WHEN_SENT}
	 * @return the prepared operation
	 * @throws IllegalArgumentException if an attribute is unusable ({@link RetryAfterAttributes#read}): nothing may
	 * be sent
	 */
	public <H> Prepared prepare(String method, URI uri, H headers, BiFunction<? super H, String, String> header,
			Map<String, Object> attributes, long bodySize) {
		RequestOptions options = pinned(RetryAfterAttributes.read(attributes), uri);
		Prepared prepared = this.preparer.prepare(method, uri, headers, header, options, bodySize);
		boolean disabled = options.disabled() || this.closed;
		if (!disabled && options == RequestOptions.NONE) {
			return prepared;
		}
		return new Prepared(prepared.provider(), prepared.spec(), prepared.headerToAdd(), options, disabled);
	}

	/** The options with the provider the request's origin is pinned to, when the request names none. */
	private RequestOptions pinned(RequestOptions options, URI uri) {
		if (this.origins.isEmpty() || options.provider().isPresent()) {
			return options;
		}
		return this.origins.provider(uri)
			.map((provider) -> new RequestOptions(Optional.of(provider), options.idempotencyKey(), options.deadline(),
					options.disabled(), options.outcomeListener()))
			.orElse(options);
	}

	/**
	 * Returns the origins pinned to a provider.
	 * @return the origins
	 */
	public ProviderOrigins origins() {
		return this.origins;
	}

	/**
	 * Returns what opens each operation's and attempt's observation, for an adapter that starts its operations
	 * itself (the OkHttp interceptor's observer).
	 * @return the observations
	 */
	public RetryAfterObservations observations() {
		return this.observations;
	}

	/**
	 * Returns this instance's identity for keyed jitter, for an adapter that prepares its requests itself.
	 * @return the instance key
	 */
	public String instanceKey() {
		return this.instanceKey;
	}

	/**
	 * Returns what is told of the hosts no provider names, for an adapter that prepares its requests itself.
	 * @return the listener
	 */
	public RequestPreparer.UnmatchedHostListener unmatchedHosts() {
		return this.unmatchedHosts;
	}

	/**
	 * Starts a prepared operation, and its observation nested in the registry's current observation. It is
	 * registered for {@link #close()} only when it first has to wait ({@link Started#beforeWait()}), so an operation
	 * that succeeds at once costs no registration.
	 * @param prepared the prepared operation
	 * @param uri the request's URI (only its host is observed)
	 * @return the running operation and its cancellation
	 */
	public Started start(Prepared prepared, URI uri) {
		return start(prepared, uri, null);
	}

	/**
	 * Starts a prepared operation, and its observation nested in {@code parent}.
	 * @param prepared the prepared operation
	 * @param uri the request's URI (only its host is observed)
	 * @param parent the observation to nest the operation's in; {@code null} for the registry's current one
	 * @return the running operation and its cancellation
	 */
	public Started start(Prepared prepared, URI uri, Observation parent) {
		// its cancellation is made when first asked for: when it first waits, or when the caller cancels
		RetryOperation operation = prepared.provider().engine().start(prepared.spec());
		OperationObservation observation = this.observations.start(prepared.provider().name(),
				prepared.spec().method(), uri.getHost(), parent);
		return new Started(this, prepared, operation, observation);
	}

	/** How many hosts' scopes are cached now; at most {@link #MAX_CACHED_HOSTS}. */
	int cachedHosts() {
		return this.preparer.cachedHosts();
	}

	/**
	 * Registers a waiting operation of an adapter that runs its operations itself (the OkHttp interceptor), so that
	 * shutdown cancels its wait; if shutdown has begun, it is cancelled at once.
	 * @param cancellation the operation's cancellation
	 */
	public void waiting(Cancellation cancellation) {
		this.pending.add(cancellation);
		if (this.closed) {
			cancellation.cancel();
		}
	}

	/**
	 * Deregisters an operation {@link #waiting(Cancellation) registered} once it has ended.
	 * @param cancellation the operation's cancellation
	 */
	public void ended(Cancellation cancellation) {
		this.pending.remove(cancellation);
	}

	/**
	 * Cancels every pending operation and stops retrying new ones: no retry leaves once shutdown began.
	 */
	public void close() {
		this.closed = true;
		for (Cancellation cancellation : this.pending) {
			cancellation.cancel();
		}
	}

	/**
	 * One request, ready to run.
	 *
	 * @param provider the provider picked
	 * @param spec the operation for the engine
	 * @param headerToAdd the idempotency-key header to add to the request, if the request lacks it
	 * @param options the per-request options
	 * @param disabled whether to send the request once, without retries
	 */
	public record Prepared(Provider provider, OperationSpec spec, Optional<Map.Entry<String, String>> headerToAdd,
			RequestOptions options, boolean disabled) {
	}

	/**
	 * A running operation: the engine's state machine, its cancellation, and its registration for shutdown. Used by
	 * one thread or one reactive subscriber at a time.
	 */
	public static final class Started {

		private final RetryAfterOperations owner;

		private final Prepared prepared;

		private final RetryOperation operation;

		private final OperationObservation observation;

		private volatile boolean tracked;

		Started(RetryAfterOperations owner, Prepared prepared, RetryOperation operation,
				OperationObservation observation) {
			this.owner = owner;
			this.prepared = prepared;
			this.operation = operation;
			this.observation = observation;
		}

		/**
		 * Returns the request as it was prepared: its provider, operation and options.
		 * @return the prepared request
		 */
		public Prepared prepared() {
			return this.prepared;
		}

		/**
		 * Returns the operation's observation: attempts are observed inside it, waits are events on it.
		 * @return the observation, a no-op when nothing observes
		 */
		public OperationObservation observation() {
			return this.observation;
		}

		/**
		 * Returns the engine's state machine.
		 * @return the operation
		 */
		public RetryOperation operation() {
			return this.operation;
		}

		/**
		 * Returns the operation's cancellation, fired by the caller or by shutdown; made on the first call.
		 * @return the cancellation
		 */
		public Cancellation cancellation() {
			return this.operation.cancellation();
		}

		/**
		 * Tells the request's outcome listener ({@link RetryAfterAttributes#onOutcome}), if it has one, and the
		 * operation's observation how the operation ended. Builds nothing when there is no listener.
		 * @param stop how it ended
		 */
		public void report(Decision.Stop stop) {
			this.observation.ended(stop.outcome(), this.operation.attempts());
			Consumer<RetryOutcome> listener = this.prepared.options().outcomeListener().orElse(null);
			if (listener != null) {
				listener.accept(RetryOutcome.of(this.operation, stop.outcome(), stop.reason()));
			}
		}

		/**
		 * Tells the operation's observation that it waits for the retry the engine scheduled.
		 * @param retry the engine's decision
		 */
		public void retryScheduled(Decision.Retry retry) {
			this.observation.waiting(retry.delay(), retry.source().name());
		}

		/**
		 * Tells the operation's observation that its provider's gate holds it until {@code wait} ends.
		 * @param wait the gate's hold
		 * @param nowNanos the reading of the ticker the hold is on, now
		 */
		public void held(Permit.Wait wait, long nowNanos) {
			this.observation.waiting(Duration.ofNanos(wait.notBeforeNanos() - nowNanos), "GATE");
		}

		/**
		 * Returns the exception that tells the caller how the operation ended, to throw when there is no response
		 * to return, or to attach to the last attempt's own exception.
		 * @param stop how it ended
		 * @return the exception
		 */
		public RetryAfterOutcomeException outcomeException(Decision.Stop stop) {
			return new RetryAfterOutcomeException(RetryOutcome.of(this.operation, stop.outcome(), stop.reason()));
		}

		/**
		 * Returns the exception to attach to the client's own exception for the failed response the operation ended
		 * on: only when retry-after has more to say than the response itself (it retried, it stopped for a reason of
		 * its own, or the provider named an instant), so a plain {@code 404} costs nothing.
		 * @param stop how it ended
		 * @return the exception, empty after a success or a first response that was simply not retryable
		 */
		public Optional<RetryAfterOutcomeException> endedOn(Decision.Stop stop) {
			return Ending.saysMore(this.operation, stop) ? Optional.of(outcomeException(stop)) : Optional.empty();
		}

		/**
		 * Returns what the caller is told when the operation ends without a response: the last attempt's own
		 * exception with {@link #outcomeException the outcome's} attached, or the outcome's alone when no attempt
		 * threw.
		 * @param stop how it ended
		 * @param failure what the last attempt threw, or {@code null}
		 * @return the exception to throw or signal
		 */
		public Throwable endedWithout(Decision.Stop stop, Throwable failure) {
			return Ending.attach(failure, outcomeException(stop));
		}

		/**
		 * Registers the operation so that shutdown cancels its wait; call before every wait. If shutdown has
		 * already begun, the cancellation fires at once and the next {@code beforeAttempt()} refuses.
		 */
		public void beforeWait() {
			if (!this.tracked) {
				this.tracked = true;
				this.owner.pending.add(cancellation());
				if (this.owner.closed) {
					cancellation().cancel();
				}
			}
		}

		/**
		 * Deregisters the operation once it has ended, and stops its observation. Later calls do nothing more.
		 */
		public void end() {
			if (this.tracked) {
				this.owner.pending.remove(cancellation());
			}
			this.observation.stop();
		}

	}

}
