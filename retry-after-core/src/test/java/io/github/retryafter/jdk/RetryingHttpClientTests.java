package io.github.retryafter.jdk;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Scope;
import io.github.retryafter.engine.AsyncRetryLoop;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.ProviderConventions;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.engine.RetryRunner;
import io.github.retryafter.request.OperationOptions;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The JDK {@code HttpClient} adapter against a loopback server. Waits are virtual: the engine and the adapter wait on
 * a {@link FakeClock}, so a {@code Retry-After: 1} costs no real second.
 */
class RetryingHttpClientTests {

	private static final int LARGE = 4 * 1024 * 1024;

	/**
	 * The size of a failed body whose reading is expected to be cut off: far more than loopback socket buffers and
	 * the client's read-ahead hold (a few MB under autotuning), so the server's write can only complete if the client
	 * reads it. Written in chunks, never held whole.
	 */
	private static final long HUGE = 64L * 1024 * 1024;

	/** The size of each failed body the server writes. */
	private long failedBodyBytes = LARGE;

	/** The {@code Retry-After} of each 503 the server answers. */
	private String retryAfter = "1";

	private final FakeClock clock = FakeClock.create();

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final Deque<Integer> statuses = new ArrayDeque<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/** Whether the server's write of each failed body was cut off by the client closing the connection, in order. */
	private final List<CompletableFuture<Boolean>> failedBodyCut = new CopyOnWriteArrayList<>();

	private HttpServer server;

	private HttpClient client;

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.setExecutor(this.executor);
		this.server.createContext("/", this::answer);
		this.server.start();
		this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	@Test
	void retriesA503WithTheSameBodyAndKeyAfterTheVirtualSecondItAskedFor() throws IOException {
		this.statuses.add(503);
		this.statuses.add(200);
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock);
		HttpRequest request = HttpRequest.newBuilder(uri())
			.header("Idempotency-Key", "order-42")
			.POST(BodyPublishers.ofString("{\"sku\":7}"))
			.build();
		RetryRunner.Result<HttpResponse<String>> result = retrying.send(request, BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.response()).map(HttpResponse::body).contains("ok 2");
		assertThat(this.seen).extracting(Seen::body).containsExactly("{\"sku\":7}", "{\"sku\":7}");
		assertThat(this.seen).extracting(Seen::key).containsExactly("order-42", "order-42");
		assertThat(this.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
			.isLessThan(Duration.ofMillis(1250));
	}

	@Test
	void aPutWithAReadOnceStreamBodyIsRetriedWithTheSameBytes() throws IOException {
		this.retryAfter = "0";
		this.statuses.add(503);
		this.statuses.add(200);
		String body = text(100 * 1024);
		InputStream once = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
		HttpRequest request = HttpRequest.newBuilder(uri()).PUT(BodyPublishers.ofInputStream(() -> once)).build();
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient
			.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.send(request, BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.seen).extracting((each) -> each.body().length()).containsExactly(body.length(), body.length());
		assertThat(this.seen).allMatch((each) -> each.body().equals(body), "the whole body, byte for byte");
	}

