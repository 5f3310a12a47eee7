package io.github.retryafter.jdk;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;

import javax.net.ssl.SSLSession;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.ReplaySafety;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryRunner;
import io.github.retryafter.request.OperationOptions;
import io.github.retryafter.request.PreparedRequest;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;
import io.github.retryafter.request.RequestPreparer;

/**
 * Sends requests with the JDK's {@link HttpClient}, retrying them as a {@link RetryEngine} decides, through the core's
 * one {@link RetryLoop}. Each attempt re-sends the same request with {@link HttpRequest.Builder#timeout} set to the
 * engine's attempt timeout, so an attempt gives up by then waiting for the response's headers. A failed response the
 * engine retries is never read: its body subscription is cancelled before the wait, which closes its connection
 * instead of draining it into the pool. The final response's body is read with the caller's {@link BodyHandler}; if
 * the engine refuses an attempt after a wait, the result carries the previous response with an empty body.
 * <p>
 * <b>Bodies sent.</b> A body publisher of known length ({@code ofString}, {@code ofByteArray}, {@code ofFile}) is
 * subscribed to again by every attempt, and publishes the same bytes each time. One of unknown length
 * ({@link BodyPublisher#contentLength()} {@code < 0}: {@code ofInputStream}, {@code ofByteArrays}, a custom publisher)
 * may publish once only, so it is read on the calling thread before the operation starts, up to
 * {@link #withMaxReplayBody maxReplayBody} bytes ({@value #DEFAULT_MAX_REPLAY_BODY} by default), and every attempt
 * sends exactly the bytes read. A body larger than that, or whose publisher fails, is sent once, as it is read, and
 * the operation is not replayable: a response the engine would retry ends it {@link Outcome#NOT_RETRYABLE}, with a
 * reason that says why and what to do, never with a retry carrying a different body. A request without a body costs
 * nothing of this.
 * <p>
 * <b>Providers and keys.</b> Each request is prepared by the core's {@link RequestPreparer}, as the Spring Boot
 * starter's adapters prepare theirs: it goes to the provider its host routes it to ({@link ProviderRoutes}), whose
 * engine decides its retries; its idempotency key is its own
 * {@link io.github.retryafter.engine.RetryPolicy#idempotencyKeyHeader() header}, else the key its
 * {@link OperationOptions} give, else, for a POST or PATCH to a provider that adds keys, a fresh one; a key it did not
 * carry is added to every attempt. Made with one engine ({@link #of(HttpClient, RetryEngine)}), every request goes to
 * that engine and is given no key.
 * <p>
 * Immutable and thread-safe, as the client and the engines are.
 */
public final class RetryingHttpClient {

	/**
	 * The default {@link #withMaxReplayBody maxReplayBody}: 1 MiB, as the Spring Boot starter's
	 * {@code retry.after.max-replay-body}.
	 */
	public static final long DEFAULT_MAX_REPLAY_BODY = 1024 * 1024;

	/** The most a byte array holds. */
	private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

	private final HttpClient client;

	private final RequestPreparer<?, ? extends PreparedRequest<?>> preparer;

	private final RetryLoop loop;

	private final int maxReplayBody;

	private RetryingHttpClient(HttpClient client, RequestPreparer<?, ? extends PreparedRequest<?>> preparer,
			RetryLoop loop, int maxReplayBody) {
		this.client = Objects.requireNonNull(client, "client");
		this.preparer = preparer;
		this.loop = loop;
		this.maxReplayBody = maxReplayBody;
	}

	private static <P extends ProviderRoute> RetryingHttpClient create(HttpClient client, ProviderRoutes<P> routes,
			Sleeper sleeper) {
		Objects.requireNonNull(routes, "routes");
		Objects.requireNonNull(sleeper, "sleeper");
		RetryLoop loop = RetryLoop.of(routes.defaultRoute().engine().ticker(), sleeper);
		return new RetryingHttpClient(client, RequestPreparer.of(routes, UUID.randomUUID().toString()), loop,
				(int) DEFAULT_MAX_REPLAY_BODY);
	}

