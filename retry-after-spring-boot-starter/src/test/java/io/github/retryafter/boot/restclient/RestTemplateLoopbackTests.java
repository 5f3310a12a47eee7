package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestTemplate;

import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestTemplateAutoConfiguration;
import io.github.retryafter.boot.metrics.RetryAfterMetrics;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A {@link RestTemplate} built from Spring Boot's {@link RestTemplateBuilder} retries as a {@code RestClient} does,
 * against a real server on loopback and the real clock: the same interceptor (waits, meters, observations, events,
 * replay rules, attempt timeouts), the template's own error handler deciding what the caller gets, with the hand-over
 * attached to what it throws. One case waits a real second (the hint), one a real 300 ms (an attempt timeout).
 */
class RestTemplateLoopbackTests {

	private final FlakyProvider provider = new FlakyProvider();

	private final RecordingListener events = new RecordingListener();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterRestTemplateAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestTemplateAutoConfiguration.class,
				RestTemplateObservationAutoConfiguration.class, ObservationAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(RetryListener.class, () -> this.events)
		.withPropertyValues("spring.http.clients.imperative.factory=jdk", "retry.after.backoff.delay=10ms");

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void retriesNoEarlierThanTheHintAndCountsWhatTheServerSaw() {
		this.provider.script("/busy", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			ResponseEntity<String> response = template(context).getForEntity("/busy", String.class);
			assertThat(response.getStatusCode().value()).isEqualTo(200);
			assertThat(response.getBody()).isEqualTo("status 200");
			List<Long> arrivals = this.provider.arrivalNanos("/busy");
			assertThat(arrivals).hasSize(2);
			// the 503 left the server after the first request arrived: a second a second later is no earlier
			assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(attempts(registry, "FIRST") + attempts(registry, "RETRY")).isEqualTo(arrivals.size());
			assertThat(attempts(registry, "RETRY")).isEqualTo(1);
			assertThat(registry.find("retry.after.attempt").timers()).extracting((timer) -> timer.getId().getTag("status"))
				.containsExactlyInAnyOrder("503", "200");
			// the template's own observation is one per call, around the attempts and the wait
			assertThat(registry.get("http.client.requests").timer().count()).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.SUCCESS);
			assertThat(this.events.last().attempts()).isEqualTo(2);
		});
	}

	@Test
	void aGiveUpEndsWithTheTemplatesOwnExceptionCarryingTheHandOver() {
		this.provider.script("/later", Reply.status(429).retryAfter("3600"), Reply.ok());
		this.contextRunner.run((context) -> {
			Throwable thrown = catchThrowable(() -> template(context).getForEntity("/later", String.class));
			assertThat(thrown).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(((HttpClientErrorException) thrown).getResponseBodyAsString()).isEqualTo("status 429");
			assertThat(this.provider.requests("/later")).isEqualTo(1);
			assertThat(outcomeOn(thrown).outcome().outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
			assertThat(NotBefore.find(thrown).orElseThrow().remaining()).isBetween(Duration.ofSeconds(3590),
					Duration.ofSeconds(3600));
		});
	}

	@Test
	void anErrorHandlerACustomizerSetsStillDecidesAndCarriesTheHandOver() {
		RestTemplateCustomizer customizer = (template) -> template.setErrorHandler(new AppErrorHandler());
		this.provider.script("/later", Reply.status(429).retryAfter("3600"));
		this.contextRunner.withBean(RestTemplateCustomizer.class, () -> customizer).run((context) -> {
			Throwable thrown = catchThrowable(() -> template(context).getForEntity("/later", String.class));
			assertThat(thrown).isInstanceOf(AppStatusException.class).hasMessage("429");
			assertThat(outcomeOn(thrown).outcome().outcome()).isEqualTo(Outcome.WAIT_TOO_LONG);
		});
	}

	@Test
	void anErrorHandlerSetOnTheBuilderThatSeesNoErrorGetsTheResponse() {
		ResponseErrorHandler none = new ResponseErrorHandler() {
			@Override
			public boolean hasError(ClientHttpResponse response) {
				return false;
			}

			@Override
			public void handleError(URI url, HttpMethod method, ClientHttpResponse response) {
				throw new AssertionError("not an error");
			}
		};
		this.provider.script("/later", Reply.status(429).retryAfter("3600"));
		this.contextRunner.run((context) -> {
			RestTemplate template = context.getBean(RestTemplateBuilder.class)
				.rootUri(this.provider.baseUrl())
				.errorHandler(none)
				.build();
			ResponseEntity<String> response = template.getForEntity("/later", String.class);
			assertThat(response.getStatusCode().value()).isEqualTo(429);
			assertThat(response.getBody()).isEqualTo("status 429");
			assertThat(this.provider.requests("/later")).isEqualTo(1);
		});
	}

	@Test
	void aPostWithoutAKeyIsSentOnce() {
		this.provider.script("/orders", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			Throwable thrown = catchThrowable(() -> template(context).postForEntity("/orders", "{}", String.class));
			assertThat(thrown).isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
			assertThat(this.provider.requests("/orders")).isEqualTo(1);
			assertThat(this.provider.recorded().get(0).getHeaders().get("Idempotency-Key")).isNull();
			assertThat(outcomeOn(thrown).outcome().outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		});
	}

	@Test
	void aPostIsReplayedWithTheSameKeyAndBodyWhenTheProviderHonoursKeys() {
		this.provider.script("/orders", Reply.status(503), Reply.status(201));
		this.contextRunner.withPropertyValues("retry.after.idempotency-key.enabled=true").run((context) -> {
			ResponseEntity<String> response = template(context).postForEntity("/orders", "{\"sku\":42}",
					String.class);
			assertThat(response.getStatusCode().value()).isEqualTo(201);
			assertThat(this.provider.requests("/orders")).isEqualTo(2);
			String first = this.provider.recorded().get(0).getHeaders().get("Idempotency-Key");
			assertThat(first).isNotBlank()
				.isEqualTo(this.provider.recorded().get(1).getHeaders().get("Idempotency-Key"));
			assertThat(this.provider.recorded()).allSatisfy(
					(request) -> assertThat(request.getBody().utf8()).isEqualTo("{\"sku\":42}"));
		});
	}

	@Test
	void anAttemptThatGetsNoAnswerIsTimedOutAndRetried() {
		this.provider.script("/slow", Reply.ok().delayed(Duration.ofSeconds(5)), Reply.ok());
		this.contextRunner.withPropertyValues("retry.after.attempt-timeout=300ms").run((context) -> {
			long start = System.nanoTime();
			ResponseEntity<String> response = template(context).getForEntity("/slow", String.class);
			assertThat(response.getStatusCode().value()).isEqualTo(200);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(this.provider.requests("/slow")).isEqualTo(2);
		});
	}

	@Test
	void theApplicationsInterceptorsOnTheBuilderRunOncePerCall() {
		AtomicInteger calls = new AtomicInteger();
		ClientHttpRequestInterceptor counting = (request, body, execution) -> {
			calls.incrementAndGet();
			return execution.execute(request, body);
		};
		this.provider.script("/busy", Reply.status(503), Reply.ok());
		this.contextRunner.run((context) -> {
			RestTemplate template = context.getBean(RestTemplateBuilder.class)
				.rootUri(this.provider.baseUrl())
				.additionalInterceptors(counting)
				.build();
			assertThat(template.getForEntity("/busy", String.class).getStatusCode().value()).isEqualTo(200);
			assertThat(this.provider.requests("/busy")).isEqualTo(2);
			assertThat(calls).hasValue(1);
			assertThat(template.getInterceptors().get(template.getInterceptors().size() - 1))
				.isSameAs(context.getBean(RetryAfterClientHttpRequestInterceptor.class));
		});
	}

	@Test
	void staysOnWithTheRestClientSwitchedOffAndTurnsOffWithItsOwnSwitch() {
		this.contextRunner.withPropertyValues("retry.after.rest-client.enabled=false").run((context) -> {
			assertThat(context).hasSingleBean(RetryAfterClientHttpRequestInterceptor.class)
				.hasBean("retryAfterRestTemplateCustomizer")
				.hasBean("retryAfterHttpComponentsRetryDisabler")
				.doesNotHaveBean("retryAfterRestClientCustomizer");
			assertThat(template(context).getInterceptors())
				.contains(context.getBean(RetryAfterClientHttpRequestInterceptor.class));
		});
		this.contextRunner.withPropertyValues("retry.after.rest-template.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean("retryAfterRestTemplateCustomizer")
				.hasBean("retryAfterRestClientCustomizer");
			assertThat(template(context).getInterceptors()).isEmpty();
		});
		this.contextRunner.withPropertyValues("retry.after.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("retryAfterRestTemplateCustomizer")
				.doesNotHaveBean(RetryAfterClientHttpRequestInterceptor.class));
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnCustomizerOfThatName() {
		RestTemplateCustomizer mine = (template) -> {
		};
		this.contextRunner.withBean("retryAfterRestTemplateCustomizer", RestTemplateCustomizer.class, () -> mine)
			.run((context) -> {
				assertThat(context.getBean("retryAfterRestTemplateCustomizer")).isSameAs(mine);
				assertThat(template(context).getInterceptors()).isEmpty();
			});
	}

	@Test
	void worksWithoutBootsRestTemplateSupport() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RestTemplateCustomizer.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("retryAfterRestTemplateCustomizer")
				.hasBean("retryAfterRestClientCustomizer"));
	}

	private RestTemplate template(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RestTemplateBuilder.class).rootUri(this.provider.baseUrl()).build();
	}

	private static double attempts(MeterRegistry registry, String kind) {
		return registry.get(RetryAfterMetrics.ATTEMPTS).tags("provider", "default", "kind", kind).functionCounter()
			.count();
	}

	private static RetryAfterOutcomeException outcomeOn(Throwable thrown) {
		return Arrays.stream(thrown.getSuppressed())
			.filter(RetryAfterOutcomeException.class::isInstance)
			.map(RetryAfterOutcomeException.class::cast)
			.findFirst()
			.orElseThrow(() -> new AssertionError("no hand-over on " + thrown, thrown));
	}

	/** An application's own error handling: its own exception for any error status. */
	static final class AppErrorHandler implements ResponseErrorHandler {

		@Override
		public boolean hasError(ClientHttpResponse response) throws IOException {
			return response.getStatusCode().isError();
		}

		@Override
		public void handleError(URI url, HttpMethod method, ClientHttpResponse response) throws IOException {
			throw new AppStatusException(Integer.toString(response.getStatusCode().value()));
		}

	}

	/** An application's own exception for an error status. */
	static final class AppStatusException extends RuntimeException {

		AppStatusException(String message) {
			super(message);
		}

	}

}