	@Test
	void aStreamBodyLargerThanTheReplayBoundIsSentOnceAndNotRetried() throws IOException {
		this.retryAfter = "0";
		this.statuses.add(503);
		this.statuses.add(200);
		String body = text(1024 * 1024 + 1);
		InputStream once = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
		HttpRequest request = HttpRequest.newBuilder(uri()).PUT(BodyPublishers.ofInputStream(() -> once)).build();
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient
			.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.send(request, BodyHandlers.ofString());
		assertThat(this.seen).extracting((each) -> each.body().length()).containsExactly(body.length());
		assertThat(this.seen).allMatch((each) -> each.body().equals(body), "the whole body, byte for byte");
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.response()).map(HttpResponse::statusCode).contains(503);
		assertThat(result.reason()).contains("status 503", "cannot be replayed", "larger than maxReplayBody",
				"1048576 bytes", "withMaxReplayBody", "BodyPublishers.ofByteArray");
	}

	@Test
	void aStreamBodyWhosePublisherFailsIsSentOnceAndNotRetried() throws IOException {
		this.retryAfter = "0";
		this.statuses.add(503);
		this.statuses.add(200);
		InputStream failing = new InputStream() {

			private int left = 1000;

			@Override
			public int read() throws IOException {
				if (this.left-- > 0) {
					return 'x';
				}
				throw new IOException("the source went away");
			}

		};
		HttpRequest request = HttpRequest.newBuilder(uri()).PUT(BodyPublishers.ofInputStream(() -> failing)).build();
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient
			.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.send(request, BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.attempts()).isEqualTo(1);
		assertThat(result.failure()).isPresent();
		assertThat(result.reason()).contains("cannot be replayed", "publisher failed after 1000 bytes")
			.doesNotContain("the source went away");
	}

	@Test
	void theReplayBoundIsASetting() throws IOException {
		this.retryAfter = "0";
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.withMaxReplayBody(16);
		this.statuses.add(503);
		this.statuses.add(200);
		RetryRunner.Result<HttpResponse<String>> within = retrying.send(streamed("0123456789abcdef"),
				BodyHandlers.ofString());
		assertThat(within.outcome()).isEqualTo(Outcome.SUCCESS);
		this.statuses.add(503);
		this.statuses.add(200);
		RetryRunner.Result<HttpResponse<String>> over = retrying.send(streamed("0123456789abcdefg"),
				BodyHandlers.ofString());
		assertThat(over.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(over.reason()).contains("maxReplayBody (16 bytes)");
		assertThat(this.seen).extracting(Seen::body)
			.containsExactly("0123456789abcdef", "0123456789abcdef", "0123456789abcdefg");
		assertThatIllegalArgumentException().isThrownBy(() -> retrying.withMaxReplayBody(-1));
	}

	@Test
	void aBodyOfUnknownLengthThatIsNotRetriedForOtherReasonsKeepsTheEnginesReason() throws IOException {
		this.statuses.add(404);
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient
			.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.withMaxReplayBody(4)
			.send(streamed("larger than four"), BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(result.reason()).contains("404").doesNotContain("maxReplayBody");
	}

	@Test
	void discardsTheRetriedBodyUnreadSoItsConnectionIsClosedNotReused() throws Exception {
		this.failedBodyBytes = HUGE;
		this.statuses.add(503);
		this.statuses.add(200);
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock);
		RetryRunner.Result<HttpResponse<String>> result = retrying.send(HttpRequest.newBuilder(uri()).build(),
				BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(this.seen).hasSize(2);
		assertThat(this.seen.get(1).port()).as("the second attempt needs a new connection")
			.isNotEqualTo(this.seen.get(0).port());
		assertThat(this.failedBodyCut.get(0).get(30, TimeUnit.SECONDS))
			.as("the 64 MB failed body was cut off, neither drained nor left hanging")
			.isTrue();
	}

	@Test
	void returnsTheFinalFailedResponseWithItsBodyWhenAttemptsRunOut() throws IOException {
		for (int i = 0; i < 3; i++) {
			this.statuses.add(503);
		}
		RetryEngine engine = engine(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(3).build());
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient.of(this.client, engine, this.clock)
			.send(HttpRequest.newBuilder(uri()).build(), BodyHandlers.ofString());
		assertThat(result.outcome()).isNotEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(3);
		assertThat(this.seen).hasSize(3);
		assertThat(result.response()).map(HttpResponse::statusCode).contains(503);
		assertThat(result.response()).map(HttpResponse::body).contains("busy".repeat(LARGE / 4));
	}

	@Test
	void eachAttemptCarriesTheEnginesAttemptTimeout() throws IOException {
		this.statuses.add(200);
		RetryEngine engine = engine(RetryPolicy.DEFAULTS.toBuilder().attemptTimeout(Duration.ofMillis(1500)).build());
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient.of(this.client, engine, this.clock)
			.send(HttpRequest.newBuilder(uri()).timeout(Duration.ofMinutes(5)).build(), BodyHandlers.ofString());
		assertThat(result.response()).flatMap((response) -> response.request().timeout())
			.contains(Duration.ofMillis(1500));
	}

	@Test
	void eachAttemptCarriesTheProvidersAttemptHeaderWithTheRetriesBeforeIt() throws IOException {
		this.statuses.add(503);
		this.statuses.add(503);
		this.statuses.add(200);
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.conventions(ProviderConventions.NONE.withAttemptHeader("x-stainless-retry-count"))
			.build();
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient.of(this.client, engine(policy), this.clock)
			.send(HttpRequest.newBuilder(uri()).build(), BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(this.seen).extracting(Seen::retries).containsExactly("0", "1", "2");
	}

	@Test
	void sendAsyncRetriesA503WithTheSameBodyKeyAndAttemptHeaderAfterTheVirtualSecondWithoutBlocking()
			throws Exception {
		this.failedBodyBytes = HUGE;
		this.statuses.add(503);
		this.statuses.add(200);
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.conventions(ProviderConventions.NONE.withAttemptHeader("x-stainless-retry-count"))
			.build();
		VirtualTimer timer = new VirtualTimer(this.clock);
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(policy), this.clock).withTimer(timer);
		HttpRequest request = HttpRequest.newBuilder(uri())
			.header("Idempotency-Key", "order-42")
			.POST(BodyPublishers.ofString("{\"sku\":7}"))
			.build();
		CompletableFuture<RetryRunner.Result<HttpResponse<String>>> sent = retrying.sendAsync(request,
				BodyHandlers.ofString(), OperationOptions.NONE);
		RetryRunner.Result<HttpResponse<String>> result = timer.runUntilDone(sent);
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.response()).map(HttpResponse::body).contains("ok 2");
		assertThat(this.seen).extracting(Seen::body).containsExactly("{\"sku\":7}", "{\"sku\":7}");
		assertThat(this.seen).extracting(Seen::key).containsExactly("order-42", "order-42");
		assertThat(this.seen).extracting(Seen::retries).containsExactly("0", "1");
		// the wait was a timer on the fake clock, never a sleep
		assertThat(this.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofMillis(1250));
		assertThat(this.clock.sleeps()).isEmpty();
		// the failed body was cancelled unread before the wait, closing its connection
		assertThat(this.failedBodyCut.get(0).get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void cancellingSendAsyncDuringItsWaitSendsNoFurtherRequest() throws Exception {
		this.statuses.add(503);
		this.statuses.add(200);
		VirtualTimer timer = new VirtualTimer(this.clock);
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock)
			.withTimer(timer);
		CompletableFuture<RetryRunner.Result<HttpResponse<String>>> sent = retrying
			.sendAsync(HttpRequest.newBuilder(uri()).build(), BodyHandlers.ofString(), OperationOptions.NONE);
		timer.awaitScheduled();
		sent.cancel(false);
		timer.runPending();
		assertThat(sent).isCancelled();
		assertThat(this.seen).hasSize(1);
	}

	@Test
	void sendsEachRequestToTheProviderItsHostRoutesItTo() throws IOException {
		this.statuses.add(503);
		this.statuses.add(200);
		List<OperationFinishedEvent> loopback = new CopyOnWriteArrayList<>();
		List<OperationFinishedEvent> others = new CopyOnWriteArrayList<>();
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
				ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS, finishedInto(others))),
				ProviderRoute.of("loopback", engine(RetryPolicy.DEFAULTS, finishedInto(loopback)), "127.0.0.1"));
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient.of(this.client, routes, this.clock)
			.send(HttpRequest.newBuilder(uri()).GET().build(), BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(this.seen).hasSize(2);
		assertThat(others).isEmpty();
		assertThat(loopback).singleElement().satisfies((event) -> {
			assertThat(event.spec().scope()).isEqualTo(Scope.provider("loopback"));
			assertThat(event.spec().host()).contains("127.0.0.1");
			assertThat(event.attempts()).isEqualTo(2);
		});
	}

	@Test
	void aPostToAProviderThatAddsKeysCarriesOneFreshKeyOnEveryAttempt() throws IOException {
		this.statuses.add(503);
		this.statuses.add(200);
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
				ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS)),
				ProviderRoute.of("payments", engine(RetryPolicy.DEFAULTS), "127.0.0.1").withIdempotencyKeys(true));
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, routes, this.clock);
		RetryRunner.Result<HttpResponse<String>> result = retrying
			.send(HttpRequest.newBuilder(uri()).POST(BodyPublishers.ofString("{\"sku\":7}")).build(),
					BodyHandlers.ofString());
		retrying.send(HttpRequest.newBuilder(uri()).POST(BodyPublishers.ofString("{\"sku\":8}")).build(),
				BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).as("the key made the POST replay-safe").isEqualTo(2);
		assertThat(this.seen).hasSize(3);
		String key = this.seen.get(0).key();
		assertThat(key).hasSize(36);
		assertThat(this.seen.get(1).key()).as("the same key on the retry").isEqualTo(key);
		assertThat(this.seen.get(2).key()).as("each operation its own key").isNotNull().isNotEqualTo(key);
	}

	@Test
	void aPostToAProviderThatAddsNoKeysIsSentOnceWithoutOne() throws IOException {
		this.statuses.add(503);
		this.statuses.add(200);
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient
			.of(this.client, ProviderRoutes.of(ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS))), this.clock)
			.send(HttpRequest.newBuilder(uri()).POST(BodyPublishers.ofString("{}")).build(), BodyHandlers.ofString());
		assertThat(result.outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(this.seen).extracting(Seen::key).containsExactly((String) null);
	}

	@Test
	void aKeyAndAProviderGivenAsOptionsAreUsed() throws IOException {
		this.statuses.add(503);
		this.statuses.add(200);
		List<OperationFinishedEvent> named = new CopyOnWriteArrayList<>();
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
				ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS)),
				ProviderRoute.of("named", engine(RetryPolicy.DEFAULTS, finishedInto(named))));
		RetryRunner.Result<HttpResponse<String>> result = RetryingHttpClient.of(this.client, routes, this.clock)
			.send(HttpRequest.newBuilder(uri()).POST(BodyPublishers.ofString("{}")).build(), BodyHandlers.ofString(),
					OperationOptions.of(Optional.of("named"), Optional.of("order-9"), Optional.empty()),
					Cancellation.never());
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(this.seen).extracting(Seen::key).containsExactly("order-9", "order-9");
		assertThat(named).singleElement().satisfies((event) -> assertThat(event.spec().provider()).isEqualTo("named"));
	}

	@Test
	void aProviderNobodyConfiguredIsRefusedBeforeAnythingIsSent() {
		RetryingHttpClient retrying = RetryingHttpClient.of(this.client, engine(RetryPolicy.DEFAULTS), this.clock);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> retrying.send(HttpRequest.newBuilder(uri()).build(), BodyHandlers.ofString(),
					OperationOptions.of(Optional.of("billing"), Optional.empty(), Optional.empty()),
					Cancellation.never()))
			.withMessageContaining("'billing'");
		assertThat(this.seen).isEmpty();
	}

	private static RetryListener finishedInto(List<OperationFinishedEvent> events) {
		return new RetryListener() {

			@Override
			public void onOperationFinished(OperationFinishedEvent event) {
				events.add(event);
			}

		};
	}

	private RetryEngine engine(RetryPolicy policy, RetryListener finished) {
		return RetryEngine.builder()
			.policy(policy)
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(ScriptedRandom.of(0.5, 0.5, 0.5))
			.listener(finished)
			.build();
	}

	private RetryEngine engine(RetryPolicy policy) {
		return RetryEngine.builder()
			.policy(policy)
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(ScriptedRandom.of(0.5, 0.5, 0.5))
			.build();
	}

	/** {@code length} bytes of ASCII text that does not repeat within a chunk, so a reordered chunk would show. */
	private static String text(int length) {
		StringBuilder text = new StringBuilder(length + 16);
		for (int i = 0; text.length() < length; i++) {
			text.append(i).append(',');
		}
		return text.substring(0, length);
	}

	/** A PUT whose body is an input stream that can be read once. */
	private HttpRequest streamed(String body) {
		InputStream once = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
		return HttpRequest.newBuilder(uri()).PUT(BodyPublishers.ofInputStream(() -> once)).build();
	}

	private URI uri() {
		return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort() + "/orders");
	}

	private void answer(HttpExchange exchange) throws IOException {
		String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
		this.seen.add(new Seen(body, exchange.getRequestHeaders().getFirst("Idempotency-Key"),
				exchange.getRemoteAddress().getPort(), exchange.getRequestHeaders().getFirst("x-stainless-retry-count")));
		Integer status = this.statuses.poll();
		boolean failed = status != null && status != 200;
		byte[] answer = failed ? "busy".repeat(16 * 1024).getBytes(StandardCharsets.UTF_8)
				: ("ok " + this.seen.size()).getBytes(StandardCharsets.UTF_8);
		long length = failed ? this.failedBodyBytes : answer.length;
		if (status != null && status == 503) {
			exchange.getResponseHeaders().set("Retry-After", this.retryAfter);
		}
		CompletableFuture<Boolean> cut = new CompletableFuture<>();
		if (status != null && status == 503) {
			this.failedBodyCut.add(cut);
		}
		exchange.sendResponseHeaders((status != null) ? status : 200, length);
		try (OutputStream out = exchange.getResponseBody()) {
			for (long written = 0; written < length; written += answer.length) {
				out.write(answer);
			}
			cut.complete(false);
		}
		catch (IOException ex) {
			// The client cancelled a failed body unread and closed the connection: what the adapter is meant to do.
			cut.complete(true);
		}
		exchange.close();
	}

	private record Seen(String body, String key, int port, String retries) {
	}

	/**
	 * The async loop's timer on the fake clock: a scheduled wait is run by the test thread, which moves the clock to
	 * its instant first. Only the HTTP exchanges take real time.
	 */
	private static final class VirtualTimer implements AsyncRetryLoop.Timer {

		private final FakeClock clock;

		private final BlockingQueue<Map.Entry<Long, Runnable>> scheduled = new LinkedBlockingQueue<>();

		VirtualTimer(FakeClock clock) {
			this.clock = clock;
		}

		@Override
		public Runnable schedule(Runnable task, long delayNanos) {
			Map.Entry<Long, Runnable> entry = Map.entry(this.clock.read() + delayNanos, task);
			this.scheduled.add(entry);
			return () -> this.scheduled.remove(entry);
		}

		/** Runs scheduled waits as they come, each at its instant, until {@code future} completes. */
		<T> T runUntilDone(CompletableFuture<T> future) throws Exception {
			while (!future.isDone()) {
				Map.Entry<Long, Runnable> next = this.scheduled.poll(50, TimeUnit.MILLISECONDS);
				if (next != null) {
					run(next);
				}
			}
			return future.get();
		}

		/** Blocks (on the loopback exchange, for at most 5 s) until a wait is scheduled. */
		void awaitScheduled() throws InterruptedException {
			for (int i = 0; i < 100 && this.scheduled.isEmpty(); i++) {
				Map.Entry<Long, Runnable> next = this.scheduled.poll(50, TimeUnit.MILLISECONDS);
				if (next != null) {
					this.scheduled.add(next);
				}
			}
			assertThat(this.scheduled).isNotEmpty();
		}

		void runPending() {
			for (Map.Entry<Long, Runnable> next = this.scheduled.poll(); next != null; next = this.scheduled.poll()) {
				run(next);
			}
		}

		private void run(Map.Entry<Long, Runnable> next) {
			long left = next.getKey() - this.clock.read();
			if (left > 0) {
				this.clock.advance(Duration.ofNanos(left));
			}
			next.getValue().run();
		}

	}

}
