package io.github.retryafter.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.hint.ResponseHints;
import io.github.retryafter.request.OperationOptions;
import io.github.retryafter.request.PreparedRequest;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;
import io.github.retryafter.request.RequestPreparer;

/**
 * An OkHttp application interceptor that retries a call as its provider's {@link RetryEngine} decides, through the
 * core's one blocking {@link RetryLoop}: {@code Retry-After} (both forms, the date against the response's own
 * {@code Date}), the deadline, the budget and the provider's gate, as the Spring Boot starter's adapters. It retries by
 * calling {@code chain.proceed} again, which an application interceptor may do once the previous response is closed.
 * It sends and reports the first attempt itself, so a call the engine stops on at once (a success) makes no loop;
 * the loop takes over ({@link RetryLoop#resume}) when that attempt is retried, fails, or is held by the gate.
 * Add it with {@link OkHttpClient.Builder#addInterceptor}, not as a network interceptor.
 * <p>
 * Each attempt has OkHttp's connect, read and write timeouts lowered to the engine's attempt timeout (each bounds one
 * connect, write or read, not the attempt's total, so a streamed body is never cut as a whole); an engine that keeps
 * the client's own timeouts ({@link RetryEngine#clientTimeouts()}, for model calls) leaves a first attempt's as the
 * client has them and lowers a retry's only to what is left of the deadline. OkHttp's call timeout is the client's
 * own and bounds the whole call, retries and waits included. A failed response the engine retries has at most
 * {@link Builder#maxDrain maxDrain} bytes of its body read, for at most 500 ms and never past the instant its retry is
 * due, and is closed before the wait; a longer or trickling body has its connection dropped. When the engine stops on
 * a response, the caller gets that response (when retry-after has more to say than the response, its request
 * carries a {@link RetryOutcomeException} as a tag: {@link RetryOutcomeException#of(Response)}); when it stops after
 * a wait, the caller gets the last failed response's status and header fields with an empty body; when it stops on an I/O failure, the caller gets that
 * {@link IOException}, with a {@link RetryOutcomeException} attached as suppressed (thrown alone when nothing was
 * sent). A {@link Call#cancel() cancelled} call sends no further request: cancellation is checked after every
 * failure and every wait, and a wait looks every 100 ms.
 * <p>
 * A body OkHttp may write once only ({@link RequestBody#isOneShot()}), one of unknown length, and one larger than
 * {@link Builder#maxReplayBody maxReplayBody} is never sent twice. OkHttp's own {@code retryOnConnectionFailure}
 * stays as the client has it: it repeats a request that failed to connect or met a stale pooled connection, never
 * after a response (OkHttp's own repeat of a {@code 503} with {@code Retry-After: 0} or of a {@code 408} is inside one
 * attempt too). A request may carry {@link OperationOptions} as its tag ({@code Request.Builder.tag(
 * OperationOptions.class, ...)}) to name its provider, give its idempotency key or a deadline of its own. When the
 * provider's {@link io.github.retryafter.engine.ProviderConventions#attemptHeader() attempt header} is set, each
 * attempt carries the number of retries before it there ({@code 0} on the first).
 * <p>
 * Immutable and thread-safe: one interceptor serves every call of a client.
 */
public final class RetryAfterInterceptor implements Interceptor {

	/** The default {@link Builder#maxReplayBody maxReplayBody}: 1 MiB, as {@code retry.after.max-replay-body}. */
	public static final long DEFAULT_MAX_REPLAY_BODY = 1024 * 1024;

	/** The default {@link Builder#maxDrain maxDrain}: 64 KiB, as {@code retry.after.max-drain}. */
	public static final long DEFAULT_MAX_DRAIN = 64 * 1024;

	/** How often a wait looks whether its call was cancelled: OkHttp tells no one, so it is asked. */
	static final Duration CANCEL_CHECK = Duration.ofMillis(100);

	private final RequestPreparer<?, ? extends PreparedRequest<?>> preparer;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final long maxReplayBody;

	private final long maxDrain;

