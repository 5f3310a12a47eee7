package io.github.retryafter.sample;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.retryafter.sample.ScenarioResult.Summary;

/**
 * Fires scenarios: {@code POST /scenarios/{name}} (or {@code GET /scenarios/run?name=...}) runs one to its end and
 * answers its summary table as text, or its {@link Summary} as JSON when asked for {@code application/json}; a form
 * post from the home page is redirected back there. Optional parameters: {@code operations}, {@code client}
 * ({@code webclient} or {@code restclient}) and {@code skew} (the provider's clock offset in seconds).
 */
@RestController
@RequestMapping("/scenarios")
class ScenarioController {

	private final ScenarioRunner runner;

	ScenarioController(ScenarioRunner runner) {
		this.runner = runner;
	}

	@GetMapping(produces = MediaType.TEXT_PLAIN_VALUE)
	String list() {
		return Scenario.BUILT_IN.stream()
			.map((scenario) -> String.format("%-11s %s%n", scenario.name(), scenario.description()))
			.collect(Collectors.joining());
	}

	/**
	 * Runs a scenario. Answers its summary table as text (what {@code curl} gets), its summary as JSON when
	 * {@code application/json} is asked for, and a redirect to the home page for a browser's form post.
	 */
	@PostMapping("/{name}")
	ResponseEntity<?> run(@PathVariable String name, @RequestParam Optional<Integer> operations,
			@RequestParam Optional<String> client, @RequestParam Optional<Long> skew,
			@RequestHeader(name = HttpHeaders.ACCEPT, defaultValue = "*/*") String accept) {
		ScenarioResult result = run(name, operations, client, skew);
		List<MediaType> accepted = MediaType.parseMediaTypes(accept);
		org.springframework.util.MimeTypeUtils.sortBySpecificity(accepted);
		for (MediaType type : accepted) {
			if (type.isCompatibleWith(MediaType.APPLICATION_JSON) && !type.isWildcardType()) {
				return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(result.summary());
			}
			if (type.isCompatibleWith(MediaType.TEXT_HTML) && !type.isWildcardType()) {
				return ResponseEntity.status(HttpStatus.SEE_OTHER).location(URI.create("/")).build();
			}
			if (type.isCompatibleWith(MediaType.TEXT_PLAIN)) {
				break;
			}
		}
		return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body(result.table());
	}

	@GetMapping(path = "/run", produces = MediaType.TEXT_PLAIN_VALUE)
	String runFromQuery(@RequestParam String name, @RequestParam Optional<Integer> operations,
			@RequestParam Optional<String> client, @RequestParam Optional<Long> skew) {
		return run(name, operations, client, skew).table();
	}

	@GetMapping(path = "/last", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<Summary> last() {
		return ResponseEntity.of(this.runner.last().map(ScenarioResult::summary));
	}

	private ScenarioResult run(String name, Optional<Integer> operations, Optional<String> client,
			Optional<Long> skew) {
		Scenario scenario = Scenario.named(name).orElseThrow(() -> new UnknownScenarioException(name));
		if (operations.isPresent()) {
			scenario = scenario.withOperations(operations.get());
		}
		if (client.isPresent()) {
			scenario = scenario.withClient(Scenario.Client.parse(client.get()));
		}
		if (skew.isPresent()) {
			scenario = scenario.withClockSkew(Duration.ofSeconds(skew.get()));
		}
		return this.runner.run(scenario);
	}

	@ExceptionHandler
	ResponseEntity<String> unknown(UnknownScenarioException ex) {
		return ResponseEntity.status(HttpStatus.NOT_FOUND).contentType(MediaType.TEXT_PLAIN).body(ex.getMessage() + "\n");
	}

	@ExceptionHandler
	ResponseEntity<String> badParameter(IllegalArgumentException ex) {
		return ResponseEntity.badRequest().contentType(MediaType.TEXT_PLAIN).body(ex.getMessage() + "\n");
	}

	static final class UnknownScenarioException extends RuntimeException {

		UnknownScenarioException(String name) {
			super("no scenario named '" + name + "'; the scenarios are "
					+ Scenario.BUILT_IN.stream().map(Scenario::name).toList());
		}

	}

}
