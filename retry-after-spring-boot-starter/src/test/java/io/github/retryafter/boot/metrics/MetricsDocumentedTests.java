package io.github.retryafter.boot.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Meter;

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
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.Drive;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.engine.WaitCause;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every meter family the starter puts in a Prometheus scrape (its meters and its observations' timers, after
 * RestClient operations that waited, retried and met an unusable {@code Retry-After}) is listed in
 * docs/metrics-and-tracing.md under its Prometheus name, as the Micrometer type it is, and carries a {@code # HELP}
 * text that says more than its name; and every cause a wait is tagged with is listed. The fleet's meters need a
 * store: their rows' types are checked for form only.
 */
class MetricsDocumentedTests {

	private final FlakyProvider provider = new FlakyProvider();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestClientObservationAutoConfiguration.class,
				ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean("prometheus", PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
		.withBean(FakeClock.class, FakeClock::create)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("retry.after.providers.payments.hosts=localhost");

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	private static final Path DOCS = Path.of("..", "docs", "metrics-and-tracing.md");

	// a row of the metrics table: | `meter` (note) | `prometheus name` | Micrometer type | tags | meaning |
	private static final Pattern ROW = Pattern.compile("^\\| `(retry\\.after\\.[a-z.]+)`[^|]*\\| `retry_after_[^|]*\\| ([^|]*) \\|",
			Pattern.MULTILINE);

	private static final Set<String> MICROMETER_TYPES = Set.of("`Counter`", "`FunctionCounter`", "`Timer`",
			"`FunctionTimer`", "`LongTaskTimer`", "`DistributionSummary`", "`Gauge`", "`TimeGauge`");

	@Test
	void everyMeterFamilyInTheScrapeIsDocumentedWithAHelpText() throws IOException {
		String docs = Files.readString(DOCS);
		this.contextRunner.run((context) -> {
			sendTraffic(context);
			Map<String, String> help = new TreeMap<>();
			context.getBean(PrometheusMeterRegistry.class)
				.scrape()
				.lines()
				.filter((line) -> line.startsWith("# HELP retry_after_"))
				.forEach((line) -> {
					String rest = line.substring("# HELP ".length());
					int space = rest.indexOf(' ');
					help.put((space < 0) ? rest : rest.substring(0, space), (space < 0) ? "" : rest.substring(space + 1));
				});
			assertThat(help).as("families scraped").containsKeys("retry_after_window_remaining",
					"retry_after_window_limit", "retry_after_window_reset_seconds", "retry_after_operations_total",
					"retry_after_attempts_total", "retry_after_operation_seconds", "retry_after_attempt_seconds");
			assertThat(help.keySet()).as("families missing from docs/metrics-and-tracing.md")
				.allSatisfy((family) -> assertThat(docs).contains("`" + family.replaceFirst("_max$", "")));
			assertThat(help).as("families whose # HELP text says nothing").allSatisfy((family, text) -> assertThat(text)
				.as(family)
				.isNotBlank()
				.hasSizeGreaterThan(12));
		});
	}

	@Test
	void everyCauseOfAWaitIsATagValueTheWaitRowAndItsTableName() throws IOException {
		String docs = Files.readString(Path.of("..", "docs", "metrics-and-tracing.md"));
		String row = docs.lines()
			.filter((line) -> line.startsWith("| `" + RetryAfterMetrics.WAIT + "` |"))
			.findFirst()
			.orElseThrow();
		for (WaitCause cause : WaitCause.values()) {
			assertThat(row).as("the %s row", RetryAfterMetrics.WAIT).contains("`" + cause.tagValue() + "`");
			assertThat(docs).as("the causes' table").containsPattern("(?m)^\\| `[^|]*" + cause.tagValue() + "`");
		}
	}

	@Test
	void everyMeterIsDocumentedAsTheMicrometerTypeItIs() throws IOException {
		Map<String, String> documented = documentedTypes();
		assertThat(documented).as("rows of the metrics table").hasSizeGreaterThanOrEqualTo(20);
		assertThat(documented).as("types that are not Micrometer's")
			.allSatisfy((meter, type) -> assertThat(MICROMETER_TYPES).as(meter).contains(type));
		this.contextRunner.run((context) -> {
			sendTraffic(context);
			Map<String, String> registered = new TreeMap<>();
			context.getBean(PrometheusMeterRegistry.class)
				.getMeters()
				.stream()
				.filter((meter) -> meter.getId().getName().startsWith("retry.after."))
				.forEach((meter) -> registered.put(meter.getId().getName(), "`" + micrometerType(meter) + "`"));
			assertThat(registered).as("meters registered").containsKeys(RetryAfterMetrics.OPERATIONS,
					RetryAfterMetrics.WAIT, RetryAfterMetrics.HINT_REFUSALS, RetryAfterMetrics.WINDOW_RESET,
					"retry.after.operation", "retry.after.operation.active", "retry.after.operation.wait");
			assertThat(registered).allSatisfy((meter, type) -> assertThat(documented.get(meter))
				.as("the type docs/metrics-and-tracing.md gives %s", meter)
				.isEqualTo(type));
		});
	}

	/**
	 * Two operations: one answered {@code 503 Retry-After: 1} then {@code 200}, one whose {@code Retry-After} cannot be
	 * read, answered {@code 200} after a backoff; and one answered with an {@code X-RateLimit-*} window, for the window
	 * gauges.
	 */
	private void sendTraffic(AssertableApplicationContext context) {
		this.provider.script("/pay", Reply.status(503).retryAfter("1"), Reply.ok());
		this.provider.script("/garbled", Reply.status(503).retryAfter("soon"), Reply.ok());
		RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
		assertThat(client.get().uri("/pay").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
		assertThat(client.get().uri("/garbled").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
		Drive.operation(context.getBean(RetryAfterProviders.class), "payments", context.getBean(FakeClock.class),
				HeaderSource.of(Map.of("X-RateLimit-Remaining", List.of("7"), "X-RateLimit-Reset", List.of("30"))), 200);
	}

	private static Map<String, String> documentedTypes() throws IOException {
		Map<String, String> types = new TreeMap<>();
		Matcher row = ROW.matcher(Files.readString(DOCS));
		while (row.find()) {
			types.put(row.group(1), row.group(2).trim());
		}
		return types;
	}

	private static String micrometerType(Meter meter) {
		return meter.match((gauge) -> "Gauge", (counter) -> "Counter", (timer) -> "Timer",
				(summary) -> "DistributionSummary", (longTaskTimer) -> "LongTaskTimer", (timeGauge) -> "TimeGauge",
				(functionCounter) -> "FunctionCounter", (functionTimer) -> "FunctionTimer", (other) -> "Meter");
	}

}