	private final CallObserver observer;

	private final WaitTracker waits;

	private RetryAfterInterceptor(Builder builder, ProviderRoutes<?> routes) {
		this.preparer = preparer(routes, builder.instanceKey, builder.unmatchedHosts);
		this.ticker = routes.defaultRoute().engine().ticker();
		this.sleeper = builder.sleeper;
		this.maxReplayBody = builder.maxReplayBody;
		this.maxDrain = builder.maxDrain;
		this.observer = builder.observer;
		this.waits = builder.waits;
	}

	/**
	 * Returns an interceptor that sends every request to {@code engine}, gives none an idempotency key, and really
	 * sleeps between attempts: {@code new OkHttpClient.Builder().addInterceptor(RetryAfterInterceptor.of(engine))}.
	 * @param engine decides what follows each attempt
	 * @return a new interceptor
	 */
	public static RetryAfterInterceptor of(RetryEngine engine) {
		return builder().engine(engine).build();
	}

	private static <P extends ProviderRoute> RequestPreparer<P, PreparedRequest<P>> preparer(ProviderRoutes<P> routes,
			String instanceKey, RequestPreparer.UnmatchedHostListener unmatchedHosts) {
		return new RequestPreparer<>(routes, instanceKey, PreparedRequest::new, unmatchedHosts);
	}

	/**
	 * Returns a builder: give it an {@link Builder#engine engine} or {@link Builder#routes routes}.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Sends the call's request until its provider's engine stops.
	 * @param chain the application chain
	 * @return the final response
	 * @throws IOException the last attempt's failure, or a {@link RetryOutcomeException} when nothing was sent
	 * @throws IllegalStateException when added as a network interceptor, which may call {@code proceed} only once
	 */
	@Override
	public Response intercept(Chain chain) throws IOException {
		if (chain.connection() != null) {
			throw new IllegalStateException("RetryAfterInterceptor retries by calling proceed() again, which only an"
					+ " application interceptor may: add it with OkHttpClient.Builder.addInterceptor(...), not"
					+ " addNetworkInterceptor(...)");
		}
		Request request = chain.request();
		HttpUrl url = request.url();
		OperationOptions options = request.tag(OperationOptions.class);
		// the route from the URL's parts, which HttpUrl holds: HttpUrl.uri() re-encodes and parses the whole URL
		PreparedRequest<?> prepared = this.preparer.prepare(request.method(), url.scheme(), url.host(), url.port(),
				request, Request::header, (options != null) ? options : OperationOptions.NONE,
				bodySize(request.body()));
		if (prepared.headerToAdd().isPresent()) {
			Map.Entry<String, String> header = prepared.headerToAdd().get();
			request = request.newBuilder().header(header.getKey(), header.getValue()).build();
		}
		// its cancellation is made when first asked for: by a cancelled call, a wait or a failure
		RetryOperation operation = prepared.route().engine().start(prepared.spec());
		if (chain.call().isCanceled()) {
			operation.cancellation().cancel();
		}
		CallObserver.Operation observed = this.observer.start(prepared.route().name(), request);
		if (observed == CallObserver.Operation.NONE) {
			return send(chain, request, prepared.route(), operation, observed);
		}
		try {
			return send(chain, request, prepared.route(), operation, observed);
		}
		finally {
			if (operation.outcome().isPresent()) {
				observed.ended(operation.outcome().get(), operation.attempts());
			}
			observed.stop();
		}
	}

	/** Sends the first attempt when its permit allows, else hands the loop the permit. */
	private Response send(Chain chain, Request request, ProviderRoute route, RetryOperation operation,
			CallObserver.Operation observed) throws IOException {
		Permit permit = operation.beforeAttempt();
		if (permit instanceof Permit.Proceed proceed) {
			return first(chain, request, route, operation, proceed, observed);
		}
		CallExchange exchange = exchange(chain, request, route, operation, observed);
		try {
			return loop(chain.call()).resume(operation, exchange, permit);
		}
		finally {
			exchange.untrack();
		}
	}

