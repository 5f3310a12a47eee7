package io.github.retryafter.request;

import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

import io.github.retryafter.JitterMode;
import io.github.retryafter.Scope;
import io.github.retryafter.engine.OperationSpec;

/**
 * The front half of every transport adapter: turns an outgoing request into the operation its provider's engine
 * starts. It picks the route ({@link ProviderRoutes}), settles the idempotency key (the request's own header, else the
 * key it gives, else a fresh one for a POST or PATCH where the route adds keys), builds the keyed-jitter identity, and
 * says whether the body can be replayed. Plain requests to an origin seen before share what was prepared for the last
 * one. An {@link UnmatchedHostListener}, if given, hears of the hosts no named route covers. Thread-safe.
 *
 * @param <P> the type of the routes
 * @param <R> what a prepared request is made into, by the adapter's {@link Shape}
 */
public final class RequestPreparer<P extends ProviderRoute, R> {

	/** The {@code bodySize} of a request whose body cannot be replayed (a stream nobody buffers): it is sent once. */
	public static final long BODY_NOT_REPLAYABLE = -1;

	/**
	 * The {@code bodySize} of a request whose body the adapter records as its first attempt writes it, and replays
	 * from that recording. Its size is not known before it is sent, so the operation counts as replayable and the
	 * adapter tells its operation otherwise once the recording turns out too large or incomplete.
	 */
	public static final long BODY_RECORDED_WHEN_SENT = -2;

	/** How many hosts' routes are kept at most. */
	public static final int MAX_CACHED_HOSTS = 1024;

	private static final Set<String> KEYED_METHODS = Set.of("POST", "PATCH");

	private final ProviderRoutes<P> routes;

	private final String instanceKey;

	private final Shape<P, R> shape;

	private final UnmatchedHostListener unmatched;

	private final AtomicLong sequence = new AtomicLong();

	// per request host, as URIs spell it: its route, its scope and the plain request last prepared for it, so a
	// request to a host seen before resolves and builds none of them; at most MAX_CACHED_HOSTS entries, then emptied
	// and filled afresh (a cache: a miss only costs a build)
	private final ConcurrentHashMap<String, HostRoute<P, R>> hosts = new ConcurrentHashMap<>();

	/**
	 * Creates the preparer.
	 * @param routes the routes requests are sent along
	 * @param instanceKey this instance's identity for keyed jitter
	 * @param shape makes a prepared request into what the adapter runs
	 */
	public RequestPreparer(ProviderRoutes<P> routes, String instanceKey, Shape<P, R> shape) {
		this(routes, instanceKey, shape, UnmatchedHostListener.NONE);
	}

	/**
	 * Creates the preparer, telling {@code unmatched} of the hosts whose requests fall to the {@code default} route
	 * because no named route lists them.
	 * @param routes the routes requests are sent along
	 * @param instanceKey this instance's identity for keyed jitter
	 * @param shape makes a prepared request into what the adapter runs
	 * @param unmatched told of each such host when its route is looked up, not on every request
	 */
	public RequestPreparer(ProviderRoutes<P> routes, String instanceKey, Shape<P, R> shape,
			UnmatchedHostListener unmatched) {
		this.routes = Objects.requireNonNull(routes, "routes");
		this.instanceKey = Objects.requireNonNull(instanceKey, "instanceKey");
		this.shape = Objects.requireNonNull(shape, "shape");
		this.unmatched = Objects.requireNonNull(unmatched, "unmatched");
	}

	/**
	 * Returns a preparer whose prepared requests are {@link PreparedRequest}s.
	 * @param <P> the type of the routes
	 * @param routes the routes requests are sent along
	 * @param instanceKey this instance's identity for keyed jitter
	 * @return the preparer
	 */
	public static <P extends ProviderRoute> RequestPreparer<P, PreparedRequest<P>> of(ProviderRoutes<P> routes,
			String instanceKey) {
		return new RequestPreparer<>(routes, instanceKey, PreparedRequest::new);
	}

