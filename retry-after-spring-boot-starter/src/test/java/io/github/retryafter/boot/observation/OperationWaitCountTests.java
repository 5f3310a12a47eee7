package io.github.retryafter.boot.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.Cancellation;
import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code retry.after.operation.wait} counts the waits an operation took, one per wait before an attempt, however
 * often the provider's gate re-checked it meanwhile, and the operation's span tells each wait once: a user saw 135
 * for 21 operations and 16 retries, one per re-check of calls held behind a cooldown. Through RestClient and an
 * OkHttp client under the starter, on a test clock whose sleeps can close the provider's gate again, as a provider
 * still refusing (or another instance of the fleet) would.
 */
class OperationWaitCountTests {

	private static final String WAIT = DefaultRetryAfterOperationObservationConvention.NAME + "."
			+ RetryAfterObservations.WAIT_EVENT;

	private final FlakyProvider provider = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final GateClosingSleeper sleeper = new GateClosingSleeper(this.clock);

	private final EventNames events = new EventNames();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				RestClientObservationAutoConfiguration.class, ObservationAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(RandomSource.class, () -> () -> 0.0)
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.sleeper)
		.withBean("waitEvents", EventNames.class, () -> this.events)
		.withPropertyValues("retry.after.providers.payments.hosts=localhost");

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void restClientCallHeldAtTheGateThroughThreeReChecksTookOneWait() {
		this.provider.script("/held", Reply.ok());
		this.contextRunner.run((context) -> {
			this.sleeper.closeAgain(gate(context), 2);
			gate(context).closeUntil(this.clock.read() + Duration.ofSeconds(1).toNanos());
			assertThat(restClient(context).apply("/held")).isEqualTo(200);
			assertThat(this.sleeper.closed.get()).as("held, re-checked and held again twice").isEqualTo(2);
			assertThat(waits(context)).isEqualTo(1);
			assertThat(this.events.names).containsExactly("wait 1.000s (GATE)");
		});
	}

	@Test
	void okHttpCallHeldAtTheGateThroughThreeReChecksTookOneWait() {
		this.provider.script("/held", Reply.ok());
		this.contextRunner.run((context) -> {
			this.sleeper.closeAgain(gate(context), 2);
			gate(context).closeUntil(this.clock.read() + Duration.ofSeconds(1).toNanos());
			assertThat(okHttp(context).apply("/held")).isEqualTo(200);
			assertThat(this.sleeper.closed.get()).as("held, re-checked and held again twice").isEqualTo(2);
			assertThat(waits(context)).isEqualTo(1);
			assertThat(this.events.names).containsExactly("wait 1.000s (GATE)");
		});
	}

	@Test
	void aRetryTheGateThenHoldsIsOneWaitBetweenTwoAttempts() {
		this.provider.script("/retried", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			this.sleeper.closeAgain(gate(context), 1);
			assertThat(restClient(context).apply("/retried")).isEqualTo(200);
			assertThat(this.sleeper.closed.get()).as("the retry's wait, then the gate's hold").isEqualTo(1);
			assertThat(waits(context)).isEqualTo(1);
			assertThat(this.events.names).containsExactly("wait 1.000s (RETRY_AFTER)");
		});
	}

	@Test
	void eachWaitBetweenAttemptsIsCountedOnce() {
		this.provider.script("/twice", Reply.status(503).retryAfter("1"), Reply.status(503).retryAfter("2"),
				Reply.ok());
		this.contextRunner.run((context) -> {
			assertThat(okHttp(context).apply("/twice")).isEqualTo(200);
			assertThat(waits(context)).isEqualTo(2);
			assertThat(this.events.names).containsExactly("wait 1.000s (RETRY_AFTER)", "wait 2.000s (RETRY_AFTER)");
		});
	}

	private static ProviderGate gate(AssertableApplicationContext context) {
		return context.getBean(RetryAfterProviders.class).get("payments").orElseThrow().engine().gate("payments");
	}

	private Function<String, Integer> restClient(AssertableApplicationContext context) {
		RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
		return (path) -> client.get().uri(path).retrieve().toBodilessEntity().getStatusCode().value();
	}

	private Function<String, Integer> okHttp(AssertableApplicationContext context) {
		OkHttpClient client = context.getBean(RetryAfterOkHttp.class).apply(new OkHttpClient.Builder()).build();
		return (path) -> {
			try (okhttp3.Response response = client
				.newCall(new okhttp3.Request.Builder().url(this.provider.baseUrl() + path).build())
				.execute()) {
				return response.code();
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		};
	}

	private static double waits(AssertableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.find(WAIT)
			.tag("provider", "payments")
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	/**
	 * The test clock's sleeper; when a sleep ends where the gate's cooldown ends, it closes the gate for another second
	 * (as often as it is told to), so the operation it woke asks again and is held again. A sleep may be cut in
	 * slices (the OkHttp interceptor wakes every so often to look for a cancel).
	 */
	static final class GateClosingSleeper implements Sleeper {

		private final FakeClock clock;

		private final AtomicInteger closed = new AtomicInteger();

		private volatile ProviderGate gate;

		private volatile int closings;

		GateClosingSleeper(FakeClock clock) {
			this.clock = clock;
		}

		void closeAgain(ProviderGate gate, int times) {
			this.gate = gate;
			this.closings = times;
		}

		@Override
		public void sleep(Duration duration, Cancellation cancellation) throws InterruptedException {
			this.clock.sleep(duration, cancellation);
			ProviderGate closing = this.gate;
			if (closing != null && this.clock.read() - closing.cooldownUntilNanos() >= 0
					&& this.closed.get() < this.closings) {
				this.closed.incrementAndGet();
				closing.closeUntil(this.clock.read() + Duration.ofSeconds(1).toNanos());
			}
		}

	}

	/** Records the contextual name of every event on a {@code retry.after.operation} observation. */
	static final class EventNames implements ObservationHandler<Observation.Context> {

		private final List<String> names = new CopyOnWriteArrayList<>();

		@Override
		public void onEvent(Observation.Event event, Observation.Context context) {
			if (DefaultRetryAfterOperationObservationConvention.NAME.equals(context.getName())) {
				this.names.add(event.getContextualName());
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
