package io.github.retryafter.boot.observation;

import java.time.Duration;
import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientObservationAutoConfiguration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Boot's OpenTelemetry tracing and no tracing code, a call answered {@code 503 Retry-After: 1} then {@code 200}
 * is one {@code retry.after.operation} span holding two attempt spans, the server sees each attempt's own span id in
 * one trace, and the wait is an event on the operation's span: for RestClient, WebClient and an OkHttp client under
 * the starter.
 */
class RetryAfterTracingTests {

	private static final AttributeKey<String> RESEND_COUNT = AttributeKey.stringKey("http.request.resend_count");

	private final FlakyProvider provider = new FlakyProvider();

	private final InMemorySpanExporter spans = InMemorySpanExporter.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				RestClientObservationAutoConfiguration.class, WebClientAutoConfiguration.class,
				WebClientObservationAutoConfiguration.class, ObservationAutoConfiguration.class,
				MicrometerTracingAutoConfiguration.class, OpenTelemetrySdkAutoConfiguration.class,
				OpenTelemetryTracingAutoConfiguration.class))
		.withBean(SpanProcessor.class, () -> SimpleSpanProcessor.create(this.spans))
		.withBean(RandomSource.class, () -> () -> 0.0)
		.withPropertyValues("management.tracing.sampling.probability=1.0");

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void restClientSendsEachAttemptWithItsOwnSpanUnderOneOperationSpan() {
		this.provider.script("/traced", Reply.status(503).retryAfter("1"), Reply.ok());
		FakeClock clock = FakeClock.create();
		this.contextRunner.withBean(Ticker.class, () -> clock)
			.withBean(Sleeper.class, () -> clock::sleep)
			.run((context) -> {
				RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
				assertThat(client.get().uri("/traced").retrieve().toBodilessEntity().getStatusCode().value())
					.isEqualTo(200);
				assertTraced();
			});
	}

	@Test
	void webClientSendsEachAttemptWithItsOwnSpanUnderOneOperationSpan() {
		this.provider.script("/traced", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			WebClient client = context.getBean(WebClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			assertThat(client.get().uri("/traced").retrieve().toBodilessEntity().block(Duration.ofSeconds(10))
				.getStatusCode()
				.value()).isEqualTo(200);
			assertTraced();
		});
	}

	@Test
	void okHttpSendsEachAttemptWithItsOwnSpanUnderOneOperationSpan() {
		this.provider.script("/traced", Reply.status(503).retryAfter("1"), Reply.ok());
		FakeClock clock = FakeClock.create();
		this.contextRunner.withBean(Ticker.class, () -> clock)
			.withBean(Sleeper.class, () -> clock::sleep)
			.run((context) -> {
				okhttp3.OkHttpClient client = context.getBean(io.github.retryafter.boot.okhttp.RetryAfterOkHttp.class)
					.apply(new okhttp3.OkHttpClient.Builder())
					.build();
				try (okhttp3.Response response = client
					.newCall(new okhttp3.Request.Builder().url(this.provider.baseUrl() + "/traced").build())
					.execute()) {
					assertThat(response.code()).isEqualTo(200);
				}
				assertAttemptsTraced();
			});
	}

	private void assertTraced() {
		SpanData operation = assertAttemptsTraced();
		// the operation span sits inside Boot's own client span, in the same trace
		List<SpanData> finished = this.spans.getFinishedSpanItems();
		assertThat(finished).anySatisfy((span) -> assertThat(span.getSpanId()).isEqualTo(operation.getParentSpanId()));
	}

	private SpanData assertAttemptsTraced() {
		List<RecordedRequest> requests = this.provider.recorded();
		assertThat(requests).hasSize(2);
		String[] first = traceparent(requests.get(0));
		String[] second = traceparent(requests.get(1));
		assertThat(first[1]).as("trace id").isEqualTo(second[1]);
		assertThat(first[2]).as("span id").isNotEqualTo(second[2]);

		List<SpanData> finished = this.spans.getFinishedSpanItems();
		SpanData operation = finished.stream()
			.filter((span) -> span.getName().equals("retry GET"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no operation span in " + finished));
		List<SpanData> attempts = finished.stream()
			.filter((span) -> span.getParentSpanId().equals(operation.getSpanId()))
			.toList();
		assertThat(attempts).extracting(SpanData::getSpanId).containsExactlyInAnyOrder(first[2], second[2]);
		assertThat(attempts).allSatisfy((span) -> assertThat(span.getTraceId()).isEqualTo(first[1]));
		SpanData retry = attempts.stream()
			.filter((span) -> span.getSpanId().equals(second[2]))
			.findFirst()
			.orElseThrow();
		assertThat(retry.getAttributes().get(RESEND_COUNT)).isEqualTo("1");
		SpanData firstAttempt = attempts.stream()
			.filter((span) -> span.getSpanId().equals(first[2]))
			.findFirst()
			.orElseThrow();
		assertThat(firstAttempt.getAttributes().get(RESEND_COUNT)).isNull();
		assertThat(firstAttempt.getAttributes().get(AttributeKey.stringKey("status"))).isEqualTo("503");
		assertThat(operation.getAttributes().get(AttributeKey.stringKey("outcome"))).isEqualTo("SUCCESS");
		assertThat(operation.getAttributes().get(AttributeKey.stringKey("attempts"))).isEqualTo("2");
		// one wait, the server's one-second hint: a hold of the provider's gate as its cooldown ends is the same wait
		assertThat(operation.getEvents()).extracting(EventData::getName).containsExactly("wait 1.000s (RETRY_AFTER)");
		assertThat(operation.getTraceId()).isEqualTo(first[1]);
		return operation;
	}

	private static String[] traceparent(RecordedRequest request) {
		String value = request.getHeaders().get("traceparent");
		assertThat(value).as("traceparent").isNotNull().matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
		return value.split("-");
	}

}
