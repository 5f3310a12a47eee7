package io.github.retryafter.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.ResponseClassifier;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.okhttp.LoopbackServer.Answer;
import io.github.retryafter.okhttp.LoopbackServer.Seen;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.request.OperationOptions;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the interceptor's fast path must keep: it sends and reports a call's first attempt without the loop, so each
 * test here pins something the loop used to do for that attempt (the engine's events and budget, a request's tag,
 * the gate's refusal, a call cancelled before it started, a response nobody takes), asserting what the server saw.
 */
class FirstAttemptTests {

	private final FakeClock clock = FakeClock.create();

	private final List<OperationFinishedEvent> finished = new CopyOnWriteArrayList<>();

	private final List<AttemptEvent> attempts = new CopyOnWriteArrayList<>();

	private final LoopbackServer server;

	FirstAttemptTests() throws IOException {
		this.server = new LoopbackServer(this.clock::elapsed);
	}

	@AfterEach
	void stopServer() throws IOException {
		this.server.close();
	}

	@Test
	void aFirstAttemptThatSucceedsEndsTheOperationForTheListenersAndDepositsIntoTheBudget() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 1", "busy"), Answer.status(503, "Retry-After: 1", "busy"),
				Answer.status(200, "", "ok"), Answer.status(503, "Retry-After: 1", "busy"), Answer.status(200, "", "ok"));
		// one token, and a successful first attempt deposits a whole one
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.providerDefaults(new BudgetSettings(1, 1, 0))
			.ticker(this.clock)
			.build();
		OkHttpClient client = client(engine(RetryPolicy.DEFAULTS.toBuilder().maxAttempts(5).build(), budget));
		int[] statuses = new int[3];
		for (int i = 0; i < 3; i++) {
			try (Response response = client.newCall(get()).execute()) {
				statuses[i] = response.code();
			}
		}
		assertThat(statuses).as("the second call's success paid for the third call's retry").containsExactly(503, 200, 200);
		assertThat(this.server.seen()).hasSize(5);
		assertThat(this.finished).extracting(OperationFinishedEvent::outcome)
			.containsExactly(Outcome.BUDGET_EXHAUSTED, Outcome.SUCCESS, Outcome.SUCCESS);
		assertThat(this.finished).extracting(OperationFinishedEvent::attempts).containsExactly(2, 1, 2);
		assertThat(this.attempts).extracting(AttemptEvent::attempt).containsExactly(1, 2, 1, 1, 2);
	}

	@Test
	void aRequestsTagNamesItsProviderGivesItsKeyAndSetsItsDeadline() throws IOException {
		this.server.script(Answer.status(200, "", "ok"), Answer.status(503, "Retry-After: 10", "busy"));
		RetryEngine engine = engine(RetryPolicy.DEFAULTS, null);
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(ProviderRoute.of("default", engine),
				ProviderRoute.of("payments", engine, "api.pay.example"));
		OkHttpClient client = client(RetryAfterInterceptor.builder().routes(routes).sleeper(this.clock).build());
		OperationOptions options = OperationOptions.of(Optional.of("payments"), Optional.of("order-42"),
				Optional.of(Duration.ofSeconds(3)));
		for (int i = 0; i < 2; i++) {
			Request tagged = get().newBuilder().tag(OperationOptions.class, options).build();
			try (Response response = client.newCall(tagged).execute()) {
				assertThat(response.code()).isEqualTo((i == 0) ? 200 : 503);
			}
		}
		assertThat(this.server.seen()).extracting((seen) -> seen.field("Idempotency-Key"))
			.containsExactly("order-42", "order-42");
		assertThat(this.finished).extracting((event) -> event.spec().scope().provider())
			.containsExactly("payments", "payments");
		assertThat(this.finished).extracting(OperationFinishedEvent::outcome)
			.as("ten seconds do not fit the request's own three")
			.containsExactly(Outcome.SUCCESS, Outcome.WAIT_EXCEEDS_DEADLINE);
	}

	@Test
	void aGateThatRefusesTheFirstAttemptEndsTheCallWithNothingSent() throws IOException {
		this.server.script(Answer.status(503, "Retry-After: 5", "busy"));
		RetryPolicy failFast = RetryPolicy.DEFAULTS.toBuilder()
			.maxAttempts(1)
			.pacing(PacingSettings.builder().mode(PacingMode.FAIL_FAST).build())
			.build();
		OkHttpClient client = client(engine(failFast, null));
		try (Response first = client.newCall(get()).execute()) {
			assertThat(first.code()).isEqualTo(503);
		}
		RetryOutcomeException refused = catchThrowableOfType(() -> client.newCall(get()).execute(),
				RetryOutcomeException.class);
		assertThat(refused.outcome()).isEqualTo(Outcome.PROVIDER_COOLING_DOWN);
		assertThat(refused.attempts()).isZero();
		assertThat(this.server.seen()).as("only the call that met the outage").hasSize(1);
	}

	@Test
	void aCallCancelledBeforeItsFirstAttemptSendsNothing() {
		OkHttpClient client = client(engine(RetryPolicy.DEFAULTS, null));
		Call call = client.newCall(get());
		call.cancel();
		IOException thrown = catchThrowableOfType(call::execute, IOException.class);
		assertThat(thrown).isInstanceOfSatisfying(RetryOutcomeException.class,
				(outcome) -> assertThat(outcome.outcome()).isEqualTo(Outcome.CANCELLED));
		assertThat(this.server.seen()).isEmpty();
		assertThat(this.finished).extracting(OperationFinishedEvent::outcome).containsExactly(Outcome.CANCELLED);
	}

	@Test
	void aFirstResponseTheEngineThrowsOnIsClosedNotLeftHoldingItsConnection() {
		ResponseClassifier broken = (outcome) -> {
			throw new IllegalStateException("classifier failed");
		};
		ConnectionPool pool = new ConnectionPool();
		OkHttpClient client = new OkHttpClient.Builder().connectionPool(pool)
			.addInterceptor(RetryAfterInterceptor.builder()
				.engine(engine(RetryPolicy.DEFAULTS.toBuilder().classifier(broken).build(), null))
				.sleeper(this.clock)
				.build())
			.build();
		assertThatIllegalStateException().isThrownBy(() -> client.newCall(get()).execute())
			.withMessage("classifier failed");
		assertThat(this.server.seen()).extracting(Seen::method).containsExactly("GET");
		assertThat(pool.connectionCount() - pool.idleConnectionCount()).as("connections still in use").isZero();
	}

	private OkHttpClient client(RetryEngine engine) {
		return client(RetryAfterInterceptor.builder().engine(engine).sleeper(this.clock).build());
	}

	private OkHttpClient client(RetryAfterInterceptor interceptor) {
		return new OkHttpClient.Builder().addInterceptor(interceptor).build();
	}

	private RetryEngine engine(RetryPolicy policy, TokenBucketRetryBudget budget) {
		RetryEngine.Builder builder = RetryEngine.builder()
			.policy(policy)
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(() -> 0.0)
			.listener(new RetryListener() {

				@Override
				public void onAttempt(AttemptEvent event) {
					FirstAttemptTests.this.attempts.add(event);
				}

				@Override
				public void onOperationFinished(OperationFinishedEvent event) {
					FirstAttemptTests.this.finished.add(event);
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

}
