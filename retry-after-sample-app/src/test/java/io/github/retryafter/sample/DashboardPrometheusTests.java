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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Proves the Grafana dashboard works without Grafana: starts Debian's Prometheus on a free loopback port scraping this
 * app every second, runs scenarios, and evaluates every panel's PromQL from {@code grafana/retry-after-dashboard.json}
 * through Prometheus's HTTP API, asserting each returns at least one number.
 */
@RequiresBinary("prometheus")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class DashboardPrometheusTests {

	private static final Path DASHBOARD = Path.of("grafana", "retry-after-dashboard.json");

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private ScenarioRunner runner;

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
	void everyPanelQueryReturnsDataFromARealPrometheus() throws Exception {
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
		awaitOperationsScraped(160);
		List<String> queries = panelQueries();
		assertThat(queries).hasSizeGreaterThanOrEqualTo(8);
		List<String> empty = new ArrayList<>();
		for (String query : queries) {
			JsonNode answer = query(query.replace("$provider", ".*"));
			assertThat(answer.path("status").asString()).as(query).isEqualTo("success");
			boolean hasNumber = false;
			for (JsonNode sample : answer.path("data").path("result")) {
				String value = sample.path("value").path(1).asString();
				hasNumber |= !value.equals("NaN") && !value.isEmpty();
			}
			if (!hasNumber) {
				empty.add(query);
			}
		}
		assertThat(empty).as("panel queries without data").isEmpty();
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

}
