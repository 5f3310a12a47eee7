package io.github.retryafter.sample;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/**
 * The home page: buttons to fire each scenario, then the latest run of each scenario that ran, the most recent first,
 * as its summary table and a chart of what arrived at the simulated provider. Server-side HTML with inline SVG and
 * CSS; nothing external is loaded.
 */
@RestController
class HomeController {

	private final ScenarioRunner runner;

	HomeController(ScenarioRunner runner) {
		this.runner = runner;
	}

	@GetMapping(path = "/", produces = MediaType.TEXT_HTML_VALUE)
	String home() {
		StringBuilder html = new StringBuilder();
		html.append("""
				<!DOCTYPE html>
				<html lang="en">
				<head>
				<meta charset="utf-8">
				<title>retry-after sample</title>
				<style>
				body { font-family: sans-serif; margin: 24px; color: #222; background: #ffffff; }
				table.summary { border-collapse: collapse; margin: 8px 0 12px; }
				table.summary th { text-align: left; padding: 2px 16px 2px 0; font-weight: 600; }
				table.summary td { padding: 2px 0; font-family: monospace; }
				form { display: inline-block; margin: 0 8px 8px 0; }
				button { padding: 6px 12px; font-size: 14px; }
				section { margin-top: 24px; border-top: 1px solid #ddd; }
				p.hint { color: #555; max-width: 900px; }
				</style>
				</head>
				<body>
				<h1>retry-after sample</h1>
				<p class="hint">Each scenario fires a burst of operations at the simulated provider through a retrying client.
				The chart counts the requests that arrived at the provider per 10 ms: first attempts in blue, retries in red.
				Metrics: <a href="/actuator/prometheus">/actuator/prometheus</a>,
				<a href="/actuator/retryafter">/actuator/retryafter</a>.</p>
				""");
		for (Scenario scenario : Scenario.BUILT_IN) {
			html.append("<form method=\"post\" action=\"/scenarios/")
				.append(HtmlUtils.htmlEscape(scenario.name()))
				.append("\"><button type=\"submit\" title=\"")
				.append(HtmlUtils.htmlEscape(scenario.description()))
				.append("\">Run ")
				.append(HtmlUtils.htmlEscape(scenario.name()))
				.append("</button></form>\n");
		}
		List<ScenarioResult> results = this.runner.latestByName();
		if (results.isEmpty()) {
			html.append("<p id=\"no-scenario\">No scenario has run yet: press a button above, or "
					+ "<code>curl -X POST localhost:8080/scenarios/herd</code>.</p>\n");
		}
		for (ScenarioResult result : results) {
			section(html, result);
		}
		html.append("</body>\n</html>\n");
		return html.toString();
	}

	private static void section(StringBuilder html, ScenarioResult result) {
		ScenarioResult.Herd herd = result.herd();
		html.append("<section id=\"scenario-").append(HtmlUtils.htmlEscape(result.scenario().name())).append("\">\n");
		html.append("<h2>").append(HtmlUtils.htmlEscape(result.scenario().name())).append("</h2>\n");
		html.append("<p class=\"hint\">").append(HtmlUtils.htmlEscape(result.scenario().description())).append("</p>\n");
		html.append("<table class=\"summary\">\n");
		row(html, "client / provider / hint-mode", result.scenario().client().displayName() + " / "
				+ result.scenario().provider() + " / " + result.hintMode());
		row(html, "operations", Integer.toString(result.operations().size()));
		row(html, "attempts", result.attempts() + " (provider saw " + result.firstArrivals() + " first, "
				+ result.retryArrivals() + " retries)");
		row(html, "amplification", String.format(Locale.ROOT, "%.2f", result.amplification()));
		StringBuilder outcomes = new StringBuilder();
		for (Map.Entry<String, Long> entry : result.outcomes().entrySet()) {
			outcomes.append(entry.getKey()).append('=').append(entry.getValue()).append(' ');
		}
		row(html, "outcomes", outcomes.toString().trim());
		row(html, "herd", herd.describe());
		row(html, "burst", "first attempts arrived within " + result.burstMillis() + " ms");
		row(html, "duration", result.durationMillis() + " ms");
		html.append("</table>\n");
		html.append(ArrivalChart.render(result));
		html.append("</section>\n");
	}

	private static void row(StringBuilder html, String name, String value) {
		html.append("<tr><th>")
			.append(HtmlUtils.htmlEscape(name))
			.append("</th><td>")
			.append(HtmlUtils.htmlEscape(value))
			.append("</td></tr>\n");
	}

}
