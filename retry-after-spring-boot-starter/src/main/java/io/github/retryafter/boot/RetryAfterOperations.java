package io.github.retryafter.boot;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import io.micrometer.observation.Observation;

import io.github.retryafter.Cancellation;
import io.github.retryafter.JitterMode;
import io.github.retryafter.Scope;
import io.github.retryafter.boot.RetryAfterAttributes.RequestOptions;
import io.github.retryafter.boot.RetryAfterProviders.Provider;
import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryOperation;

/**
 * Turns an outgoing HTTP request into a logical operation for its provider's engine: picks the provider, settles the
 * idempotency key, builds the keyed-jitter identity, and tracks pending operations so that closing the application
 * context cancels their waits. Shared by the WebClient filter and the RestClient interceptor. Thread-safe.
 */
public final class RetryAfterOperations {

	/**
	 * The {@code bodySize} of a request whose body cannot be replayed (a stream the adapter does not buffer): it is
	 * sent once.
	 */
	public static final long BODY_NOT_REPLAYABLE = -1;

	/**
	 * The {@code bodySize} of a request whose body the adapter records as its first attempt writes it, and replays
	 * from that recording (the WebClient filter). Its size is not known before it is sent, so the operation counts as
	 * replayable and the adapter itself ends it {@code NOT_RETRYABLE} when the recording exceeds
	 * {@link ProviderSettings#maxReplayBodyBytes()} or is otherwise incomplete.
	 */
	public static final long BODY_RECORDED_WHEN_SENT = -2;

	private static final Set<String> KEYED_METHODS = Set.of("POST", "PATCH");

	/** How many hosts' scopes are kept at most. */
	static final int MAX_CACHED_HOSTS = 1024;

	private final RetryAfterProviders providers;

	private final String instanceKey;

	private final RetryAfterObservations observations;

	private final AtomicLong sequence = new AtomicLong();

	private final Set<Cancellation> pending = ConcurrentHashMap.newKeySet();

	// per request host (lower case): its scope, and the plain operation last built for it, so a request to a host seen
	// before builds neither; at most MAX_CACHED_HOSTS, then emptied and filled afresh (a cache: a miss only costs a build)
	private final ConcurrentHashMap<String, HostScope> hosts = new ConcurrentHashMap<>();

