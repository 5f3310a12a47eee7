package io.github.retryafter.boot.metrics;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Prometheus scrape after traffic on four providers, with Boot's observations on, holds at most 40
 * {@code retry_after_*} series per provider (38 here, the observations' 19 included): a series for an operation's
 * outcome or a hint's error exists once that happened on that provider. With every outcome and error registered from
 * startup the same traffic made 64 a provider, most of them zeros that never moved (16 hint-refusal codes alone).
 */
class ScrapeSizeTests {

	private static final List<String> PROVIDERS = List.of("openai", "anthropic", "payments", "search");

	private static final int MOST_LINES_PER_PROVIDER = 40;

	private final FlakyProvider provider = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestClientObservationAutoConfiguration.class,
				ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean("prometheus", PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.clock::sleep)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues(PROVIDERS.stream()
			.map((name) -> "retry.after.providers." + name + ".hosts=" + name + ".example")
			.toArray(String[]::new));

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void aScrapeAfterTrafficOnFourProvidersHoldsAtMostFortySeriesPerProvider() {
		this.provider.script("/garbled", Reply.status(503).retryAfter("soon"), Reply.ok());
		this.contextRunner.run((context) -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			for (String name : PROVIDERS) {
				for (String path : List.of("/ok", "/hinted", "/limited", "/ok")) {
					// each provider's operations: a success, a Retry-After obeyed, a 429 retried twice (hinted, then
					// after a backoff), another success
					this.provider.script(path, replies(path));
					assertThat(client.get()
						.uri(path)
						.attributes(RetryAfterAttributes.provider(name))
						.retrieve()
						.toBodilessEntity()
						.getStatusCode()
						.value()).isEqualTo(200);
				}
			}
			// one unusable Retry-After, on one provider
			assertThat(client.get()
				.uri("/garbled")
				.attributes(RetryAfterAttributes.provider("payments"))
				.retrieve()
				.toBodilessEntity()
				.getStatusCode()
				.value()).isEqualTo(200);
			String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
			Map<String, Long> lines = linesPerProvider(scrape);
			assertThat(lines).as("retry_after_* lines per provider").containsKeys(PROVIDERS.toArray(String[]::new));
			assertThat(lines).as("retry_after_* lines per provider: %s", lines)
				.allSatisfy((name, count) -> assertThat(count).as(name).isLessThanOrEqualTo(MOST_LINES_PER_PROVIDER));
			assertThat(scrape.lines().filter((line) -> line.startsWith("retry_after_hint_refusals_total{")))
				.as("hint refusals: only the code that happened, where it happened")
				.containsExactly("retry_after_hint_refusals_total{error=\"INVALID_DELAY\",provider=\"payments\"} 1.0");
		});
	}

	private static Reply[] replies(String path) {
		return switch (path) {
			case "/hinted" -> new Reply[] { Reply.status(503).retryAfter("1"), Reply.ok() };
			case "/limited" -> new Reply[] { Reply.status(429).retryAfter("2"), Reply.status(429), Reply.ok() };
			default -> new Reply[] { Reply.ok() };
		};
	}

	/** Counts the scrape's {@code retry_after_*} series by their {@code provider} tag. */
	private static Map<String, Long> linesPerProvider(String scrape) {
		Map<String, Long> lines = new TreeMap<>();
		scrape.lines().filter((line) -> line.startsWith("retry_after_")).forEach((line) -> {
			int at = line.indexOf("provider=\"");
			if (at >= 0) {
				int from = at + "provider=\"".length();
				lines.merge(line.substring(from, line.indexOf('"', from)), 1L, Long::sum);
			}
		});
		return lines;
	}

}
