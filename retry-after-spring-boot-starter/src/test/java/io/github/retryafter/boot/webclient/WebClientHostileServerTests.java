package io.github.retryafter.boot.webclient;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The filter against servers that misbehave, on loopback and the real clock (Reactor Netty on both sides): a failed
 * body that trickles, a server that never answers, one that sends headers and then nothing, and a body that can be
 * read once. Hints are short (1 s) and margins wide, so the tests hold on a busy machine.
 */
class WebClientHostileServerTests {

	private static final Duration DEADLINE = Duration.ofMillis(1500);

	/** How late past the deadline an operation may end, by its own clock: the acceptance bound of issue 12. */
	private static final Duration LATE = Duration.ofMillis(100);

	/**
	 * How late past the deadline the caller may see the end: the bound above plus what a loaded two-core machine
	 * adds to waking a timer and a blocked thread (hundreds of milliseconds under other builds).
	 */
	private static final long CALLER_LATE_MILLIS = 600;

	private final RecordingListener events = new RecordingListener();

	/** Per request: nanoTime when it arrived. */
	private final List<Long> arrivals = new CopyOnWriteArrayList<>();

	/** Per request: the body bytes the server received. */
	private final List<byte[]> bodies = new CopyOnWriteArrayList<>();

	/** Nanotime when the server saw its first connection close; 0 until then. */
	private volatile long firstClosedAt;

	private DisposableServer server;

	@AfterEach
	void stop() {
		if (this.server != null) {
			this.server.disposeNow(Duration.ofSeconds(5));
		}
	}

