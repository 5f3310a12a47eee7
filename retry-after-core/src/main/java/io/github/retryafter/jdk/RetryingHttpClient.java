package io.github.retryafter.jdk;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.engine.AsyncRetryLoop;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
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

	private final AsyncRetryLoop asyncLoop;

	private final int maxReplayBody;

	private RetryingHttpClient(HttpClient client, RequestPreparer<?, ? extends PreparedRequest<?>> preparer,
			RetryLoop loop, AsyncRetryLoop asyncLoop, int maxReplayBody) {
		this.client = Objects.requireNonNull(client, "client");
		this.preparer = preparer;
		this.loop = loop;
		this.asyncLoop = asyncLoop;
		this.maxReplayBody = maxReplayBody;
	}

	private static <P extends ProviderRoute> RetryingHttpClient create(HttpClient client, ProviderRoutes<P> routes,
			Sleeper sleeper) {
		Objects.requireNonNull(client, "client");
		Objects.requireNonNull(routes, "routes");
		Objects.requireNonNull(sleeper, "sleeper");
		Ticker ticker = routes.defaultRoute().engine().ticker();
		// waits of sendAsync end on the client's executor, or on the common pool when it has none
		AsyncRetryLoop.Timer timer = AsyncRetryLoop.Timer
			.delayed(client.executor().orElse(ForkJoinPool.commonPool()));
		return new RetryingHttpClient(client, RequestPreparer.of(routes, UUID.randomUUID().toString()),
				RetryLoop.of(ticker, sleeper), AsyncRetryLoop.of(ticker, timer), (int) DEFAULT_MAX_REPLAY_BODY);
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
		return new RetryingHttpClient(this.client, this.preparer, this.loop, this.asyncLoop,
				(int) Math.min(bytes, MAX_ARRAY));
	}

	/**
	 * Returns a copy of this adapter whose {@link #sendAsync sendAsync} waits on {@code timer} (a virtual timer in
	 * tests; by default delayed tasks on the client's executor).
	 * @param timer schedules the end of each wait, on the engines' ticker
	 * @return a new adapter
	 */
	public RetryingHttpClient withTimer(AsyncRetryLoop.Timer timer) {
		return new RetryingHttpClient(this.client, this.preparer, this.loop,
				AsyncRetryLoop.of(this.asyncLoop.ticker(), timer), this.maxReplayBody);
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
		RecordedBody body = recorded(request);
		try {
			PreparedRequest<?> prepared = prepare(request, options, body);
			RetryOperation operation = prepared.route().engine().start(prepared.spec(), cancellation);
			return this.loop.run(operation,
					new HttpClientExchange.Blocking<>(this.client, operation, keyed(request, prepared), handler, body));
		}
		finally {
			if (body != null) {
				body.release();
			}
		}
	}

	/**
	 * Sends {@code request} until its provider's engine stops, without blocking: attempts are
	 * {@link HttpClient#sendAsync sent asynchronously} and waits are timers ({@link AsyncRetryLoop}), with the same
	 * rules as {@link #send(HttpRequest, BodyHandler, OperationOptions, Cancellation) send}. A body of unknown length
	 * is read ahead on the calling thread, as {@code send} reads it. Cancelling the returned future cancels the
	 * operation: no further attempt is sent.
	 * @param <B> the body type
	 * @param request the request; its own timeout is replaced by the engine's per attempt
	 * @param handler reads the final response's body
	 * @param options what the request says of its operation: a provider it names, a key, a deadline of its own
	 * @return completes with how the operation ended, with the final response (its body read) or the last
	 * attempt's failure; exceptionally if the final body cannot be read
	 * @throws IOException if a body of unknown length cannot be read ahead ({@link InterruptedIOException} when
	 * interrupted)
	 * @throws IllegalArgumentException if {@code options} names no configured provider: nothing is sent
	 */
	public <B> CompletableFuture<RetryRunner.Result<HttpResponse<B>>> sendAsync(HttpRequest request,
			BodyHandler<B> handler, OperationOptions options) throws IOException {
		Objects.requireNonNull(handler, "handler");
		Objects.requireNonNull(options, "options");
		RecordedBody body = recorded(request);
		PreparedRequest<?> prepared;
		try {
			prepared = prepare(request, options, body);
		}
		catch (RuntimeException | Error ex) {
			if (body != null) {
				body.release();
			}
			throw ex;
		}
		RetryOperation operation = prepared.route().engine().start(prepared.spec());
		CompletableFuture<CompletionStage<RetryRunner.Result<HttpResponse<B>>>> run = this.asyncLoop.run(operation,
				new HttpClientExchange.Async<>(this.client, operation, keyed(request, prepared), handler, body));
		CompletableFuture<RetryRunner.Result<HttpResponse<B>>> result = run.thenCompose((ended) -> ended);
		result.whenComplete((ended, failure) -> {
			if (body != null) {
				body.release();
			}
			if (result.isCancelled()) {
				run.cancel(false);
			}
		});
		return result;
	}

	/** A body of unknown length, read ahead so that every attempt sends the same bytes; {@code null} for none. */
	private RecordedBody recorded(HttpRequest request) throws InterruptedIOException {
		BodyPublisher publisher = request.bodyPublisher().orElse(null);
		return (publisher != null && publisher.contentLength() < 0) ? RecordedBody.record(publisher, this.maxReplayBody)
				: null;
	}

	private PreparedRequest<?> prepare(HttpRequest request, OperationOptions options, RecordedBody body) {
		return this.preparer.prepare(request.method(), request.uri(), request.headers(),
				RetryingHttpClient::firstValue, options,
				(body != null && !body.replayable()) ? RequestPreparer.BODY_NOT_REPLAYABLE : 0);
	}

	/** The request with the idempotency key its preparation added, on every attempt. */
	private static HttpRequest keyed(HttpRequest request, PreparedRequest<?> prepared) {
		return prepared.headerToAdd()
			.map((header) -> HttpRequest.newBuilder(request, (name, value) -> true)
				.header(header.getKey(), header.getValue())
				.build())
			.orElse(request);
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

}
