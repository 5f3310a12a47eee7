package io.github.retryafter.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the alert rules shipped with the sample ({@code grafana/retry-after-alerts.yml}) with Debian's
 * {@code promtool}: the file and the {@code prometheus.yml} that loads it are valid, and the rules pass their unit
 * tests ({@code grafana/retry-after-alerts-tests.yml}), which feed series and say which alerts must fire and which
 * must not.
 */
@RequiresBinary(value = "promtool", debianPackage = "prometheus")
class PromtoolRulesTests {

	private static final Path GRAFANA = Path.of("grafana");

	private static final Path RULES = GRAFANA.resolve("retry-after-alerts.yml");

	private static final Path RULE_TESTS = GRAFANA.resolve("retry-after-alerts-tests.yml");

	@TempDir
	private Path temp;

	@Test
	void rulesFilePassesPromtoolCheckRules() throws Exception {
		Result result = promtool("check", "rules", RULES.toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS: " + alerts().size() + " rules found");
	}

	@Test
	void prometheusConfigLoadsTheRules() throws Exception {
		Result result = promtool("check", "config", GRAFANA.resolve("prometheus.yml").toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS: 1 rule files found").contains("retry-after-alerts.yml");
	}

	@Test
	void rulesPassTheirPromtoolUnitTests() throws Exception {
		Result result = promtool("test", "rules", RULE_TESTS.toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS");
	}

	@Test
	void promtoolFailsAnAlertThatDoesNotFireAsExpected() throws Exception {
		Files.copy(RULES, this.temp.resolve("retry-after-alerts.yml"));
		Path tests = this.temp.resolve("tests.yml");
		Files.writeString(tests, """
				rule_files:
				  - retry-after-alerts.yml
				tests:
				  - interval: 1m
				    input_series:
				      - series: 'retry_after_fleet_shared{application="shop", instance="a:8080", store="redis"}'
				        values: '1x20'
				    alert_rule_test:
				      - eval_time: 12m
				        alertname: RetryAfterFleetOnLocalFallback
				        exp_alerts:
				          - exp_labels:
				              severity: warning
				              application: shop
				              instance: a:8080
				""");
		Result result = promtool("test", "rules", tests.toString());
		assertThat(result.exitCode()).as(result.output()).isNotZero();
		assertThat(result.output()).contains("FAILED");
	}

	@Test
	void everyAlertSaysHowLongHowBadAndWhatToDo() throws IOException {
		List<Map<String, Object>> alerts = alerts();
		assertThat(alerts).extracting((alert) -> alert.get("alert"))
			.containsExactly("RetryAfterAmplificationHigh", "RetryAfterBudgetRefusing", "RetryAfterProviderCoolingDown",
					"RetryAfterFleetOnLocalFallback");
		for (Map<String, Object> alert : alerts) {
			assertThat(alert).as("%s", alert.get("alert")).containsKeys("expr", "for", "labels", "annotations");
			assertThat(map(alert.get("labels"))).as("%s", alert.get("alert")).containsKey("severity");
			assertThat(map(alert.get("annotations"))).as("%s", alert.get("alert"))
				.containsKeys("summary", "description");
		}
	}

	@Test
	void everyAlertIsUnitTestedFiringAndNotFiring() throws IOException {
		Map<String, Object> file = map(new Yaml().load(Files.readString(RULE_TESTS)));
		Set<String> firing = new LinkedHashSet<>();
		Set<String> silent = new LinkedHashSet<>();
		for (Object group : list(file.get("tests"))) {
			for (Object check : list(map(group).get("alert_rule_test"))) {
				String name = (String) map(check).get("alertname");
				(list(map(check).get("exp_alerts")).isEmpty() ? silent : firing).add(name);
			}
		}
		List<String> names = alerts().stream().map((alert) -> (String) alert.get("alert")).toList();
		assertThat(firing).as("alerts with a test where they fire").containsExactlyInAnyOrderElementsOf(names);
		assertThat(silent).as("alerts with a test where they must not fire (yet)")
			.containsExactlyInAnyOrderElementsOf(names);
	}

	private static List<Map<String, Object>> alerts() throws IOException {
		Map<String, Object> file = map(new Yaml().load(Files.readString(RULES)));
		List<Map<String, Object>> alerts = new ArrayList<>();
		for (Object group : list(file.get("groups"))) {
			for (Object rule : list(map(group).get("rules"))) {
				alerts.add(map(rule));
			}
		}
		return alerts;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object yaml) {
		assertThat(yaml).isInstanceOf(Map.class);
		return (Map<String, Object>) yaml;
	}

	private static List<?> list(Object yaml) {
		assertThat(yaml).isInstanceOf(List.class);
		return (List<?>) yaml;
	}

	private static Result promtool(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(RequiresBinaryExtension.require("promtool").toString());
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool finished within 60 s").isTrue();
		return new Result(process.exitValue(), output);
	}

	private record Result(int exitCode, String output) {

	}

}