	/**
	 * Returns the routes requests are sent along.
	 * @return the routes
	 */
	public ProviderRoutes<P> routes() {
		return this.routes;
	}

	/**
	 * Prepares the operation of one request, reading its header fields with {@code header}: a method reference that
	 * captures nothing ({@code HttpHeaders::getFirst}), so no reader is made per request.
	 * @param <H> the type of the request's header fields
	 * @param method the HTTP method
	 * @param uri the request URI
	 * @param headers the request's header fields
	 * @param header reads the first value of a header field from {@code headers}, or {@code null}; asked with the
	 * name in lower case, as HTTP field names are case-insensitive
	 * @param options what the request says of its operation
	 * @param bodySize the size of the buffered body in bytes ({@code 0} for a request without a body),
	 * {@link #BODY_NOT_REPLAYABLE}, or {@link #BODY_RECORDED_WHEN_SENT}
	 * @return the prepared request, the same one for plain requests to an origin seen before
	 * @throws IllegalArgumentException if {@code options} names no configured provider: nothing may be sent
	 */
	public <H> R prepare(String method, URI uri, H headers, BiFunction<? super H, String, String> header,
			OperationOptions options, long bodySize) {
		return prepared(method, origin(uri, options), headers, header, options, bodySize);
	}

	/**
	 * Prepares the operation of one request whose client holds its URL in parts (OkHttp's {@code HttpUrl}), so that
	 * no {@link URI} is built for it: otherwise as {@link #prepare(String, URI, Object, BiFunction, OperationOptions,
	 * long)}, with the same routes, scopes and cache (an origin is the same whichever way its requests name it).
	 * @param <H> the type of the request's header fields
	 * @param method the HTTP method
	 * @param scheme the URL's scheme, in any case
	 * @param host the URL's host, in any case; an IPv6 address with or without its brackets
	 * @param port the URL's port, the scheme's default made explicit
	 * @param headers the request's header fields
	 * @param header reads the first value of a header field from {@code headers}, or {@code null}; asked with the
	 * name in lower case, as HTTP field names are case-insensitive
	 * @param options what the request says of its operation
	 * @param bodySize the size of the buffered body in bytes ({@code 0} for a request without a body),
	 * {@link #BODY_NOT_REPLAYABLE}, or {@link #BODY_RECORDED_WHEN_SENT}
	 * @return the prepared request, the same one for plain requests to an origin seen before
	 * @throws IllegalArgumentException if {@code options} names no configured provider: nothing may be sent
	 */
	public <H> R prepare(String method, String scheme, String host, int port, H headers,
			BiFunction<? super H, String, String> header, OperationOptions options, long bodySize) {
		Objects.requireNonNull(host, "host");
		return prepared(method, origin(scheme, host, port, options), headers, header, options, bodySize);
	}

	/** The operation of one request to {@code origin}: its key, its replay safety, and what it shares with others. */
	private <H> R prepared(String method, HostRoute<P, R> origin, H headers,
			BiFunction<? super H, String, String> header, OperationOptions options, long bodySize) {
		P route = origin.route();
		String upperMethod = Origins.upperCase(method);
		String existing = header.apply(headers, origin.keyLookup());
		Optional<String> key = (existing != null) ? Optional.of(existing) : options.idempotencyKey();
		Optional<String> keyToAdd = Optional.empty();
		if (existing == null) {
			if (key.isEmpty() && route.idempotencyKeys() && KEYED_METHODS.contains(upperMethod)) {
				key = Optional.of(UUID.randomUUID().toString());
			}
			keyToAdd = key;
		}
		boolean replayable = (bodySize == BODY_RECORDED_WHEN_SENT)
				|| (bodySize >= 0 && bodySize <= route.maxReplayBodyBytes());
		Optional<String> jitterKey = jitterKey(route, key);
		// a plain request (no key, no deadline of its own, no keyed jitter, a replayable body) to a known origin
		// shares what was prepared for the last one like it
		boolean plain = origin.host().isPresent() && key.isEmpty() && options.deadline().isEmpty()
				&& jitterKey.isEmpty() && replayable;
		if (plain) {
			if (origin.plain() != null && origin.plain().method().equals(upperMethod)) {
				return origin.prepared();
			}
			HostRoute<P, R> remembered = origin.withPlain(new OperationSpec(origin.scope(), upperMethod, key,
					options.deadline(), jitterKey, true, origin.host()), this.shape);
			remember(remembered);
			return remembered.prepared();
		}
		OperationSpec spec = new OperationSpec(origin.scope(), upperMethod, key, options.deadline(), jitterKey,
				replayable, origin.host());
		Optional<Map.Entry<String, String>> headerToAdd = keyToAdd.isPresent()
				? Optional.of(Map.entry(route.policy().idempotencyKeyHeader(), keyToAdd.get()))
				: Optional.empty();
		return this.shape.shape(route, spec, headerToAdd);
	}