	@Test
	void aTricklingFailedBodyIsCutAndTheRetryLeavesOnTime() {
		AtomicInteger count = new AtomicInteger();
		serve((request, response) -> {
			if (count.getAndIncrement() == 0) {
				response.withConnection((connection) -> connection.onDispose(() -> this.firstClosedAt = System.nanoTime()));
				return response.status(503)
					.header("Retry-After", "1")
					.header("Content-Length", "100")
					.sendByteArray(Flux.interval(Duration.ofMillis(200)).map((i) -> new byte[] { 'x' }).take(100));
			}
			return response.status(200).sendString(Mono.just("ok"));
		});
		WebClient client = warm(client(policy(Duration.ofSeconds(10))));
		long start = System.nanoTime();
		HttpStatusCode status = client.get()
			.uri("/trickle")
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(10))
			.getStatusCode();
		assertThat(status.value()).isEqualTo(200);
		assertThat(this.arrivals).hasSize(2);
		// Retry-After: 1 in exact mode: the retry leaves at 1 s, not after the 20 s trickle
		assertThat(millis(this.arrivals.get(1) - this.arrivals.get(0))).isBetween(990L, 2500L);
		assertThat(millis(System.nanoTime() - start)).isLessThan(4000);
		// the trickling connection was closed by the client, after the drain's 500 ms and before the retry was due
		assertThat(this.firstClosedAt).isNotZero();
		assertThat(millis(this.firstClosedAt - this.arrivals.get(0))).isBetween(400L, 1500L);
	}

	@Test
	void aServerThatNeverAnswersEndsTheOperationByItsDeadline() {
		serve((request, response) -> Mono.never());
		WebClient client = warmFailing(warm(client(policy(DEADLINE))), "/silent");
		long start = System.nanoTime();
		assertThatException()
			.isThrownBy(() -> client.get().uri("/silent").retrieve().toBodilessEntity().block())
			.satisfies((ex) -> assertThat(outcomeOf(ex)).isEqualTo(Outcome.DEADLINE_EXCEEDED));
		assertThat(millis(System.nanoTime() - start)).isLessThan(DEADLINE.toMillis() + CALLER_LATE_MILLIS);
		assertThat(this.events.last().elapsed()).isLessThan(DEADLINE.plus(LATE));
		assertThat(this.arrivals).hasSize(1);
	}

	@Test
	void aServerThatSendsHeadersAndThenNothingEndsTheOperationByItsDeadline() {
		serve((request, response) -> response.status(503)
			.header("Retry-After", "1")
			.header("Content-Length", "100")
			.sendHeaders()
			.then(Mono.never()));
		WebClient client = warmFailing(warm(client(policy(DEADLINE))), "/headers-only");
		long start = System.nanoTime();
		assertThatException()
			.isThrownBy(() -> client.get().uri("/headers-only").retrieve().toBodilessEntity().block());
		// the operation itself ends at 1 s; the failed body it returns is bounded by the deadline
		assertThat(millis(System.nanoTime() - start)).isLessThan(DEADLINE.toMillis() + CALLER_LATE_MILLIS);
		// 503 at 0 s, retried at 1 s, whose own Retry-After: 1 no longer fits: two attempts, both bodies cut
		assertThat(this.arrivals).hasSize(2);
		assertThat(this.events.last().outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
	}

	@Test
	void aReadOnceBodyReachesTheServerWholeOnEveryAttempt() {
		byte[] payload = new byte[1000];
		new Random(12).nextBytes(payload);
		answerFirstWith503();
		HttpStatusCode status = client(policy(Duration.ofSeconds(10))).put()
			.uri("/resource")
			.body(BodyInserters.fromDataBuffers(readOnce(payload)))
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(10))
			.getStatusCode();
		assertThat(status.value()).isEqualTo(200);
		assertThat(this.bodies).hasSize(2);
		assertThat(this.bodies.get(0)).isEqualTo(payload);
		assertThat(this.bodies.get(1)).isEqualTo(payload);
	}

	@Test
	void aValueBodyIsReplayedWithTheSameHeaders() {
		answerFirstWith503();
		HttpStatusCode status = client(policy(Duration.ofSeconds(10))).put()
			.uri("/resource")
			.bodyValue("{\"name\":\"same\"}")
			.retrieve()
			.toBodilessEntity()
			.block(Duration.ofSeconds(10))
			.getStatusCode();
		assertThat(status.value()).isEqualTo(200);
		assertThat(this.bodies).extracting(String::new).containsExactly("{\"name\":\"same\"}", "{\"name\":\"same\"}");
	}

	@Test
	void aReadOnceBodyLargerThanTheReplayLimitIsSentOnceAndSaysHowToMakeItRetryable() {
		byte[] payload = new byte[1000];
		answerFirstWith503();
		HttpStatusCode status = client(policy(Duration.ofSeconds(10)), 999).put()
			.uri("/resource")
			.body(BodyInserters.fromDataBuffers(readOnce(payload)))
			.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode()))
			.block(Duration.ofSeconds(10));
		assertThat(status.value()).isEqualTo(503);
		assertThat(this.bodies).hasSize(1);
		assertThat(this.bodies.get(0)).hasSize(1000);
		assertThat(this.events.last().outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(this.events.last().reason()).contains("status 503", "larger than retry.after.max-replay-body",
				"bodyValue(...)", "999 bytes");
		assertThat(this.events.retries).isEmpty();
	}

	private void answerFirstWith503() {
		AtomicInteger count = new AtomicInteger();
		serve((request, response) -> (count.getAndIncrement() == 0)
				? response.status(503).header("Retry-After", "1").sendString(Mono.just("busy"))
				: response.status(200).sendString(Mono.just("ok")));
	}

	/** Starts a server that records each request's arrival and body, then answers with {@code handler}. */
	private void serve(BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> handler) {
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> {
				if (request.uri().equals("/warm-up")) {
					return response.status(200).sendString(Mono.just("warm"));
				}
				this.arrivals.add(System.nanoTime());
				return request.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0]).flatMapMany((body) -> {
					this.bodies.add(body);
					return handler.apply(request, response);
				});
			})
			.bindNow();
	}

	/**
	 * Runs one short operation against {@code path} that fails, so the failure path's classes are loaded before the
	 * timings; forgets what it recorded.
	 */
	private WebClient warmFailing(WebClient client, String path) {
		try {
			client.get()
				.uri(path)
				.attributes(RetryAfterAttributes.deadline(Duration.ofMillis(300)))
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(30));
		}
		catch (RuntimeException expected) {
			// the path fails by design
		}
		this.arrivals.clear();
		this.events.finished.clear();
		this.events.retries.clear();
		this.events.attempts.clear();
		return client;
	}

	/** Sends one request through {@code client} first, so the timings measure the operation, not class loading. */
	private static WebClient warm(WebClient client) {
		client.get().uri("/warm-up").retrieve().toBodilessEntity().block(Duration.ofSeconds(30));
		return client;
	}

	private WebClient client(RetryPolicy policy) {
		return client(policy, 1024 * 1024);
	}

	private WebClient client(RetryPolicy policy, long maxReplayBody) {
		return WebClient.builder()
			.baseUrl("http://127.0.0.1:" + this.server.port())
			.filter(TestFilters.realTime(policy, maxReplayBody, this.events))
			.build();
	}

	private static RetryPolicy policy(Duration deadline) {
		return RetryPolicy.builder().deadline(deadline).hintMode(HintMode.EXACT).build();
	}

	private static Flux<org.springframework.core.io.buffer.DataBuffer> readOnce(byte[] payload) {
		ByteArrayInputStream stream = new ByteArrayInputStream(payload);
		return DataBufferUtils.readInputStream(() -> stream, DefaultDataBufferFactory.sharedInstance, 256);
	}

	private static Outcome outcomeOf(Throwable ex) {
		for (Throwable suppressed : ex.getSuppressed()) {
			if (suppressed instanceof RetryAfterOutcomeException outcome) {
				return outcome.outcome().outcome();
			}
		}
		Throwable cause = ex.getCause();
		return (cause != null) ? outcomeOf(cause) : null;
	}

	private static long millis(long nanos) {
		return nanos / 1_000_000;
	}

}
