package io.github.retryafter.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.retryafter.Sleeper;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.okhttp.LoopbackServer.Answer;
import io.github.retryafter.okhttp.LoopbackServer.Seen;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The interceptor under a real {@link OkHttpClient} against a loopback server, asserting what the server saw. Waits
 * are virtual: the engine and the interceptor wait on a {@link FakeClock}, so a {@code Retry-After: 10} costs no real
 * second; only an attempt timeout and a drain bound run on the real clock, each well under a second.
 */
class RetryAfterInterceptorTests {

	private static final MediaType TEXT = MediaType.get("text/plain");

	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final FakeClock clock = FakeClock.create();

	private final List<OperationFinishedEvent> finished = new CopyOnWriteArrayList<>();

	private final LoopbackServer server;

	RetryAfterInterceptorTests() throws IOException {
		this.server = new LoopbackServer(this.clock::elapsed);
	}

	@AfterEach
	void stopServer() throws IOException {
		this.server.close();
	}

	@Test
	void retriesA503AtTheDelaySecondsItsRetryAfterNamed() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 2", "busy"), Answer.status(200, "", "ok"));
		try (Response response = execute(client(RetryPolicy.DEFAULTS), get())) {
			assertThat(response.code()).isEqualTo(200);
			assertThat(response.body().string()).isEqualTo("ok");
		}
		assertThat(this.server.seen()).extracting(Seen::arrivedAt)
			.satisfiesExactly((first) -> assertThat(first).isLessThan(Duration.ofMillis(100)),
					(retry) -> assertThat(retry).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2100)));
		assertThat(outcome()).isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void anHttpDateIsMeasuredFromTheResponsesOwnDateNotTheClientsClock() throws IOException {
		// the server's clock is an hour ahead: measured on the client's clock the wait would be an hour and refused
		String date = HTTP_DATE.format(this.clock.instant().plus(Duration.ofHours(1)));
		String retryAt = HTTP_DATE.format(this.clock.instant().plus(Duration.ofHours(1)).plusSeconds(3));
		this.server.script(Answer.status(429, "Date: " + date + "\r\nRetry-After: " + retryAt, "slow down"),
				Answer.status(200, "", "ok"));
		try (Response response = execute(client(RetryPolicy.DEFAULTS), get())) {
			assertThat(response.code()).isEqualTo(200);
		}
		assertThat(this.server.seen()).hasSize(2);
		assertThat(this.server.seen().get(1).arrivedAt()).isBetween(Duration.ofSeconds(3), Duration.ofMillis(3100));
	}

	@Test
	void anEmptyBudgetStopsTheRetriesAndTheServerSeesNoMore() throws IOException {
		this.server.script(Answer.status(503, "", "busy"));
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.providerDefaults(new BudgetSettings(1, 0, 0))
			.ticker(this.clock)
			.build();
		RetryEngine engine = engine(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(5).build(), budget);
		OkHttpClient client = client(RetryAfterInterceptor.builder().engine(engine).sleeper(this.clock));
		try (Response response = execute(client, get())) {
			assertThat(response.code()).as("the last failed response, as the server sent it").isEqualTo(503);
			assertThat(response.body().string()).isEqualTo("busy");
		}
		assertThat(this.server.seen()).as("the first attempt and the one retry the budget held").hasSize(2);
		assertThat(outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED);
	}

	@Test
	void aProvidersCooldownHoldsTheNextCallUntilTheInstantItNamed() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 5", "busy"), Answer.status(200, "", "ok"));
		OkHttpClient client = client(RetryPolicy.DEFAULTS.toBuilder()
			.maxAttempts(1)
			.pacing(PacingSettings.DEFAULTS)
			.build());
		try (Response first = execute(client, get())) {
			assertThat(first.code()).isEqualTo(503);
		}
		try (Response second = execute(client, get())) {
			assertThat(second.code()).isEqualTo(200);
		}
		assertThat(this.server.seen()).hasSize(2);
		assertThat(this.server.seen().get(1).arrivedAt()).as("held by the provider's gate, not sent into the cooldown")
			.isBetween(Duration.ofSeconds(5), Duration.ofMillis(5100));
	}

	@Test
	void aWaitPastTheDeadlineEndsTheCallWithTheFailedResponseAtOnce() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 10", "busy"));
		try (Response response = execute(client(RetryPolicy.DEFAULTS.toBuilder()
			.deadline(Duration.ofSeconds(3))
			.build()), get())) {
			assertThat(response.code()).isEqualTo(503);
			assertThat(response.body().string()).isEqualTo("busy");
			// issue 30 item 4: the response handed back says how the call ended and the instant the provider named
			RetryOutcomeException ended = RetryOutcomeException.of(response).orElseThrow();
			assertThat(ended.outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
			assertThat(ended.notBefore()).map(NotBefore::remaining)
				.hasValueSatisfying((left) -> assertThat(left).isBetween(Duration.ofMillis(9900), Duration.ofSeconds(10)));
			assertThat(NotBefore.find(ended)).isEqualTo(ended.notBefore());
		}
		assertThat(this.server.seen()).hasSize(1);
		assertThat(this.clock.elapsed()).isLessThan(Duration.ofSeconds(1));
		assertThat(outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
	}

	@Test
	void aPlainNotFoundCarriesNoOutcomeAndASuccessNone() throws IOException {
		this.server.script(Answer.status(404, "", "none"), Answer.status(200, "", "ok"));
		try (Response response = execute(client(RetryPolicy.DEFAULTS), get())) {
			assertThat(response.code()).isEqualTo(404);
			assertThat(RetryOutcomeException.of(response)).isEmpty();
		}
		try (Response response = execute(client(RetryPolicy.DEFAULTS), get())) {
			assertThat(response.code()).isEqualTo(200);
			assertThat(RetryOutcomeException.of(response)).isEmpty();
		}
	}

	@Test
	void anAttemptThatOutlivesItsTimeoutIsAbandonedAndRetried() throws IOException, InterruptedException {
		this.server.script(Answer.silent(), Answer.status(200, "", "ok"));
		long start = System.nanoTime();
		try (Response response = execute(client(RetryPolicy.DEFAULTS.toBuilder()
			.attemptTimeout(Duration.ofMillis(300))
			.build()), get())) {
			assertThat(response.code()).isEqualTo(200);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		assertThat(this.server.seen()).extracting(Seen::connection).containsExactly(1, 2);
		assertThat(this.server.closedAt(1, Duration.ofSeconds(1))).as("the silent connection closed").isNotZero();
		assertThat(outcome()).isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void aTricklingFailedBodyIsClosedWithinTheDrainBoundNotHeldUntilItEnds() throws Exception {
		// 100 bytes at one per 100 ms: 10 s of trickling if the client read it all
		this.server.script(Answer.trickling(503, "Retry-After: 10", 100, Duration.ofMillis(100)),
				Answer.status(200, "", "ok"));
		long start = System.nanoTime();
		try (Response response = execute(client(RetryPolicy.DEFAULTS), get())) {
			assertThat(response.code()).isEqualTo(200);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the 500 ms drain bound, not the trickle")
			.isLessThan(Duration.ofMillis(2000));
		List<Seen> seen = this.server.seen();
		assertThat(seen).extracting(Seen::connection).as("the failed body's connection is not reused")
			.containsExactly(1, 2);
		assertThat(seen.get(1).arrivedAt()).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
		long closedAt = this.server.closedAt(1, Duration.ofSeconds(2));
		assertThat(closedAt).as("the client closed the trickling connection").isNotZero();
		assertThat(Duration.ofNanos(closedAt - start)).isLessThan(Duration.ofMillis(1500));
		assertThat(this.server.bodyBytesWritten(1)).isLessThan(15);
	}

	@Test
	void aOneShotBodyIsSentOnceAndNeverReplayed() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 1", "busy"), Answer.status(200, "", "ok"));
		Request request = new Request.Builder().url(this.server.url("/orders"))
			.header("Idempotency-Key", "order-42")
			.post(oneShot("{\"sku\":7}"))
			.build();
		try (Response response = execute(client(RetryPolicy.DEFAULTS), request)) {
			assertThat(response.code()).isEqualTo(503);
		}
		assertThat(this.server.seen()).extracting(Seen::body).containsExactly("{\"sku\":7}");
		assertThat(outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		assertThat(this.finished.get(0).reason()).contains("cannot be replayed");
	}

	@Test
	void aBodyLargerThanMaxReplayBodyIsSentOnceAndOneWithinItIsReplayed() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 1", "busy"), Answer.status(200, "", "ok"),
				Answer.status(503, "Retry-After: 1", "busy"), Answer.status(200, "", "ok"));
		OkHttpClient client = client(RetryAfterInterceptor.builder()
			.engine(engine(RetryPolicy.DEFAULTS, null))
			.sleeper(this.clock)
			.maxReplayBody(16));
		try (Response within = execute(client, put("0123456789abcdef"))) {
			assertThat(within.code()).isEqualTo(200);
		}
		try (Response over = execute(client, put("0123456789abcdefg"))) {
			assertThat(over.code()).isEqualTo(503);
		}
		assertThat(this.server.seen()).extracting(Seen::body)
			.containsExactly("0123456789abcdef", "0123456789abcdef", "0123456789abcdefg");
	}

	@Test
	void aPostWithoutAKeyIsNotRepeatedAfterItsResponseWasLost() {
		this.server.script(Answer.hangUp(), Answer.status(200, "", "ok"));
		Request request = new Request.Builder().url(this.server.url("/orders"))
			.post(RequestBody.create("{}", TEXT))
			.build();
		Throwable thrown = catchThrowable(() -> execute(client(RetryPolicy.DEFAULTS), request));
		assertThat(thrown).isInstanceOf(IOException.class);
		assertThat(thrown.getSuppressed()).singleElement()
			.isInstanceOfSatisfying(RetryOutcomeException.class,
					(outcome) -> assertThat(outcome.outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN));
		assertThat(this.server.seen()).hasSize(1);
		assertThat(outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
	}

	@Test
	void aPostGivenAKeyIsRepeatedAfterALostResponseWithTheSameKey() throws IOException {
		this.server.script(Answer.hangUp(), Answer.status(200, "", "ok"));
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes
			.of(ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS, null)).withIdempotencyKeys(true));
		Request request = new Request.Builder().url(this.server.url("/orders"))
			.post(RequestBody.create("{\"sku\":7}", TEXT))
			.build();
		OkHttpClient client = client(RetryAfterInterceptor.builder().routes(routes).sleeper(this.clock));
		try (Response response = execute(client, request)) {
			assertThat(response.code()).isEqualTo(200);
		}
		List<Seen> seen = this.server.seen();
		assertThat(seen).extracting(Seen::body).containsExactly("{\"sku\":7}", "{\"sku\":7}");
		assertThat(seen.get(0).field("Idempotency-Key")).hasSize(36);
		assertThat(seen.get(1).field("Idempotency-Key")).isEqualTo(seen.get(0).field("Idempotency-Key"));
		assertThat(request.header("Idempotency-Key")).as("the caller's request is not changed").isNull();
	}

	@Test
	void cancellingTheCallDuringAWaitEndsItWithoutAnotherRequest() {
		this.server.script(Answer.status(503, "Retry-After: 5", "busy"), Answer.status(200, "", "ok"));
		AtomicReference<Call> call = new AtomicReference<>();
		Sleeper cancelling = (duration, cancellation) -> {
			call.get().cancel();
			this.clock.sleep(duration, cancellation);
		};
		OkHttpClient client = client(RetryAfterInterceptor.builder()
			.engine(engine(RetryPolicy.DEFAULTS, null))
			.sleeper(cancelling));
		call.set(client.newCall(get()));
		assertThat(catchThrowable(() -> call.get().execute().close())).isInstanceOf(IOException.class);
		assertThat(this.server.seen()).hasSize(1);
		assertThat(this.clock.elapsed()).isLessThan(Duration.ofSeconds(1));
		assertThat(outcome()).isEqualTo(Outcome.CANCELLED);
	}

	@Test
	void addedAsANetworkInterceptorItFailsBeforeSendingAndSaysWhere() {
		OkHttpClient client = new OkHttpClient.Builder()
			.addNetworkInterceptor(RetryAfterInterceptor.builder()
				.engine(engine(RetryPolicy.DEFAULTS, null))
				.sleeper(this.clock)
				.build())
			.build();
		assertThatIllegalStateException().isThrownBy(() -> execute(client, get()))
			.withMessageContaining("addInterceptor");
		assertThat(this.server.seen()).isEmpty();
	}

	@Test
	void anInterceptorNeedsAnEngine() {
		assertThatIllegalStateException().isThrownBy(() -> RetryAfterInterceptor.builder().build())
			.withMessageContaining("engine(...)");
	}

	private Outcome outcome() {
		assertThat(this.finished).hasSize(1);
		return this.finished.get(0).outcome();
	}

	private Response execute(OkHttpClient client, Request request) throws IOException {
		return client.newCall(request).execute();
	}

	private OkHttpClient client(RetryPolicy policy) {
		return client(RetryAfterInterceptor.builder().engine(engine(policy, null)).sleeper(this.clock));
	}

	private OkHttpClient client(RetryAfterInterceptor.Builder interceptor) {
		return new OkHttpClient.Builder().addInterceptor(interceptor.build()).build();
	}

	private RetryEngine engine(RetryPolicy policy, TokenBucketRetryBudget budget) {
		RetryEngine.Builder builder = RetryEngine.builder()
			.policy(policy)
			.ticker(this.clock)
			.wallClock(this.clock)
			// no jitter: a retry is due exactly when the server said
			.random(() -> 0.0)
			.listener(new RetryListener() {

				@Override
				public void onOperationFinished(OperationFinishedEvent event) {
					RetryAfterInterceptorTests.this.finished.add(event);
				}

			});
		if (budget != null) {
			builder.budget(budget);
		}
		return builder.build();
	}

	private Request get() {
		return new Request.Builder().url(this.server.url("/models")).build();
	}

	private Request put(String body) {
		return new Request.Builder().url(this.server.url("/orders/7")).put(RequestBody.create(body, TEXT)).build();
	}

	/** A body OkHttp may write once only, of known length. */
	private static RequestBody oneShot(String text) {
		RequestBody bytes = RequestBody.create(text, TEXT);
		return new RequestBody() {

			@Override
			public MediaType contentType() {
				return TEXT;
			}

			@Override
			public long contentLength() throws IOException {
				return bytes.contentLength();
			}

			@Override
			public boolean isOneShot() {
				return true;
			}

			@Override
			public void writeTo(BufferedSink sink) throws IOException {
				bytes.writeTo(sink);
			}

		};
	}

}
