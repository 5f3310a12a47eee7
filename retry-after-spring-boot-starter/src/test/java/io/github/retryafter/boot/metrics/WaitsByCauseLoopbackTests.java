package io.github.retryafter.boot.metrics;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.actuate.RetryAfterEvents.Event;
import io.github.retryafter.boot.actuate.RetryAfterEvents.Type;
import io.github.retryafter.boot.actuate.RetryAfterEventsEndpoint;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEventsEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.engine.WaitCause;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GitHub's primary rate limit on loopback, under {@code profile: github}, through RestClient: {@code 403} with
 * {@code X-RateLimit-Remaining: 0} and {@code X-RateLimit-Reset} two seconds after the response's {@code Date}, then
 * {@code 200}. The provider's gate holds each retry until the reset while the engine planned only a backoff; the
 * {@code retry.after.wait} timer must account for the gaps between the requests the server saw, by cause, and the
 * events must show the cooldown the reset began before the end the probe reported. On the engine's fake clock (each
 * gap exactly as the server saw it), and once on real time.
 */
class WaitsByCauseLoopbackTests {

	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final FakeClock clock = FakeClock.create();

	private final MockWebServer server = new MockWebServer();

	private final List<Long> arrivals = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, RetryAfterEventsEndpointAutoConfiguration.class,
				RetryAfterEndpointAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("management.endpoints.web.exposure.include=retryafter,retryafterevents",
				"retry.after.providers.github.profile=github");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@Test
	void theWaitTimerByCauseAccountsForTheGapsTheServerSawAndTheResetsCooldownIsRecordedBeforeItsEnd()
			throws IOException {
		start(this.clock::read, 403, 403, 200);
		this.contextRunner.withBean(Ticker.class, () -> this.clock)
			.withBean(Sleeper.class, () -> this.clock)
			.withPropertyValues("retry.after.providers.github.hosts=" + this.server.getHostName())
			.run((context) -> {
				assertThat(get(context)).isEqualTo(200);
				List<Long> gaps = gaps();
				assertThat(gaps).as("each retry held until the reset, 2 s after the 403 that named it")
					.containsExactly(Duration.ofSeconds(2).toNanos(), Duration.ofSeconds(2).toNanos());
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				long seen = gaps.stream().mapToLong(Long::longValue).sum();
				assertThat(recorded(registry, null)).as("every wait recorded, as long as it lasted")
					.isGreaterThanOrEqualTo((long) (0.9 * seen))
					.isLessThanOrEqualTo(seen);
				assertThat(recorded(registry, WaitCause.WINDOW_RESET)).isGreaterThanOrEqualTo((long) (0.9 * seen));
				assertThat(timer(registry, WaitCause.WINDOW_RESET).count()).isEqualTo(2);
				assertThat(timer(registry, WaitCause.BACKOFF).count()).as("the 50 ms backoffs were parts, not waits")
					.isZero();
				List<Event> events = context.getBean(RetryAfterEventsEndpoint.class).events().events();
				List<Type> oldestFirst = new ArrayList<>(events.stream().map(Event::type).toList());
				Collections.reverse(oldestFirst);
				assertThat(oldestFirst).containsExactly(Type.COOLDOWN, Type.COOLDOWN, Type.COOLDOWN_ENDED);
				Event first = events.get(events.size() - 1);
				assertThat(first.provider()).isEqualTo("github");
				assertThat(first.outcome()).isEqualTo("STATUS_403");
				assertThat(first.reason())
					.isEqualTo("the provider's X-RateLimit-Reset closed the gate of 'github' for 2000 ms after"
							+ " attempt 1 (status 403)");
				assertThat(first.asked().field()).isEqualTo("X-RateLimit-Reset");
				RetryAfterEndpoint.LastRetryAfterDescriptor last = context.getBean(RetryAfterEndpoint.class)
					.provider("github")
					.lastRetryAfter();
				assertThat(last.value()).startsWith("X-RateLimit-Reset: ");
				assertThat(last.status()).isEqualTo(403);
				assertThat(last.decision()).isEqualTo("RETRY");
				assertThat(last.waitTime()).isEqualTo("PT2S");
				assertThat(last.source()).isEqualTo("WINDOW_RESET");
			});
	}

	@Test
	void onRealTimeTheRecordedWaitIsAtLeast90PercentOfTheGapTheServerSaw() throws IOException {
		start(System::nanoTime, 403, 200);
		this.contextRunner.withPropertyValues("retry.after.providers.github.hosts=" + this.server.getHostName())
			.run((context) -> {
				assertThat(get(context)).isEqualTo(200);
				long seen = gaps().get(0);
				assertThat(seen).isGreaterThanOrEqualTo(Duration.ofMillis(1900).toNanos());
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(recorded(registry, null)).isGreaterThanOrEqualTo((long) (0.9 * seen))
					.isLessThanOrEqualTo(seen);
				assertThat(timer(registry, WaitCause.WINDOW_RESET).count()).isEqualTo(1);
			});
	}

	/** Answers each request with the next status: a 403 whose window resets 2 s after its Date, or a 200. */
	private void start(LongSupplier arrival, int... statuses) throws IOException {
		this.server.setDispatcher(new Dispatcher() {

			@Override
			public MockResponse dispatch(RecordedRequest request) {
				int index = WaitsByCauseLoopbackTests.this.arrivals.size();
				WaitsByCauseLoopbackTests.this.arrivals.add(arrival.getAsLong());
				int status = statuses[Math.min(index, statuses.length - 1)];
				long date = Instant.now().getEpochSecond();
				return new MockResponse.Builder().code(status)
					.setHeader("Date", HTTP_DATE.format(Instant.ofEpochSecond(date)))
					.setHeader("X-RateLimit-Limit", "60")
					.setHeader("X-RateLimit-Remaining", (status == 403) ? "0" : "59")
					.setHeader("X-RateLimit-Reset", Long.toString(date + ((status == 403) ? 2 : 3600)))
					.body("status " + status)
					.build();
			}

		});
		this.server.start(InetAddress.getLoopbackAddress(), 0);
	}

	private int get(AssertableApplicationContext context) {
		RestClient rest = context.getBean(RestClient.Builder.class).build();
		return rest.get()
			.uri(this.server.url("/repos/o/r").toString())
			.exchange((request, response) -> response.getStatusCode().value());
	}

	private List<Long> gaps() {
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < this.arrivals.size(); i++) {
			gaps.add(this.arrivals.get(i) - this.arrivals.get(i - 1));
		}
		return gaps;
	}

	private static Timer timer(MeterRegistry registry, WaitCause cause) {
		return registry.get(RetryAfterMetrics.WAIT).tags("provider", "github", "cause", cause.tagValue()).timer();
	}

	/** The wait timer's total for github: one cause's, or every cause's. */
	private static long recorded(MeterRegistry registry, WaitCause cause) {
		return (long) registry.get(RetryAfterMetrics.WAIT)
			.tags("provider", "github")
			.timers()
			.stream()
			.filter((timer) -> cause == null || cause.tagValue().equals(timer.getId().getTag("cause")))
			.mapToDouble((timer) -> timer.totalTime(TimeUnit.NANOSECONDS))
			.sum();
	}

}