	// per configured idempotency-key header name (one per provider at most): the name in lower case
	private final ConcurrentHashMap<String, String> lowerCase = new ConcurrentHashMap<>();

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
		this.providers = Objects.requireNonNull(providers, "providers");
		this.instanceKey = Objects.requireNonNull(instanceKey, "instanceKey");
		this.observations = Objects.requireNonNull(observations, "observations");
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
		RequestOptions options = RetryAfterAttributes.read(attributes);
		// the host is read once: it picks the provider, keys a per-origin scope and names the request in logs
		String host = RetryAfterProviders.host(uri);
		Provider provider = options.provider().isPresent() ? this.providers.resolve(uri, options.provider())
				: this.providers.resolveHost(host);
		ProviderSettings settings = provider.settings();
		String upperMethod = RetryAfterProviders.upperCase(method);
		String headerName = settings.policy().idempotencyKeyHeader();
		String lookup = this.lowerCase.computeIfAbsent(headerName, RetryAfterOperations::lowerCase);
		String existing = header.apply(headers, lookup);
		Optional<String> key = (existing != null) ? Optional.of(existing) : options.idempotencyKey();
		Optional<String> keyToAdd = Optional.empty();
		if (existing == null) {
			if (key.isEmpty() && settings.idempotencyKeyEnabled() && KEYED_METHODS.contains(upperMethod)) {
				key = Optional.of(UUID.randomUUID().toString());
			}
			keyToAdd = key;
		}
		boolean replayable = (bodySize == BODY_RECORDED_WHEN_SENT)
				|| (bodySize >= 0 && bodySize <= settings.maxReplayBodyBytes());
		boolean disabled = options.disabled() || this.closed;
		Optional<String> jitterKey = jitterKey(settings, key);
		Prepared plain = plainPrepared(provider, uri, host, upperMethod, key, options, jitterKey, replayable, disabled);
		if (plain != null) {
			return plain;
		}
		OperationSpec spec = spec(provider, uri, host, upperMethod, key, options, jitterKey, replayable);
		Optional<Map.Entry<String, String>> headerToAdd = keyToAdd.isPresent()
				? Optional.of(Map.entry(headerName, keyToAdd.get())) : Optional.empty();
		return new Prepared(provider, spec, headerToAdd, options, disabled);
	}

	/**
	 * Returns the request prepared for the last plain request of the same method to the same origin, when this is
	 * one too and carries none of this class's attributes and retries are on: such requests prepare alike, and a
	 * {@link Prepared} is immutable, so they share one. {@code null} otherwise.
	 */
	private Prepared plainPrepared(Provider provider, URI uri, String host, String method, Optional<String> key,
			RequestOptions options, Optional<String> jitterKey, boolean replayable, boolean disabled) {
		if (host == null || disabled || options != RequestOptions.NONE || !plain(key, options, jitterKey, replayable)) {
			return null;
		}
		HostScope cached = this.hosts.get(host);
		if (cached == null || cached.plain() == null || !cached.plain().method().equals(method)) {
			return null;
		}
		String scheme = RetryAfterProviders.scheme(uri);
		return cached.isFor(provider, scheme, RetryAfterProviders.port(uri, scheme)) ? cached.prepared() : null;
	}

	/** Whether a request's operation is plain: no key, no deadline of its own, no keyed jitter, a replayable body. */
	private static boolean plain(Optional<String> key, RequestOptions options, Optional<String> jitterKey,
			boolean replayable) {
		return key.isEmpty() && options.deadline().isEmpty() && jitterKey.isEmpty() && replayable;
	}

	/**
	 * Returns the request's operation: the one built for the last plain request (no key, no deadline of its own, no
	 * keyed jitter, a body that can be replayed) of the same method to the same origin when this is one, else a new one.
	 */
	private OperationSpec spec(Provider provider, URI uri, String host, String method, Optional<String> key,
			RequestOptions options, Optional<String> jitterKey, boolean replayable) {
		boolean plain = plain(key, options, jitterKey, replayable);
		if (host == null) {
			return new OperationSpec(provider.scope(uri, null), method, key, options.deadline(), jitterKey, replayable,
					Optional.empty());
		}
		String scheme = RetryAfterProviders.scheme(uri);
		int port = RetryAfterProviders.port(uri, scheme);
		HostScope cached = this.hosts.get(host);
		if (cached == null || !cached.isFor(provider, scheme, port)) {
			cached = new HostScope(provider, scheme, port, provider.scope(scheme, host, port), Optional.of(host), null,
					null);
			remember(host, cached);
		}
		if (plain && cached.plain() != null && cached.plain().method().equals(method)) {
			return cached.plain();
		}
		OperationSpec spec = new OperationSpec(cached.scope(), method, key, options.deadline(), jitterKey, replayable,
				cached.host());
		if (plain) {
			remember(host, cached.withPlain(spec));
		}
		return spec;
	}

	private static String lowerCase(String name) {
		return name.toLowerCase(Locale.ROOT);
	}

	private void remember(String host, HostScope scope) {
		if (this.hosts.size() >= MAX_CACHED_HOSTS && !this.hosts.containsKey(host)) {
			this.hosts.clear();
		}
		this.hosts.put(host, scope);
	}

	/**
	 * Returns the key keyed jitter derives a position from: this instance's identity and the operation's (its
	 * idempotency key, else a sequence number), so the operations of one instance do not share a slot. Built only
	 * for providers whose jitter is keyed.
	 */
	private Optional<String> jitterKey(ProviderSettings settings, Optional<String> idempotencyKey) {
		if (settings.policy().planner().jitter() != JitterMode.KEYED) {
			return Optional.empty();
		}
		String operation = idempotencyKey.orElseGet(() -> Long.toString(this.sequence.incrementAndGet()));
		return Optional.of(this.instanceKey + "/" + operation);
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
	 * What one host's requests share: the scope of its origin and the last plain operation sent to it.
	 *
	 * @param provider the provider the scope is of
	 * @param scheme the origin's scheme
	 * @param port the origin's port
	 * @param scope the scope
	 * @param host the host, as operations carry it
	 * @param plain the last operation without key, own deadline or keyed jitter, and replayable; {@code null} if none
	 * @param prepared that operation prepared, with no header to add, no options and retries on; {@code null} if none
	 */
	private record HostScope(Provider provider, String scheme, int port, Scope scope, Optional<String> host,
			OperationSpec plain, Prepared prepared) {

		boolean isFor(Provider provider, String scheme, int port) {
			return this.provider == provider && this.port == port && this.scheme.equals(scheme);
		}

		HostScope withPlain(OperationSpec plain) {
			return new HostScope(this.provider, this.scheme, this.port, this.scope, this.host, plain,
					new Prepared(this.provider, plain, Optional.empty(), RequestOptions.NONE, false));
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
		 * Returns the exception that tells the caller how the operation ended, to throw when there is no response
		 * to return, or to attach to the last attempt's own exception.
		 * @param stop how it ended
		 * @return the exception
		 */
		public RetryAfterOutcomeException outcomeException(Decision.Stop stop) {
			return new RetryAfterOutcomeException(RetryOutcome.of(this.operation, stop.outcome(), stop.reason()));
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
