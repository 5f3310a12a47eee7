package io.github.retryafter.boot.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientObservationAutoConfiguration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.Cancellation;
import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.metrics.RetryAfterMetrics;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Answers the question with Spring Boot's own {@code http.client.requests} observation: with our interceptor
 * or filter on a client built from Boot's builder, it records one timing per logical operation, spanning every
 * attempt and every wait between them, while {@code retry.after.attempts} counts each attempt.
 */
class HttpClientRequestsObservationTests {

	private final FlakyProvider provider = new FlakyProvider();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestClientObservationAutoConfiguration.class,
				WebClientAutoConfiguration.class, WebClientObservationAutoConfiguration.class,
				ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("spring.http.clients.redirects=dont-follow", "retry.after.backoff.delay=2ms");

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void restClientRecordsOneTimingPerOperationThatEnclosesItsWaits() {
		this.provider.script("/lost", Reply.ok().responseLost(), Reply.ok());
		FakeClock clock = FakeClock.create();
		ObservedSleeper sleeper = new ObservedSleeper(clock);
		this.contextRunner.withBean(Ticker.class, () -> clock).withBean(Sleeper.class, () -> sleeper).run((context) -> {
			sleeper.registry = context.getBean(ObservationRegistry.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			assertThat(client.get().uri("/lost").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(this.provider.requests("/lost")).isEqualTo(2);
			assertThat(attempts(registry)).isEqualTo(2);
			Timer exchanges = registry.get("http.client.requests").timer();
			assertThat(exchanges.count()).isEqualTo(1);
			assertThat(exchanges.getId().getTag("status")).isEqualTo("200");
			// the wait between the attempts ran inside the operation's observation, itself inside http.client.requests
			assertThat(sleeper.observed).containsExactly("retry.after.operation < http.client.requests");
		});
	}

	@Test
	void webClientRecordsOneTimingPerOperationThatEnclosesItsWaits() {
		this.provider.script("/lost", Reply.ok().responseLost(), Reply.ok());
		this.contextRunner.run((context) -> {
			WebClient client = context.getBean(WebClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			long started = System.nanoTime();
			assertThat(client.get().uri("/lost").retrieve().toBodilessEntity().block(Duration.ofSeconds(10))
				.getStatusCode()
				.value()).isEqualTo(200);
			long elapsed = System.nanoTime() - started;
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(this.provider.requests("/lost")).isEqualTo(2);
			assertThat(attempts(registry)).isEqualTo(2);
			Timer exchanges = registry.get("http.client.requests").timer();
			assertThat(exchanges.count()).isEqualTo(1);
			assertThat(exchanges.getId().getTag("status")).isEqualTo("200");
			Timer waits = registry.get(RetryAfterMetrics.WAIT).tag("cause", "backoff").timer();
			assertThat(waits.count()).isEqualTo(1);
			// the one timing spans the wait between the attempts and both attempts, and nothing outside the call
			assertThat(exchanges.totalTime(TimeUnit.NANOSECONDS)).isGreaterThanOrEqualTo(waits.totalTime(TimeUnit.NANOSECONDS))
				.isLessThanOrEqualTo(elapsed);
		});
	}

	private static double attempts(MeterRegistry registry) {
		return registry.find(RetryAfterMetrics.ATTEMPTS)
			.functionCounters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	/** A sleeper on the test clock that notes which observation was current while it waited. */
	static final class ObservedSleeper implements Sleeper {

		private final FakeClock clock;

		private final List<String> observed = new CopyOnWriteArrayList<>();

		private volatile ObservationRegistry registry;

		ObservedSleeper(FakeClock clock) {
			this.clock = clock;
		}

		@Override
		public void sleep(Duration duration, Cancellation cancellation) throws InterruptedException {
			StringBuilder chain = new StringBuilder();
			for (ObservationView current = this.registry.getCurrentObservation(); current != null; current = current
				.getContextView()
				.getParentObservation()) {
				chain.append((chain.length() > 0) ? " < " : "").append(current.getContextView().getName());
			}
			this.observed.add((chain.length() > 0) ? chain.toString() : "none");
			this.clock.sleep(duration, cancellation);
		}

	}

}