	/**
	 * Returns how many hosts' routes are cached now; at most {@link #MAX_CACHED_HOSTS}.
	 * @return the count
	 */
	public int cachedHosts() {
		return this.hosts.size();
	}

	/**
	 * Returns what requests to the request's origin share: its route, scope and last plain request. Looked up by the
	 * host as the URI spells it, so a request to an origin seen before, without a provider of its own, reads neither
	 * the host's lower case nor the routes' host lists; built, and remembered, otherwise.
	 */
	private HostRoute<P, R> origin(URI uri, OperationOptions options) {
		String spelled = uri.getHost();
		HostRoute<P, R> known = (spelled != null) ? this.hosts.get(spelled) : null;
		String scheme = Origins.scheme(uri);
		int port = Origins.port(uri, scheme);
		if (known != null && known.byHost() && options.provider().isEmpty() && known.isFor(scheme, port)) {
			return known;
		}
		return resolved(spelled, known, Origins.host(uri), scheme, port, options);
	}

	/** The same for a URL given in parts: looked up by the host as the client spells it, read in full on a miss. */
	private HostRoute<P, R> origin(String scheme, String spelled, int port, OperationOptions options) {
		HostRoute<P, R> known = this.hosts.get(spelled);
		String lowerScheme = Origins.lowerCase(scheme);
		if (known != null && known.byHost() && options.provider().isEmpty() && known.isFor(lowerScheme, port)) {
			return known;
		}
		return resolved(spelled, known, Origins.bracketed(Origins.lowerCase(spelled)), lowerScheme, port, options);
	}

	/**
	 * Resolves the route of an origin the cache did not answer for, and remembers it.
	 * @param spelled the host as the request spells it, or {@code null}
	 * @param known what the cache holds for {@code spelled}, or {@code null}
	 * @param host the host in lower case (an IPv6 address in brackets), or {@code null}
	 */
	private HostRoute<P, R> resolved(String spelled, HostRoute<P, R> known, String host, String scheme, int port,
			OperationOptions options) {
		boolean byHost = options.provider().isEmpty();
		P route = byHost ? this.routes.resolveHost(host) : this.routes.named(options.provider().get());
		if (host == null) {
			return new HostRoute<>(null, route, byHost, scheme, port, ProviderRoutes.scope(route, scheme, null, port),
					Optional.empty(), keyLookup(route), null, null);
		}
		String cacheKey = (spelled != null) ? spelled : host;
		HostRoute<P, R> cached = (spelled != null) ? known : this.hosts.get(cacheKey);
		if (cached != null && cached.route() == route && cached.isFor(scheme, port)) {
			return cached;
		}
		HostRoute<P, R> built = new HostRoute<>(cacheKey, route, byHost, scheme, port,
				ProviderRoutes.scope(route, scheme, host, port), Optional.of(host), keyLookup(route), null, null);
		remember(built);
		if (byHost && route == this.routes.defaultRoute()) {
			// only when the host's route is looked up: once per host while it stays cached
			this.unmatched.unmatched(host);
		}
		return built;
	}

