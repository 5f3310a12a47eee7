package io.github.retryafter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.fleet.redis.RedisFleetSettings;
import io.github.retryafter.boot.fleet.redis.RedisFleet;
import io.github.retryafter.boot.metrics.RetryAfterFleetMetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Proves the Grafana dashboard works without Grafana: starts Debian's Prometheus on a free loopback port scraping this
 * app every second, runs scenarios, and evaluates every panel's PromQL from {@code grafana/retry-after-dashboard.json}
 * through Prometheus's HTTP API as Grafana would (a range query, the template variables substituted), asserting each
 * returns at least one number.
 * <p>
 * The variables are substituted as Grafana does with every value selected: each one's {@code label_values} query is
 * asked of Prometheus and its values joined into a regular expression, {@code (a|b)}, so a panel filtering on a
 * label its meter does not carry comes back empty. {@code $__rate_interval} becomes {@code 4s}: Grafana's
 * {@code max($__interval + scrape interval, 4 × scrape interval)} for this test's 1 s scrapes and 1 s steps.
 * <p>
 * The sample has no Redis, so the context adds a {@link RedisFleet} whose Redis is unreachable and its meters: it
 * falls back at once, as a fleet does when Redis goes away, and the fleet panel has series to show.
 * <p>
 * A series tagged by an outcome, a cause or a hint's error exists once that happened on that provider, and the
 * scenarios never send an unusable {@code Retry-After}: one call to {@code flaky-exact} (which no scenario here uses)
 * meets one too long to obey, so the hint-refusals panel has its series. A short {@code model} scenario (Spring AI's
 * OpenAI model against the app's OpenAI-compatible API, which announces its request window on every answer) gives the
 * window panels the {@code openai} provider's requests window, and the waits-by-cause panels what its retries waited
 * for beside the {@code skew} scenario's {@code Retry-After} waits. The model's base URL is fixed when its client is
 * built, before a random port is known, so the app runs on a free port chosen up front.
 */
@RequiresBinary("prometheus")
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
class DashboardPrometheusTests {

	@DynamicPropertySource
	static void freePort(DynamicPropertyRegistry registry) throws IOException {
		int port = freePort();
		registry.add("server.port", () -> port);
	}

	private static final Path DASHBOARD = Path.of("grafana", "retry-after-dashboard.json");

	/** Grafana's {@code $__rate_interval} for 1 s scrapes (see the class description). */
	private static final String RATE_INTERVAL = "4s";

	/** Meters the starter registers that no panel shows, and why: none today. */
	private static final Map<String, String> WITHOUT_PANEL = Map.of();

	/** A meter's name, and the label matchers that follow it, if any. */
	private static final Pattern SELECTOR = Pattern.compile("(retry_after_\\w+)(\\{[^}]*})?");

	private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*]");

	private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private ScenarioRunner runner;

	@Autowired
	private RestClient.Builder restClients;

	@TempDir
	private Path temp;

	private Process prometheus;

	private int prometheusPort;

	@AfterEach
	void stopPrometheus() throws InterruptedException {
		if (this.prometheus != null && this.prometheus.isAlive()) {
			this.prometheus.destroy();
			if (!this.prometheus.waitFor(10, TimeUnit.SECONDS)) {
				this.prometheus.destroyForcibly();
			}
		}
	}

	@Test
	void everyPanelQueryFiltersByTheTemplateVariablesAndUsesTheRateInterval() throws IOException {
		for (String query : panelQueries()) {
			Matcher selector = SELECTOR.matcher(query);
			int selectors = 0;
			while (selector.find()) {
				selectors++;
				assertThat(selector.group(2)).as("%s in %s", selector.group(1), query)
					.contains("application=~\"$application\"")
					.contains("instance=~\"$instance\"");
			}
			assertThat(selectors).as(query).isPositive();
			Matcher range = RANGE.matcher(query);
			while (range.find()) {
				assertThat(range.group()).as(query).isEqualTo("[$__rate_interval]");
			}
		}
		assertThat(variables()).containsOnlyKeys("application", "instance", "provider");
	}

	@Test
	void everyPanelQueryReturnsDataFromARealPrometheus() throws Exception {
		Instant start = Instant.now();
		startPrometheus();
		await("prometheus ready").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> status("/-/ready") == 200);
		await("first scrape of the app").atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> number("up{job=\"sample\"}") == 1);
		this.runner.run(Scenario.named("skew").orElseThrow().withOperations(40));
		awaitOperationsScraped(40);
		this.runner.run(Scenario.named("rate-limit").orElseThrow().withOperations(120));
		refuseOneHint();
		// the model scenario's warm-up call is one more operation
		this.runner.run(Scenario.named("model").orElseThrow().withOperations(15));
		awaitOperationsScraped(177);
		await("the hint refusal scraped").atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> number("sum(retry_after_hint_refusals_total)") >= 1);
		await("the fleet's fallback scraped").atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> number("sum(retry_after_fleet_fallbacks_total)") >= 1);
		List<String> queries = panelQueries();
		assertThat(queries).hasSizeGreaterThanOrEqualTo(29);
		assertEveryMeterHasAPanel(queries);
		Map<String, String> values = variableValues(start);
		assertTheWaitsByCauseAndTheWindowsPanelsShowTheScenarios(values, start);
		List<String> empty = new ArrayList<>();
		for (String query : queries) {
			String substituted = substitute(query, values);
			JsonNode answer = queryRange(substituted, start);
			assertThat(answer.path("status").asString()).as(substituted).isEqualTo("success");
			boolean hasNumber = false;
			for (JsonNode series : answer.path("data").path("result")) {
				for (JsonNode sample : series.path("values")) {
					String value = sample.path(1).asString();
					hasNumber |= !value.equals("NaN") && !value.isEmpty();
				}
			}
			if (!hasNumber) {
				empty.add(substituted);
			}
		}
		assertThat(empty).as("panel queries without data").isEmpty();
	}

	/**
	 * The panels an operator reads to see why the app waited and how much of each provider's window is left: time
	 * waited by cause names the skew scenario's {@code Retry-After} waits on {@code flaky}, and the window panels show
	 * the {@code openai} provider's window of requests, its limit as the model API announced it (5 a second).
	 */
	private void assertTheWaitsByCauseAndTheWindowsPanelsShowTheScenarios(Map<String, String> values, Instant start)
			throws Exception {
		assertThat(labels(panelQuery("Time waited, by cause (seconds per second)", 0), values, start))
			.contains("flaky retry-after");
		assertThat(labels(panelQuery("Waits per second, by cause", 0), values, start)).contains("flaky retry-after");
		assertThat(labels(panelQuery("Provider rate-limit windows: remaining and limit", 0), values, start))
			.contains("openai requests");
		String limit = substitute(panelQuery("Provider rate-limit windows: remaining and limit", 1), values);
		assertThat(lastValues(queryRange(limit, start))).as(limit).containsEntry("openai requests", 5.0);
		assertThat(labels(panelQuery("Provider rate-limit windows: seconds to reset", 0), values, start))
			.contains("openai requests");
	}

	/** The {@code provider cause} or {@code provider unit} of each series a panel's query returns. */
	private Set<String> labels(String query, Map<String, String> values, Instant start) throws Exception {
		return lastValues(queryRange(substitute(query, values), start)).keySet();
	}

	/** Each series' last number, by its {@code provider} and its {@code cause} or {@code unit}. */
	private static Map<String, Double> lastValues(JsonNode answer) {
		Map<String, Double> last = new LinkedHashMap<>();
		for (JsonNode series : answer.path("data").path("result")) {
			JsonNode metric = series.path("metric");
			String second = metric.has("cause") ? metric.path("cause").asString() : metric.path("unit").asString();
			JsonNode samples = series.path("values");
			last.put(metric.path("provider").asString() + " " + second,
					Double.parseDouble(samples.path(samples.size() - 1).path(1).asString()));
		}
		return last;
	}

	private String panelQuery(String title, int target) throws IOException {
		JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
		for (JsonNode panel : dashboard.path("panels")) {
			if (panel.path("title").asString().equals(title)) {
				return panel.path("targets").path(target).path("expr").asString();
			}
		}
		throw new AssertionError("no panel titled " + title);
	}

	/** One call answered {@code 503} with a {@code Retry-After} longer than the provider's longest wait. */
	private void refuseOneHint() {
		RestClient client = this.restClients.build();
		assertThatExceptionOfType(HttpServerErrorException.class).isThrownBy(() -> client.get()
			.uri("http://localhost:" + this.port + "/provider/status/503?retry-after=100000")
			.attributes(RetryAfterAttributes.provider("flaky-exact"))
			.retrieve()
			.toBodilessEntity());
	}

	/**
	 * Asserts that every {@code retry_after_*} meter the app exports appears in some panel's query, unless it is
	 * listed in {@link #WITHOUT_PANEL}: a meter added to the starter needs a panel, or a reason.
	 */
	private void assertEveryMeterHasAPanel(List<String> queries) throws Exception {
		HttpResponse<String> scrape = http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/prometheus")).build(),
				HttpResponse.BodyHandlers.ofString());
		Set<String> meters = new TreeSet<>();
		Matcher type = Pattern.compile("(?m)^# TYPE (retry_after_\\w+) ").matcher(scrape.body());
		while (type.find()) {
			meters.add(type.group(1));
		}
		assertThat(meters).contains("retry_after_pacing_rate", "retry_after_cooldown_remaining_seconds",
				"retry_after_pacing_queued", "retry_after_hint_refusals_total", "retry_after_fleet_fallbacks_total",
				"retry_after_wait_seconds", "retry_after_window_remaining", "retry_after_window_limit",
				"retry_after_window_reset_seconds");
		List<String> withoutPanel = meters.stream()
			.filter((meter) -> !WITHOUT_PANEL.containsKey(meter))
			.filter((meter) -> queries.stream().noneMatch((query) -> query.contains(meter)))
			.toList();
		assertThat(withoutPanel).as("meters no panel shows").isEmpty();
	}

	/**
	 * Resolves the template variables in order, as Grafana does: each {@code label_values(selector, label)} is asked
	 * of Prometheus with the earlier variables substituted, and every value is selected.
	 */
	private Map<String, String> variableValues(Instant start) throws Exception {
		Map<String, String> values = new LinkedHashMap<>();
		for (Map.Entry<String, String> variable : variables().entrySet()) {
			Matcher definition = LABEL_VALUES.matcher(variable.getValue());
			assertThat(definition.matches()).as(variable.getValue()).isTrue();
			String selector = substitute(definition.group(1), values);
			URI uri = URI.create("http://127.0.0.1:" + this.prometheusPort + "/api/v1/label/" + definition.group(2)
					+ "/values?match[]=" + URLEncoder.encode(selector, StandardCharsets.UTF_8) + "&start="
					+ start.getEpochSecond());
			JsonNode answer = json.readTree(http.send(HttpRequest.newBuilder(uri).build(),
					HttpResponse.BodyHandlers.ofString()).body());
			List<String> found = new ArrayList<>();
			answer.path("data").forEach((value) -> found.add(regexEscape(value.asString())));
			assertThat(found).as("values of $%s from %s", variable.getKey(), selector).isNotEmpty();
			values.put(variable.getKey(), "(" + String.join("|", found) + ")");
		}
		assertThat(values.get("application")).isEqualTo("(retry-after-sample)");
		return values;
	}

	private static String substitute(String query, Map<String, String> values) {
		String substituted = query.replace("$__rate_interval", RATE_INTERVAL);
		for (Map.Entry<String, String> value : values.entrySet()) {
			substituted = substituted.replace("$" + value.getKey(), value.getValue());
		}
		return substituted;
	}

	/** Escapes a value for a regular expression inside a PromQL string, as Grafana does: {@code .} becomes {@code \\.}. */
	private static String regexEscape(String value) {
		return value.replaceAll("[\\\\^$*+?.()|\\[\\]{}]", "\\\\\\\\$0");
	}

	private Map<String, String> variables() throws IOException {
		JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
		Map<String, String> variables = new LinkedHashMap<>();
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			variables.put(variable.path("name").asString(), variable.path("definition").asString());
		}
		return variables;
	}

	private void awaitOperationsScraped(int atLeast) {
		await("operations counted by prometheus").atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> number("sum(retry_after_operations_total)") >= atLeast);
	}

	private List<String> panelQueries() throws IOException {
		JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
		assertThat(dashboard.path("__inputs").path(0).path("name").asString()).isEqualTo("DS_PROMETHEUS");
		List<String> queries = new ArrayList<>();
		for (JsonNode panel : dashboard.path("panels")) {
			assertThat(panel.path("datasource").path("uid").asString()).isEqualTo("${DS_PROMETHEUS}");
			for (JsonNode target : panel.path("targets")) {
				queries.add(target.path("expr").asString());
			}
		}
		return queries;
	}

	private void startPrometheus() throws IOException {
		this.prometheusPort = freePort();
		Path config = this.temp.resolve("prometheus.yml");
		Files.writeString(config, """
				global:
				  scrape_interval: 1s
				  evaluation_interval: 1s
				scrape_configs:
				  - job_name: sample
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: ["127.0.0.1:%d"]
				""".formatted(this.port));
		this.prometheus = new ProcessBuilder(RequiresBinaryExtension.require("prometheus").toString(),
				"--config.file=" + config, "--web.listen-address=127.0.0.1:" + this.prometheusPort,
				"--storage.tsdb.path=" + this.temp.resolve("data"), "--log.level=warn")
			.redirectErrorStream(true)
			.redirectOutput(this.temp.resolve("prometheus.log").toFile())
			.start();
	}

	private double number(String query) throws Exception {
		JsonNode result = query(query).path("data").path("result");
		if (result.isEmpty()) {
			return Double.NaN;
		}
		return Double.parseDouble(result.path(0).path("value").path(1).asString());
	}

	private JsonNode queryRange(String query, Instant start) throws Exception {
		URI uri = URI.create("http://127.0.0.1:" + this.prometheusPort + "/api/v1/query_range?query="
				+ URLEncoder.encode(query, StandardCharsets.UTF_8) + "&start=" + start.getEpochSecond() + "&end="
				+ (Instant.now().getEpochSecond() + 1) + "&step=1");
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).build(),
				HttpResponse.BodyHandlers.ofString());
		return json.readTree(response.body());
	}

	private JsonNode query(String query) throws Exception {
		URI uri = URI.create("http://127.0.0.1:" + this.prometheusPort + "/api/v1/query?query="
				+ URLEncoder.encode(query, StandardCharsets.UTF_8));
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).build(),
				HttpResponse.BodyHandlers.ofString());
		return json.readTree(response.body());
	}

	private int status(String path) {
		try {
			return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.prometheusPort + path)).build(),
					HttpResponse.BodyHandlers.discarding())
				.statusCode();
		}
		catch (IOException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/**
	 * A fleet whose Redis cannot be reached: the connector fails, so its first probe falls back to local state.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class UnreachableFleetConfiguration {

		@Bean
		RedisFleet unreachableFleet() {
			return new RedisFleet(() -> {
				throw new IllegalStateException("the sample has no Redis");
			}, new RedisFleetSettings("retry-after-sample", Duration.ofMillis(100), Duration.ofMillis(100),
					Duration.ofHours(1), Duration.ofMinutes(5)));
		}

		@Bean
		RetryAfterFleetMetrics unreachableFleetMetrics(RedisFleet unreachableFleet) {
			return new RetryAfterFleetMetrics(unreachableFleet);
		}

	}

}
