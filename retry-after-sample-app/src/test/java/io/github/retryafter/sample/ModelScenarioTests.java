package io.github.retryafter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The model scenario end to end: Spring AI's {@code ChatClient} on its OpenAI model, the OpenAI SDK over OkHttp, the
 * starter under it, and the simulated OpenAI-compatible API in the same app answering {@code 429 Retry-After: 1}
 * above 5 requests/s. The model's base URL is fixed when its client is built, before a random port is known, so the
 * app runs on a free port chosen up front.
 */
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
class ModelScenarioTests {

	@DynamicPropertySource
	static void freePort(DynamicPropertyRegistry registry) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		registry.add("server.port", () -> port);
	}

	@Autowired
	private ScenarioRunner runner;

	@Autowired
	private SimulatedProvider provider;

	@Autowired
	private MeterRegistry meters;

	@Test
	void fiftyChatCallsAgainstFiveRequestsPerSecondAllSucceedPacedByTheOneRetryLayer() {
		double attemptsBefore = attempts();
		ScenarioResult result = this.runner.run(Scenario.named("model").orElseThrow());
		List<Arrival> arrivals = this.provider.arrivals();
		assertThat(result.outcomes()).as("%s", result.outcomes()).containsOnlyKeys("SUCCESS");
		assertThat(result.firstArrivals()).isEqualTo(50);
		// 50 calls at 5 requests/s take 10 s at best (the first 5 go at once): within 1.3x of that
		assertThat(result.durationMillis()).isLessThan(13_000);
		// one retry layer: the server saw exactly the attempts the starter counted, no SDK retry on top (the meter
		// also counts the scenario's one warm-up call, sent to a healthy provider before the arrivals are recorded)
		assertThat(attempts() - attemptsBefore - 1).isEqualTo(arrivals.size());
		Map<String, List<Arrival>> byOperation = arrivals.stream().collect(Collectors.groupingBy(Arrival::operationId));
		assertThat(byOperation).hasSize(50);
		byOperation.forEach((operation, each) -> {
			for (int i = 1; i < each.size(); i++) {
				if (each.get(i - 1).status() == 429) {
					assertThat(each.get(i).atMillis() - each.get(i - 1).atMillis()).as(operation)
						.isGreaterThanOrEqualTo(1000);
				}
			}
		});
	}

	private double attempts() {
		return this.meters.find("retry.after.attempts")
			.tag("provider", "openai")
			.functionCounters()
			.stream()
			.mapToDouble(FunctionCounter::count)
			.sum();
	}

}