	/** The idempotency-key header's name in lower case, as the request's header fields are asked for it. */
	private static String keyLookup(ProviderRoute route) {
		return Origins.lowerCase(route.policy().idempotencyKeyHeader());
	}

	private void remember(HostRoute<P, R> route) {
		if (this.hosts.size() >= MAX_CACHED_HOSTS && !this.hosts.containsKey(route.key())) {
			this.hosts.clear();
		}
		this.hosts.put(route.key(), route);
	}

	/**
	 * Returns the key keyed jitter derives a position from: this instance's identity and the operation's (its
	 * idempotency key, else a sequence number), so the operations of one instance do not share a slot. Built only
	 * for routes whose jitter is keyed.
	 */
	private Optional<String> jitterKey(ProviderRoute route, Optional<String> idempotencyKey) {
		if (route.policy().planner().jitter() != JitterMode.KEYED) {
			return Optional.empty();
		}
		String operation = idempotencyKey.orElseGet(() -> Long.toString(this.sequence.incrementAndGet()));
		return Optional.of(this.instanceKey + "/" + operation);
	}

	/**
	 * Makes a prepared request into what an adapter runs.
	 * @param <P> the type of the routes
	 * @param <R> what the adapter runs
	 */
	@FunctionalInterface
	public interface Shape<P, R> {

		/**
		 * Makes the prepared request.
		 * @param route the route picked
		 * @param spec the operation for the route's engine
		 * @param headerToAdd the idempotency-key header to add to the request, when the request lacks it
		 * @return what the adapter runs
		 */
		R shape(P route, OperationSpec spec, Optional<Map.Entry<String, String>> headerToAdd);

	}

	/**
	 * Told of the hosts whose requests go to the {@code default} route because no named route lists them (a request
	 * that names its provider is not an unmatched one). Told when such a host's route is looked up: on its first
	 * request, and again only after the preparer forgot it (its cache of {@value #MAX_CACHED_HOSTS} hosts was
	 * emptied, or the host was called with another scheme or port), so an implementation that must hear of a host
	 * once remembers it. Called on the request's thread, which may be an event loop: it must not block, and must not
	 * throw.
	 */
	@FunctionalInterface
	public interface UnmatchedHostListener {

		/** A listener that does nothing. */
		UnmatchedHostListener NONE = (host) -> {
		};

		/**
		 * Hears of a host no named route lists.
		 * @param host the host in lower case
		 */
		void unmatched(String host);

	}

	/**
	 * What one host's requests share: the scope of its origin and the last plain request sent to it.
	 *
	 * @param key the host as the requests' URIs spell it, which keys it in the cache; {@code null} when not cached
	 * @param route the route the scope is of
	 * @param byHost whether the route is the one the host's name picks, not one a request named
	 * @param scheme the origin's scheme
	 * @param port the origin's port
	 * @param scope the scope
	 * @param host the host in lower case, as operations carry it; empty for a URI without one
	 * @param keyLookup the route's idempotency-key header name in lower case
	 * @param plain the last operation without key, own deadline or keyed jitter, and replayable; {@code null} if none
	 * @param prepared that operation prepared, with no header to add; {@code null} if none
	 */
	private record HostRoute<P, R>(String key, P route, boolean byHost, String scheme, int port, Scope scope,
			Optional<String> host, String keyLookup, OperationSpec plain, R prepared) {

		boolean isFor(String scheme, int port) {
			return this.port == port && this.scheme.equals(scheme);
		}

		HostRoute<P, R> withPlain(OperationSpec plain, Shape<P, R> shape) {
			return new HostRoute<>(this.key, this.route, this.byHost, this.scheme, this.port, this.scope, this.host,
					this.keyLookup, plain, shape.shape(this.route, plain, Optional.empty()));
		}

	}

}