	/**
	 * Returns an adapter that sends every request to one engine, gives none a key, and really sleeps between
	 * attempts.
	 * @param client the client that sends every attempt
	 * @param engine decides what follows each attempt
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, RetryEngine engine) {
		return of(client, engine, Sleeper.system());
	}

	/**
	 * Returns an adapter that sends every request to one engine, gives none a key, and waits through
	 * {@code sleeper} (a fake clock in tests).
	 * @param client the client that sends every attempt
	 * @param engine decides what follows each attempt
	 * @param sleeper how to block between attempts
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, RetryEngine engine, Sleeper sleeper) {
		Objects.requireNonNull(engine, "engine");
		return create(client, ProviderRoutes.of(ProviderRoute.of(OperationSpec.DEFAULT_PROVIDER, engine)
			.withPerOrigin(false)), sleeper);
	}

	/**
	 * Returns an adapter that sends each request to the provider its host routes it to, and really sleeps between
	 * attempts. The engines share one ticker: the {@code default} route's.
	 * @param client the client that sends every attempt
	 * @param routes the providers and their engines
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, ProviderRoutes<?> routes) {
		return create(client, routes, Sleeper.system());
	}

	/**
	 * Returns an adapter that sends each request to the provider its host routes it to, and waits through
	 * {@code sleeper} (a fake clock in tests). The engines share one ticker: the {@code default} route's.
	 * @param client the client that sends every attempt
	 * @param routes the providers and their engines
	 * @param sleeper how to block between attempts
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, ProviderRoutes<?> routes, Sleeper sleeper) {
		return create(client, routes, sleeper);
	}

	/**
	 * Returns a copy of this adapter that keeps at most {@code bytes} of a request body of unknown length for replay.
	 * A larger body is sent once and its operation is not retried; a body of known length is not affected.
	 * @param bytes the most bytes read ahead and kept per request; {@code 0} makes every body of unknown length
	 * unreplayable but an empty one
	 * @return a new adapter
	 * @throws IllegalArgumentException if {@code bytes} is negative
	 */
	public RetryingHttpClient withMaxReplayBody(long bytes) {
		if (bytes < 0) {
			throw new IllegalArgumentException("maxReplayBody must not be negative but was " + bytes);
		}
		return new RetryingHttpClient(this.client, this.preparer, this.loop, (int) Math.min(bytes, MAX_ARRAY));
	}

	/**
	 * Sends {@code request} until its provider's engine stops, blocking the calling thread.
	 * @param <B> the body type
	 * @param request the request; its own timeout is replaced by the engine's per attempt
	 * @param handler reads the final response's body
	 * @param options what the request says of its operation: a provider it names, a key, a deadline of its own
	 * @param cancellation cancels the operation from any thread; a wait in progress ends at once
	 * @return how the operation ended, with the final response or the last attempt's exception
	 * @throws IOException if the final response's body cannot be read ({@link InterruptedIOException} when
	 * interrupted while reading it, or while reading ahead a request body of unknown length, with the interrupt flag
	 * restored)
	 * @throws IllegalArgumentException if {@code options} names no configured provider: nothing is sent
	 */
	public <B> RetryRunner.Result<HttpResponse<B>> send(HttpRequest request, BodyHandler<B> handler,
			OperationOptions options, Cancellation cancellation) throws IOException {
		Objects.requireNonNull(handler, "handler");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(cancellation, "cancellation");
		BodyPublisher publisher = request.bodyPublisher().orElse(null);
		RecordedBody body = (publisher != null && publisher.contentLength() < 0)
				? RecordedBody.record(publisher, this.maxReplayBody) : null;
		try {
			PreparedRequest<?> prepared = this.preparer.prepare(request.method(), request.uri(), request.headers(),
					RetryingHttpClient::firstValue, options,
					(body != null && !body.replayable()) ? RequestPreparer.BODY_NOT_REPLAYABLE : 0);
			HttpRequest keyed = prepared.headerToAdd()
				.map((header) -> HttpRequest.newBuilder(request, (name, value) -> true)
					.header(header.getKey(), header.getValue())
					.build())
				.orElse(request);
			RetryOperation operation = prepared.route().engine().start(prepared.spec(), cancellation);
			return this.loop.run(operation, new Call<>(this.client, operation, keyed, handler, body));
		}
		finally {
			if (body != null) {
				body.release();
			}
		}
	}

	/**
	 * Sends {@code request} until its provider's engine stops, blocking the calling thread.
	 * @param <B> the body type
	 * @param request the request; its own timeout is replaced by the engine's per attempt
	 * @param handler reads the final response's body
	 * @param cancellation cancels the operation from any thread; a wait in progress ends at once
	 * @return how the operation ended, with the final response or the last attempt's exception
	 * @throws IOException if the final response's body cannot be read ({@link InterruptedIOException} when
	 * interrupted while reading it, or while reading ahead a request body of unknown length, with the interrupt flag
	 * restored)
	 */
	public <B> RetryRunner.Result<HttpResponse<B>> send(HttpRequest request, BodyHandler<B> handler,
			Cancellation cancellation) throws IOException {
		return send(request, handler, OperationOptions.NONE, cancellation);
	}

	/**
	 * Sends {@code request} until its provider's engine stops, for an operation nobody cancels.
	 * @param <B> the body type
	 * @param request the request
	 * @param handler reads the final response's body
	 * @return how the operation ended, with the final response or the last attempt's exception
	 * @throws IOException if the final response's body cannot be read
	 */
	public <B> RetryRunner.Result<HttpResponse<B>> send(HttpRequest request, BodyHandler<B> handler)
			throws IOException {
		return send(request, handler, OperationOptions.NONE, Cancellation.never());
	}

	/** The first value of a request's header field, or {@code null}: HTTP field names are case-insensitive here. */
	private static String firstValue(HttpHeaders headers, String name) {
		return headers.firstValue(name).orElse(null);
	}