	/**
	 * Sends and reports the first attempt: a response the engine stops on (a success, most often) goes to the caller
	 * as it is, and only a retry or a failure makes the call's exchange and loop.
	 */
	private Response first(Chain chain, Request request, ProviderRoute route, RetryOperation operation,
			Permit.Proceed proceed, CallObserver.Operation observed) throws IOException {
		long sentAt = this.ticker.read();
		Response response;
		try {
			response = CallExchange.proceed(chain, request, proceed, observed);
		}
		catch (IOException | RuntimeException ex) {
			CallExchange exchange = exchange(chain, request, route, operation, observed);
			Decision decision = operation.afterFailure(ex, exchange.classify(ex), sentAt, this.ticker.read());
			try {
				return loop(chain.call()).resume(operation, exchange, decision, null, ex);
			}
			finally {
				exchange.untrack();
			}
		}
		Decision decision;
		try {
			decision = operation.afterAttempt(new AttemptOutcome.Response(response.code(),
					ResponseHints.of(CallExchange.headerSource(response), CallExchange.bodySource(response, route)),
					sentAt, this.ticker.read()));
		}
		catch (RuntimeException | Error ex) {
			// the engine or a listener threw: the response is nobody's, so it is closed, as the loop does
			FailedBodies.discard(response, Duration.ZERO, 0);
			throw ex;
		}
		if (decision instanceof Decision.Stop stop) {
			return CallExchange.endedOn(stop, response, route.name(), operation);
		}
		CallExchange exchange = exchange(chain, request, route, operation, observed);
		try {
			return loop(chain.call()).resume(operation, exchange, decision, response, null);
		}
		finally {
			exchange.untrack();
		}
	}

	private CallExchange exchange(Chain chain, Request request, ProviderRoute route, RetryOperation operation,
			CallObserver.Operation observed) {
		return new CallExchange(chain, request, operation, route, this.maxReplayBody, this.maxDrain, observed,
				this.ticker, this.waits);
	}

	/** The body's size as the preparer takes it: unknown lengths and one-shot bodies are never replayed. */
	private long bodySize(RequestBody body) throws IOException {
		if (body == null) {
			return 0;
		}
		long length = body.contentLength();
		if (body.isOneShot() || length < 0 || length > this.maxReplayBody) {
			return RequestPreparer.BODY_NOT_REPLAYABLE;
		}
		return length;
	}

	/** The loop of one call that goes past its first attempt: it waits on a sleeper that watches the call. */
	private RetryLoop loop(Call call) {
		return RetryLoop.of(this.ticker, watching(call));
	}

	/** The sleeper of one call: it wakes every {@link #CANCEL_CHECK} to carry the call's cancellation over. */
	private Sleeper watching(Call call) {
		Sleeper sleeper = this.sleeper;
		return (duration, cancellation) -> {
			if (!call.isCanceled()) {
				sleeper.sleep((duration.compareTo(CANCEL_CHECK) > 0) ? CANCEL_CHECK : duration, cancellation);
			}
			if (call.isCanceled()) {
				cancellation.cancel();
			}
		};
	}

	/**
	 * Builds a {@link RetryAfterInterceptor}. Each setter checks its argument at once. Not thread-safe.
	 */
	public static final class Builder {

		private RetryEngine engine;

		private ProviderRoutes<?> routes;

		private Sleeper sleeper = Sleeper.system();

		private long maxReplayBody = DEFAULT_MAX_REPLAY_BODY;

		private long maxDrain = DEFAULT_MAX_DRAIN;

		private CallObserver observer = CallObserver.NONE;

		private String instanceKey = UUID.randomUUID().toString();

		private RequestPreparer.UnmatchedHostListener unmatchedHosts = RequestPreparer.UnmatchedHostListener.NONE;

		private WaitTracker waits = WaitTracker.NONE;

		private Builder() {
		}

		/**
		 * Sends every request to one engine, as provider {@code default}, and gives none an idempotency key.
		 * @param engine decides what follows each attempt
		 * @return this builder
		 */
		public Builder engine(RetryEngine engine) {
			this.engine = Objects.requireNonNull(engine, "engine");
			this.routes = null;
			return this;
		}

