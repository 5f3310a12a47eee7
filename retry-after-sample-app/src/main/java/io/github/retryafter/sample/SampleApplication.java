package io.github.retryafter.sample;

import java.time.Duration;
import java.time.InstantSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.util.StringUtils;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.boot.RetryAfterProviders;

/**
 * The sample app: a simulated flaky provider and a client side that calls it through retry-after, in one process.
 * Run it with {@code ./mvnw -pl retry-after-sample-app -am spring-boot:run} and open {@code http://localhost:8080/}.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

	/**
	 * The wall clock shared by the simulated provider and retry-after's engine (whose own clock bean backs off); a
	 * test replaces it to fix the time.
	 */
	@Bean
	InstantSource sampleClock() {
		return InstantSource.system();
	}

	@Bean
	SimulatedProvider simulatedProvider(InstantSource clock, SampleProperties properties) {
		return new SimulatedProvider(clock, properties.getClockSkew());
	}

	/**
	 * The HTTP transport of the client side, shared by both clients: the JDK's client, on HTTP/1.1, opening as many
	 * connections as a burst needs. Reactor Netty's default pool (16 connections and 32 queued requests) would fail a
	 * burst of 200 before retry-after saw it.
	 */
	@Bean
	java.net.http.HttpClient sampleHttpClient() {
		return java.net.http.HttpClient.newBuilder()
			.version(java.net.http.HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
	}

	/**
	 * The WebClient the scenarios use, built from Boot's builder so it carries retry-after's filter.
	 */
	@Bean
	WebClient sampleWebClient(WebClient.Builder builder, java.net.http.HttpClient sampleHttpClient) {
		return builder.clientConnector(new JdkClientHttpConnector(sampleHttpClient)).build();
	}

	/**
	 * The RestClient the scenarios use, built from Boot's builder so it carries retry-after's interceptor.
	 */
	@Bean
	RestClient sampleRestClient(RestClient.Builder builder, java.net.http.HttpClient sampleHttpClient) {
		return builder.requestFactory(new JdkClientHttpRequestFactory(sampleHttpClient)).build();
	}

	/**
	 * The chat client of the model scenario: Spring AI's, on its auto-configured OpenAI model, which sends through
	 * the OpenAI SDK over OkHttp. Nothing here mentions retry-after: the starter puts itself under the model's HTTP
	 * client and turns the SDK's own retries off.
	 */
	@Bean
	ChatClient sampleChatClient(ChatClient.Builder builder) {
		return builder.build();
	}

	@Bean
	ScenarioRunner scenarioRunner(SimulatedProvider provider, RetryAfterProviders providers, WebClient sampleWebClient,
			RestClient sampleRestClient, ChatClient sampleChatClient, Environment environment, InstantSource clock) {
		return new ScenarioRunner(provider, providers, sampleWebClient, sampleRestClient, sampleChatClient, environment,
				clock);
	}

	/**
	 * Runs the scenario named by {@code --sample.scenario=...} once the server is up, and prints its summary.
	 */
	@Bean
	ApplicationRunner startupScenario(SampleProperties properties, ScenarioRunner runner) {
		return (args) -> {
			if (StringUtils.hasText(properties.getScenario())) {
				String name = properties.getScenario().trim();
				Scenario scenario = Scenario.named(name)
					.orElseThrow(() -> new IllegalArgumentException("sample.scenario names '" + name
							+ "' but the scenarios are " + Scenario.BUILT_IN.stream().map(Scenario::name).toList()));
				runner.run(scenario);
			}
		};
	}

}
