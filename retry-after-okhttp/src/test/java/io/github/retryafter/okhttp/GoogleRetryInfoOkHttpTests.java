package io.github.retryafter.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.retryafter.PlannerOptions;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.ProviderProfile;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.engine.RetryPolicyBuilder;
import io.github.retryafter.okhttp.LoopbackServer.Answer;
import io.github.retryafter.okhttp.LoopbackServer.Seen;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Google's {@code RetryInfo} read from a refusal's body through OkHttp under the {@code gemini} profile: the body is
 * peeked, never taken, so the caller still reads every byte the server sent; a POST refused with {@code 429} is
 * retried at the body's instant; a daily quota is never waited, and the instant is on the response's tag. Waits are
 * virtual ({@link FakeClock}).
 */
class GoogleRetryInfoOkHttpTests {

	private static final MediaType JSON = MediaType.get("application/json");

	private final FakeClock clock = FakeClock.create();

	private final List<OperationFinishedEvent> finished = new CopyOnWriteArrayList<>();

	private final LoopbackServer server;

	GoogleRetryInfoOkHttpTests() throws IOException {
		this.server = new LoopbackServer(this.clock::elapsed);
	}

	@AfterEach
	void stopServer() throws IOException {
		this.server.close();
	}

	static String refusal(String retryDelay) {
		return "{\"error\": {\"code\": 429, \"message\": \"Resource has been exhausted (e.g. check quota).\","
				+ " \"status\": \"RESOURCE_EXHAUSTED\", \"details\": [{\"@type\":"
				+ " \"type.googleapis.com/google.rpc.QuotaFailure\", \"violations\": [{\"quotaId\":"
				+ " \"GenerateRequestsPerDayPerProjectPerModel-FreeTier\"}]}, {\"@type\":"
				+ " \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"" + retryDelay + "\"}]}}";
	}

	@Test
	void aPostRefusedWithRetryInfoIsRetriedAtTheBodysInstant() throws IOException {
		this.server.script(Answer.status(429, "Content-Type: application/json", refusal("3.700s")),
				Answer.status(200, "", "{\"candidates\": []}"));
		try (Response response = client().newCall(generate()).execute()) {
			assertThat(response.code()).isEqualTo(200);
			assertThat(response.body().string()).isEqualTo("{\"candidates\": []}");
		}
		assertThat(this.server.seen()).extracting(Seen::arrivedAt)
			.satisfiesExactly((first) -> assertThat(first).isLessThan(Duration.ofMillis(100)),
					(retry) -> assertThat(retry).isBetween(Duration.ofMillis(3700), Duration.ofMillis(3800)));
		assertThat(this.finished.get(0).outcome()).isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void aDailyQuotaIsNotWaitedAndTheCallerReadsTheWholeBodyWithTheInstantOnTheTag() throws IOException {
		String body = refusal("52758s");
		this.server.script(Answer.status(429, "Content-Type: application/json", body), Answer.status(200, "", "ok"));
		try (Response response = client().newCall(generate()).execute()) {
			assertThat(response.code()).isEqualTo(429);
			assertThat(response.body().string()).as("the body, as the server sent it").isEqualTo(body);
			RetryOutcomeException outcome = RetryOutcomeException.of(response).orElseThrow();
			assertThat(outcome.notBefore().orElseThrow().remaining()).isEqualTo(Duration.ofSeconds(52758));
		}
		assertThat(this.server.seen()).hasSize(1);
		assertThat(this.clock.elapsed()).isLessThan(Duration.ofSeconds(1));
		assertThat(this.finished.get(0).outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
	}

	@Test
	void aBodyLongerThanTheBoundReachesTheCallerWhole() throws IOException {
		String body = refusal("1s").replace("Resource has been exhausted", "x".repeat(40_000));
		this.server.script(Answer.status(503, "Content-Type: application/json", body), Answer.status(503, "", "again"));
		try (Response response = client(RetryPolicy.builder().maxAttempts(1)).newCall(generate()).execute()) {
			assertThat(response.code()).isEqualTo(503);
			assertThat(response.body().string()).isEqualTo(body);
		}
		assertThat(this.server.seen()).hasSize(1);
	}

	private OkHttpClient client() {
		return client(RetryPolicy.builder());
	}

	private OkHttpClient client(RetryPolicyBuilder policy) {
		ProviderProfile gemini = ProviderProfile.GEMINI;
		RetryEngine engine = RetryEngine.builder()
			.policy(policy.hintMode(HintMode.EXACT)
				.conventions(gemini.conventions())
				.planner(PlannerOptions.builder().maxWait(Duration.ofSeconds(30)).fields(gemini.fields()).build())
				.build())
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(() -> 0.0)
			.listener(new RetryListener() {

				@Override
				public void onOperationFinished(OperationFinishedEvent event) {
					GoogleRetryInfoOkHttpTests.this.finished.add(event);
				}

			})
			.build();
		RetryAfterInterceptor interceptor = RetryAfterInterceptor.builder().engine(engine).sleeper(this.clock).build();
		return new OkHttpClient.Builder().addInterceptor(interceptor).build();
	}

	private Request generate() {
		return new Request.Builder().url(this.server.url("/v1beta/models/gemini-2.0-flash:generateContent"))
			.post(RequestBody.create("{\"contents\": []}", JSON))
			.build();
	}

}