	/**
	 * One operation's side of the loop: attempts are read as publishers, so a failed body can be cancelled unread.
	 * {@code body} is the read-ahead body of unknown length that every attempt sends instead of the request's own
	 * publisher; {@code null} when the request's publisher is sent as it is.
	 */
	private record Call<B>(HttpClient client, RetryOperation operation, HttpRequest request, BodyHandler<B> handler,
			RecordedBody body) implements
			RetryLoop.Exchange<HttpResponse<Flow.Publisher<List<ByteBuffer>>>, RetryRunner.Result<HttpResponse<B>>, IOException> {

		@Override
		public HttpResponse<Flow.Publisher<List<ByteBuffer>>> send(Permit.Proceed proceed) throws IOException, InterruptedException {
			HttpRequest.Builder attempt = HttpRequest.newBuilder(this.request, (name, value) -> true);
			// with the client's own timeouts the request keeps its own, if any
			proceed.bound().ifPresent(attempt::timeout);
			if (proceed.hasFields()) {
				proceed.writeFields(attempt::setHeader);
			}
			if (this.body != null) {
				attempt.method(this.request.method(), this.body.publisher());
			}
			return this.client.send(attempt.build(), BodyHandlers.ofPublisher());
		}

		@Override
		public int status(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
			return response.statusCode();
		}

		@Override
		public HeaderSource headers(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
			return response.headers()::allValues;
		}

		@Override
		public HttpResponse<Flow.Publisher<List<ByteBuffer>>> standIn(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
			return new Read<>(response, EMPTY);
		}

		@Override
		public void discard(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
			response.body().subscribe(CANCEL);
		}

		@Override
		public RetryRunner.Result<HttpResponse<B>> end(Decision.Stop stop, HttpResponse<Flow.Publisher<List<ByteBuffer>>> response,
				Throwable failure) throws IOException {
			return RetryRunner.Result.of(this.operation, explained(stop), (response != null) ? read(response) : null,
					failure);
		}

		/** Adds to the engine's refusal of a body it cannot replay why the body cannot be replayed, and what to do. */
		private Decision.Stop explained(Decision.Stop stop) {
			return (this.body == null || this.body.replayable()) ? stop : ReplaySafety.explained(stop, this.body.problem());
		}

		private HttpResponse<B> read(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) throws IOException {
			HttpResponse.BodySubscriber<B> subscriber = this.handler.apply(new HttpResponse.ResponseInfo() {

				@Override
				public int statusCode() {
					return response.statusCode();
				}

				@Override
				public HttpHeaders headers() {
					return response.headers();
				}

				@Override
				public HttpClient.Version version() {
					return response.version();
				}

			});
			response.body().subscribe(subscriber);
			try {
				return new Read<>(response, subscriber.getBody().toCompletableFuture().get());
			}
			catch (ExecutionException ex) {
				throw (ex.getCause() instanceof IOException io) ? io : new IOException(ex.getCause());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				InterruptedIOException interrupted = new InterruptedIOException("interrupted reading the final body");
				interrupted.initCause(ex);
				throw interrupted;
			}
		}

	}

	/** The body of a response that was discarded: it completes at once, empty. */
	private static final Flow.Publisher<List<ByteBuffer>> EMPTY = (subscriber) -> {
		subscriber.onSubscribe(new Flow.Subscription() {

			@Override
			public void request(long n) {
			}

			@Override
			public void cancel() {
			}

		});
		subscriber.onComplete();
	};

	/** Cancels a failed response's body unread, which closes its connection. Stateless and thread-safe. */
	private static final Flow.Subscriber<List<ByteBuffer>> CANCEL = new Flow.Subscriber<>() {

		@Override
		public void onSubscribe(Flow.Subscription subscription) {
			subscription.cancel();
		}

		@Override
		public void onNext(List<ByteBuffer> item) {
		}

		@Override
		public void onError(Throwable throwable) {
		}

		@Override
		public void onComplete() {
		}

	};

	/**
	 * A response of the loop with its body replaced: read by the caller's handler, or empty. It has no
	 * {@link #previousResponse()}: the loop's attempts are not a redirect chain.
	 * @param <B> the body type
	 */
	private record Read<B>(HttpResponse<?> response, B body) implements HttpResponse<B> {

		@Override
		public int statusCode() {
			return this.response.statusCode();
		}

		@Override
		public HttpRequest request() {
			return this.response.request();
		}

		@Override
		public Optional<HttpResponse<B>> previousResponse() {
			return Optional.empty();
		}

		@Override
		public HttpHeaders headers() {
			return this.response.headers();
		}

		@Override
		public Optional<SSLSession> sslSession() {
			return this.response.sslSession();
		}

		@Override
		public URI uri() {
			return this.response.uri();
		}

		@Override
		public HttpClient.Version version() {
			return this.response.version();
		}

	}

}
