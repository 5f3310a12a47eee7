package io.github.retryafter.jdk;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;

import javax.net.ssl.SSLSession;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryRunner;

/**
 * Sends requests with the JDK's {@link HttpClient}, retrying them as a {@link RetryEngine} decides, through the core's
 * one {@link RetryLoop}. Each attempt re-sends the same request (the JDK's body publishers replay their body) with
 * {@link HttpRequest.Builder#timeout} set to the engine's attempt timeout, so an attempt gives up by then waiting for
 * the response's headers. A failed response the engine retries is never read: its body subscription is cancelled
 * before the wait, which closes its connection instead of draining it into the pool. The final response's body is
 * read with the caller's {@link BodyHandler}; if the engine refuses an attempt after a wait, the result carries the
 * previous response with an empty body.
 * <p>
 * The idempotency key is the request's own {@link io.github.retryafter.engine.RetryPolicy#idempotencyKeyHeader()}
 * header, if it has one; the engine decides what may be replayed without one.
 * <p>
 * Immutable and thread-safe, as the client and the engine are.
 */
public final class RetryingHttpClient {

	private final HttpClient client;

	private final RetryEngine engine;

	private final RetryLoop loop;

	private RetryingHttpClient(HttpClient client, RetryEngine engine, Sleeper sleeper) {
		this.client = Objects.requireNonNull(client, "client");
		this.engine = Objects.requireNonNull(engine, "engine");
		this.loop = RetryLoop.of(engine.ticker(), Objects.requireNonNull(sleeper, "sleeper"));
	}

	/**
	 * Returns an adapter that really sleeps between attempts.
	 * @param client the client that sends every attempt
	 * @param engine decides what follows each attempt
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, RetryEngine engine) {
		return new RetryingHttpClient(client, engine, Sleeper.system());
	}

	/**
	 * Returns an adapter that waits through {@code sleeper} (a fake clock in tests).
	 * @param client the client that sends every attempt
	 * @param engine decides what follows each attempt
	 * @param sleeper how to block between attempts
	 * @return a new adapter
	 */
	public static RetryingHttpClient of(HttpClient client, RetryEngine engine, Sleeper sleeper) {
		return new RetryingHttpClient(client, engine, sleeper);
	}

	/**
	 * Sends {@code request} until the engine stops, blocking the calling thread.
	 * @param <B> the body type
	 * @param request the request; its own timeout is replaced by the engine's per attempt
	 * @param handler reads the final response's body
	 * @param cancellation cancels the operation from any thread; a wait in progress ends at once
	 * @return how the operation ended, with the final response or the last attempt's exception
	 * @throws IOException if the final response's body cannot be read ({@link InterruptedIOException} when
	 * interrupted while reading it, with the interrupt flag restored)
	 */
	public <B> RetryRunner.Result<HttpResponse<B>> send(HttpRequest request, BodyHandler<B> handler,
			Cancellation cancellation) throws IOException {
		OperationSpec spec = OperationSpec.of(request.method());
		Optional<String> key = request.headers().firstValue(this.engine.policy().idempotencyKeyHeader());
		RetryOperation operation = this.engine.start(key.map(spec::withIdempotencyKey).orElse(spec), cancellation);
		return this.loop.run(operation, new Call<>(this.client, operation, request, Objects.requireNonNull(handler)));
	}

	/**
	 * Sends {@code request} until the engine stops, for an operation nobody cancels.
	 * @param <B> the body type
	 * @param request the request
	 * @param handler reads the final response's body
	 * @return how the operation ended, with the final response or the last attempt's exception
	 * @throws IOException if the final response's body cannot be read
	 */
	public <B> RetryRunner.Result<HttpResponse<B>> send(HttpRequest request, BodyHandler<B> handler)
			throws IOException {
		return send(request, handler, Cancellation.never());
	}

	/** One operation's side of the loop: attempts are read as publishers, so a failed body can be cancelled unread. */
	private record Call<B>(HttpClient client, RetryOperation operation, HttpRequest request, BodyHandler<B> handler)
			implements
			RetryLoop.Exchange<HttpResponse<Flow.Publisher<List<ByteBuffer>>>, RetryRunner.Result<HttpResponse<B>>, IOException> {

		@Override
		public HttpResponse<Flow.Publisher<List<ByteBuffer>>> send(Permit.Proceed proceed) throws IOException, InterruptedException {
			HttpRequest attempt = HttpRequest.newBuilder(this.request, (name, value) -> true)
				.timeout(proceed.timeout())
				.build();
			return this.client.send(attempt, BodyHandlers.ofPublisher());
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
			return RetryRunner.Result.of(this.operation, stop, (response != null) ? read(response) : null, failure);
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
