package io.github.retryafter.boot.restclient;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import io.github.retryafter.Cancellation;
import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.DelaySource;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The RestClient interceptor against a real server on loopback, with a test clock so nothing waits for real.
 */
class RestClientRetryIntegrationTests {

	private final FlakyProvider provider = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final RecordingListener events = new RecordingListener();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.clock)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> this.events)
		.withPropertyValues("spring.http.clients.redirects=dont-follow")
		.withAllowBeanDefinitionOverriding(true);

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void waitsTheDelaySecondsPlusJitterAboveThem() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		run((client) -> {
			ResponseEntity<String> response = client.get().uri("/seconds").retrieve().toEntity(String.class);
			assertThat(response.getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/seconds")).isEqualTo(2);
			// floor 3 s, spread clamp(0.75 s), draw 0.5: 3.375 s, never less than the server's 3 s
			assertThat(this.clock.elapsed()).isEqualTo(Duration.ofMillis(3375));
			assertThat(this.events.retries.get(0).source()).isEqualTo(DelaySource.RETRY_AFTER);
		});
	}

	@Test
	void exactModeWaitsExactlyWhatTheDateFormSays() {
		this.provider.script("/date", Reply.status(503).retryAfterDate(Duration.ofSeconds(7)), Reply.ok());
		run((client) -> {
			assertThat(client.get().uri("/date").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/date")).isEqualTo(2);
			assertThat(this.clock.elapsed()).isEqualTo(Duration.ofSeconds(7));
		}, "retry.after.hint-mode=exact");
	}

	@Test
	void serverClockFortySecondsOffStillGivesTheRightWait() {
		for (Duration offset : List.of(Duration.ofSeconds(40), Duration.ofSeconds(-40), Duration.ofDays(1))) {
			FakeClock local = FakeClock.create();
			this.provider.clockOffset(offset)
				.script("/date", Reply.status(503).retryAfterDate(Duration.ofSeconds(7)), Reply.ok());
			this.contextRunner.withBean(Ticker.class, () -> local)
				.withBean(Sleeper.class, () -> local)
				.withPropertyValues("retry.after.hint-mode=exact")
				.run((context) -> {
					client(context).get().uri("/date").retrieve().toBodilessEntity();
					assertThat(local.elapsed()).as("server clock off by %s", offset).isEqualTo(Duration.ofSeconds(7));
				});
		}
	}

	@Test
	void invalidAndMissingRetryAfterFallBackToBackoff() {
		this.provider.script("/invalid", Reply.status(503).retryAfter("later"), Reply.ok());
		this.provider.script("/missing", Reply.status(503), Reply.ok());
		run((client) -> {
			client.get().uri("/invalid").retrieve().toBodilessEntity();
			client.get().uri("/missing").retrieve().toBodilessEntity();
			assertThat(this.provider.requests("/invalid")).isEqualTo(2);
			assertThat(this.provider.requests("/missing")).isEqualTo(2);
			// backoff ceiling 100 ms after the first failure, draw 0.5
			assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(50));
			assertThat(this.events.retries).allSatisfy((retry) -> assertThat(retry.source()).isEqualTo(DelaySource.BACKOFF));
			assertThat(this.events.retries.get(0).decision().refusedHint()).isPresent();
		});
	}

	@Test
	void redirectWithRetryAfterIsNeitherFollowedNorRetried() {
		this.provider.script("/redirect", Reply.status(307).retryAfter("3").location("/ready"));
		this.provider.script("/ready", Reply.ok());
		run((client) -> {
			ResponseEntity<Void> response = client.get().uri("/redirect").retrieve().toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(307);
			assertThat(this.provider.requests("/redirect")).isEqualTo(1);
			assertThat(this.provider.requests("/ready")).isZero();
			assertThat(this.clock.sleeps()).isEmpty();
		});
	}

	@Test
	void clientErrorsAreNotRetried() {
		for (int status : new int[] { 400, 401, 404, 422 }) {
			this.provider.script("/e" + status, Reply.status(status));
		}
		run((client) -> {
			for (int status : new int[] { 400, 401, 404, 422 }) {
				ResponseEntity<Void> response = client.get()
					.uri("/e" + status)
					.retrieve()
					.onStatus((code) -> true, (request, resp) -> {
					})
					.toBodilessEntity();
				assertThat(response.getStatusCode().value()).isEqualTo(status);
				assertThat(this.provider.requests("/e" + status)).isEqualTo(1);
			}
			assertThat(this.events.finished).extracting((event) -> event.outcome()).containsOnly(Outcome.NOT_RETRYABLE);
			assertThat(this.clock.sleeps()).isEmpty();
		});
	}

	@Test
	void postWithoutKeyIsNotRetried() {
		this.provider.script("/orders", Reply.status(503).retryAfter("1"), Reply.ok());
		run((client) -> {
			ResponseEntity<Void> response = client.post()
				.uri("/orders")
				.body("{}")
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(503);
			assertThat(this.provider.requests("/orders")).isEqualTo(1);
			assertThat(this.provider.recorded().get(0).getHeaders().get("Idempotency-Key")).isNull();
		});
	}

	@Test
	void createAppliedButResponseLostIsRetriedWithTheSameKeyAndHeldOnce() {
		this.provider.script("/orders", Reply.status(201).creates().responseLost(), Reply.status(201).creates());
		run((client) -> {
			ResponseEntity<Void> response = client.post().uri("/orders").body("{}").retrieve().toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(201);
			assertThat(this.provider.requests("/orders")).isEqualTo(2);
			String first = this.provider.recorded().get(0).getHeaders().get("Idempotency-Key");
			String second = this.provider.recorded().get(1).getHeaders().get("Idempotency-Key");
			assertThat(first).isNotBlank().isEqualTo(second);
			assertThat(this.provider.records(first)).isEqualTo(1);
			assertThat(this.provider.totalRecords()).isEqualTo(1);
		}, "retry.after.idempotency-key.enabled=true");
	}

	@Test
	void createWithoutKeyWhoseResponseIsLostEndsAsOutcomeUnknownAfterOneRequest() {
		this.provider.script("/orders", Reply.status(201).creates().responseLost(), Reply.status(201).creates());
		run((client) -> {
			AtomicReference<RetryOutcome> outcome = new AtomicReference<>();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> client.post()
				.uri("/orders")
				.attributes(RetryAfterAttributes.onOutcome(outcome::set))
				.body("{}")
				.retrieve()
				.toBodilessEntity());
			assertThat(this.provider.requests("/orders")).isEqualTo(1);
			assertThat(this.provider.totalRecords()).isEqualTo(1);
			assertThat(outcome.get().outcome()).isEqualTo(Outcome.OUTCOME_UNKNOWN);
		});
	}

	@Test
	void idempotencyKeyWithControlCharactersIsRefusedBeforeAnythingIsSent() {
		this.provider.script("/orders", Reply.ok());
		run((client) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> client.post()
				.uri("/orders")
				.attribute(RetryAfterAttributes.IDEMPOTENCY_KEY, "order-1\r\nX-Injected: yes")
				.body("{}")
				.retrieve()
				.toBodilessEntity())
				.withMessageContaining(RetryAfterAttributes.IDEMPOTENCY_KEY)
				.withMessageContaining("U+000D")
				.withMessageNotContaining("X-Injected");
			assertThat(this.provider.requests("/orders")).isZero();
		});
	}

	@Test
	void bodyLargerThanTheReplayLimitIsSentOnce() {
		this.provider.script("/upload", Reply.status(503).retryAfter("1"), Reply.ok());
		run((client) -> {
			ResponseEntity<Void> response = client.put()
				.uri("/upload")
				.body("x".repeat(2048))
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(503);
			assertThat(this.provider.requests("/upload")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
			assertThat(this.events.last().reason()).contains("cannot be replayed");
		}, "retry.after.max-replay-body=1KB");
	}

	@Test
	void retriesTheProviderAskedForGoWithoutTokensAndTheBudgetKeepsItsOne() {
		this.provider.script("/busy", Reply.status(503).retryAfter("1"), Reply.status(429).retryAfter("1"), Reply.ok());
		run((client) -> {
			assertThat(client.get().uri("/busy").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/busy")).isEqualTo(3);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.SUCCESS);
			assertThat(this.events.last().attempts()).isEqualTo(3);
		}, "retry.after.max-attempts=5", "retry.after.budget.capacity=1", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0");
	}

	@Test
	void withHintedRetriesOnTokensTheOneTokenStopsTheSecondHintedRetry() {
		this.provider.script("/busy", Reply.status(503).retryAfter("1"));
		run((client) -> {
			ResponseEntity<Void> response = client.get()
				.uri("/busy")
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(503);
			assertThat(this.provider.requests("/busy")).isEqualTo(2);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED);
		}, "retry.after.max-attempts=5", "retry.after.budget.capacity=1", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0", "retry.after.hinted-retries=tokens");
	}

	@Test
	void emptyBudgetStopsRetriesAndTheServerSeesNoMore() {
		// no hint: the budget bounds these retries (a hinted one, held by the gate, takes no token: below)
		this.provider.script("/down", Reply.status(503));
		run((client) -> {
			ResponseEntity<Void> response = client.get()
				.uri("/down")
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(503);
			// one token: the first retry takes it, the second is refused
			assertThat(this.provider.requests("/down")).isEqualTo(2);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.BUDGET_EXHAUSTED);
		}, "retry.after.max-attempts=5", "retry.after.budget.capacity=1", "retry.after.budget.refill-per-second=0",
				"retry.after.budget.deposit-ratio=0");
	}

	@Test
	void waitLongerThanTheDeadlineStopsWithoutWaiting() {
		this.provider.script("/slow", Reply.status(429).retryAfter("30"), Reply.ok());
		run((client) -> {
			client.get().uri("/slow").retrieve().onStatus((code) -> true, (request, resp) -> {
			}).toBodilessEntity();
			assertThat(this.provider.requests("/slow")).isEqualTo(1);
			assertThat(this.clock.sleeps()).isEmpty();
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
		}, "retry.after.deadline=5s", "retry.after.max-wait=1m");
	}

	@Test
	void saturatedRetryAfterEndsAsWaitTooLongWithDefaults() {
		this.provider.script("/forever", Reply.status(503).retryAfter("9".repeat(5000)), Reply.ok());
		run((client) -> {
			client.get().uri("/forever").retrieve().onStatus((code) -> true, (request, resp) -> {
			}).toBodilessEntity();
			assertThat(this.provider.requests("/forever")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		});
	}

	@Test
	void interruptedDuringTheWaitSendsNoFurtherRequest() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		Sleeper interrupting = (duration, cancellation) -> {
			throw new InterruptedException("test interrupt");
		};
		this.contextRunner.withBean(Sleeper.class, () -> interrupting).run((context) -> {
			assertThatExceptionOfType(Exception.class)
				.isThrownBy(() -> client(context).get().uri("/seconds").retrieve().toBodilessEntity())
				.withRootCauseInstanceOf(InterruptedException.class)
				.satisfies((ex) -> assertThat(ex).hasCauseInstanceOf(InterruptedIOException.class));
			assertThat(Thread.interrupted()).isTrue();
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.CANCELLED);
		});
	}

	@Test
	void closingTheContextCancelsAPendingWait() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		AtomicReference<RetryAfterOperations> operations = new AtomicReference<>();
		Sleeper closing = (duration, cancellation) -> {
			operations.get().close();
			cancellation.awaitCancellation(Duration.ofSeconds(10));
		};
		this.contextRunner.withBean(Sleeper.class, () -> closing).run((context) -> {
			operations.set(context.getBean(RetryAfterOperations.class));
			ResponseEntity<Void> response = client(context).get()
				.uri("/seconds")
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(429);
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.CANCELLED);
		});
	}

	@Test
	void transportsOwnRetriesAreOffSoTheServerSeesExactlyTheEnginesAttempts() {
		this.provider.script("/once", Reply.status(503).retryAfter("1"), Reply.ok());
		run((client) -> {
			client.get().uri("/once").retrieve().onStatus((code) -> true, (request, resp) -> {
			}).toBodilessEntity();
			assertThat(this.events.attempts).hasSize(1);
			assertThat(this.provider.requests("/once")).isEqualTo(1);
		}, "retry.after.max-attempts=1");
	}

	@Test
	void disabledAttributeSendsTheRequestOnce() {
		this.provider.script("/seconds", Reply.status(429).retryAfter("3"), Reply.ok());
		run((client) -> {
			ResponseEntity<Void> response = client.get()
				.uri("/seconds")
				.attributes(RetryAfterAttributes.disabled())
				.retrieve()
				.onStatus((code) -> true, (request, resp) -> {
				})
				.toBodilessEntity();
			assertThat(response.getStatusCode().value()).isEqualTo(429);
			assertThat(this.provider.requests("/seconds")).isEqualTo(1);
			assertThat(this.events.attempts).isEmpty();
		});
	}

	private void run(ClientAssertions assertions, String... properties) {
		this.contextRunner.withPropertyValues(properties)
			.run((ContextConsumer<AssertableApplicationContext>) (context) -> assertions.accept(client(context)));
	}

	private RestClient client(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
	}

	@FunctionalInterface
	interface ClientAssertions {

		void accept(RestClient client) throws Exception;

	}

}