		/**
		 * Sends each request to the provider its host routes it to (or its {@link OperationOptions} tag names). The
		 * engines share one ticker: the {@code default} route's.
		 * @param routes the providers and their engines
		 * @return this builder
		 */
		public Builder routes(ProviderRoutes<?> routes) {
			this.routes = Objects.requireNonNull(routes, "routes");
			this.engine = null;
			return this;
		}

		/**
		 * Sets how to block between attempts: a fake clock in tests. By default it really sleeps.
		 * @param sleeper the sleeper
		 * @return this builder
		 */
		public Builder sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
			return this;
		}

		/**
		 * Sets the largest request body that is sent again; a larger one (or the provider's bound, if lower) is
		 * sent once and its call not retried.
		 * @param bytes the bound, 1 MiB by default
		 * @return this builder
		 * @throws IllegalArgumentException if {@code bytes} is negative
		 */
		public Builder maxReplayBody(long bytes) {
			this.maxReplayBody = requireNonNegative(bytes, "maxReplayBody");
			return this;
		}

		/**
		 * Sets the most bytes of a failed response's body read so its connection can be reused; beyond that its
		 * connection is dropped.
		 * @param bytes the bound, 64 KiB by default; {@code 0} drops every failed response's connection that has a
		 * body left
		 * @return this builder
		 * @throws IllegalArgumentException if {@code bytes} is negative
		 */
		public Builder maxDrain(long bytes) {
			this.maxDrain = requireNonNegative(bytes, "maxDrain");
			return this;
		}

		/**
		 * Names this instance for keyed jitter (combined with each operation's key), so that instances sharing a
		 * fleet spread their retries by a stable identity; a random one by default.
		 * @param instanceKey the identity, not blank
		 * @return this builder
		 */
		public Builder instanceKey(String instanceKey) {
			if (Objects.requireNonNull(instanceKey, "instanceKey").isBlank()) {
				throw new IllegalArgumentException("instanceKey must not be blank");
			}
			this.instanceKey = instanceKey;
			return this;
		}

		/**
		 * Tells {@code listener} of each host no provider names (its requests use {@code default}), when its route is
		 * looked up, not on every request; none by default.
		 * @param listener the listener; must not block
		 * @return this builder
		 */
		public Builder unmatchedHosts(RequestPreparer.UnmatchedHostListener listener) {
			this.unmatchedHosts = Objects.requireNonNull(listener, "listener");
			return this;
		}

		/**
		 * Tracks the calls that wait between attempts, so that a shutdown can cancel their waits; none by default.
		 * @param tracker the tracker
		 * @return this builder
		 */
		public Builder waits(WaitTracker tracker) {
			this.waits = Objects.requireNonNull(tracker, "tracker");
			return this;
		}

		/**
		 * Observes each call's operation, attempts and waits (the starter's Micrometer observations); none by default.
		 * @param observer the observer
		 * @return this builder
		 */
		public Builder observer(CallObserver observer) {
			this.observer = Objects.requireNonNull(observer, "observer");
			return this;
		}

		/**
		 * Builds the interceptor.
		 * @return the interceptor
		 * @throws IllegalStateException if neither an engine nor routes were given
		 */
		public RetryAfterInterceptor build() {
			if (this.engine != null) {
				return new RetryAfterInterceptor(this, ProviderRoutes.of(
						ProviderRoute.of(OperationSpec.DEFAULT_PROVIDER, this.engine).withPerOrigin(false)));
			}
			if (this.routes == null) {
				throw new IllegalStateException("give the interceptor an engine(...) or routes(...) to decide retries");
			}
			return new RetryAfterInterceptor(this, this.routes);
		}

		private static long requireNonNegative(long bytes, String name) {
			if (bytes < 0) {
				throw new IllegalArgumentException(name + " must not be negative but was " + bytes);
			}
			return bytes;
		}

	}

}
