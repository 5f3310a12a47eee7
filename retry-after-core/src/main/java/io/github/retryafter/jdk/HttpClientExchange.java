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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;

import javax.net.ssl.SSLSession;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.engine.AsyncRetryLoop;
import io.github.retryafter.engine.AttemptHooks;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.ReplaySafety;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryRunner;

/**
 * One operation's side of the core's loops for the JDK {@link HttpClient}: how to send one attempt and read what came
 * back, the same for {@link RetryLoop} ({@link Blocking}) and {@link AsyncRetryLoop} ({@link Async}). Attempts are
 * read as publishers, so a failed body can be cancelled unread (which closes its connection); the final response's
 * body is read with the caller's handler. {@code body} is the read-ahead body of unknown length that every attempt
 * sends instead of the request's own publisher; {@code null} when the request's publisher is sent as it is. Used by
 * one step at a time.
 * @param <B> the caller's body type
 */
abstract class HttpClientExchange<B> implements AttemptHooks<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> {

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

	final HttpClient client;

	final RetryOperation operation;

	private final HttpRequest request;

	final BodyHandler<B> handler;

	private final RecordedBody body;

	HttpClientExchange(HttpClient client, RetryOperation operation, HttpRequest request, BodyHandler<B> handler,
			RecordedBody body) {
		this.client = client;
		this.operation = operation;
		this.request = request;
		this.handler = handler;
		this.body = body;
	}

	/**
	 * The request of one attempt: the caller's, with the engine's timeout (unless the client's own timeouts alone
	 * bound it, when the request keeps its own), the fields the permit says it carries, and the recorded body.
	 */
	HttpRequest attempt(Permit.Proceed proceed) {
		HttpRequest.Builder attempt = HttpRequest.newBuilder(this.request, (name, value) -> true);
		proceed.bound().ifPresent(attempt::timeout);
		if (proceed.hasFields()) {
			proceed.writeFields(attempt::setHeader);
		}
		if (this.body != null) {
			attempt.method(this.request.method(), this.body.publisher());
		}
		return attempt.build();
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
	public HttpResponse<Flow.Publisher<List<ByteBuffer>>> standIn(
			HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
		return new Read<>(response, EMPTY);
	}

	@Override
	public void discard(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
		response.body().subscribe(CANCEL);
	}

	/** Adds to the engine's refusal of a body it cannot replay why the body cannot be replayed, and what to do. */
	Decision.Stop explained(Decision.Stop stop) {
		return (this.body == null || this.body.replayable()) ? stop : ReplaySafety.explained(stop, this.body.problem());
	}

	/** Starts reading the final response's body with the caller's handler. */
	CompletionStage<HttpResponse<B>> read(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
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
		return subscriber.getBody().thenApply((read) -> new Read<>(response, read));
	}

	/** The blocking side: an attempt is {@link HttpClient#send}, the final body is read on the calling thread. */
	static final class Blocking<B> extends HttpClientExchange<B> implements
			RetryLoop.Exchange<HttpResponse<Flow.Publisher<List<ByteBuffer>>>, RetryRunner.Result<HttpResponse<B>>, IOException> {

		Blocking(HttpClient client, RetryOperation operation, HttpRequest request, BodyHandler<B> handler,
				RecordedBody body) {
			super(client, operation, request, handler, body);
		}

		@Override
		public HttpResponse<Flow.Publisher<List<ByteBuffer>>> send(Permit.Proceed proceed)
				throws IOException, InterruptedException {
			return this.client.send(attempt(proceed), BodyHandlers.ofPublisher());
		}

		@Override
		public RetryRunner.Result<HttpResponse<B>> end(Decision.Stop stop,
				HttpResponse<Flow.Publisher<List<ByteBuffer>>> response, Throwable failure) throws IOException {
			return RetryRunner.Result.of(this.operation, explained(stop), (response != null) ? readNow(response) : null,
					failure);
		}

		private HttpResponse<B> readNow(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) throws IOException {
			try {
				return read(response).toCompletableFuture().get();
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

	/**
	 * The non-blocking side: an attempt is {@link HttpClient#sendAsync}, the final body is read as it arrives; what
	 * the caller gets is the stage that completes when it is read.
	 */
	static final class Async<B> extends HttpClientExchange<B> implements
			AsyncRetryLoop.Exchange<HttpResponse<Flow.Publisher<List<ByteBuffer>>>, CompletionStage<RetryRunner.Result<HttpResponse<B>>>> {

		Async(HttpClient client, RetryOperation operation, HttpRequest request, BodyHandler<B> handler,
				RecordedBody body) {
			super(client, operation, request, handler, body);
		}

		@Override
		public CompletionStage<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> send(Permit.Proceed proceed) {
			return this.client.sendAsync(attempt(proceed), BodyHandlers.ofPublisher());
		}

		@Override
		public CompletionStage<RetryRunner.Result<HttpResponse<B>>> end(Decision.Stop stop,
				HttpResponse<Flow.Publisher<List<ByteBuffer>>> response, Throwable failure) {
			Decision.Stop explained = explained(stop);
			if (response == null) {
				return CompletableFuture.completedFuture(RetryRunner.Result.of(this.operation, explained, null, failure));
			}
			return read(response).thenApply((read) -> RetryRunner.Result.of(this.operation, explained, read, failure));
		}

	}

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
