package io.github.retryafter.sample;

import java.time.InstantSource;

import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ReactorClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
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
	 * Connections for the client side. Reactor Netty's default pool holds 16 connections and queues 32 more requests,
	 * which would fail a burst of 200 operations before retry-after ever saw them.
	 */
	@Bean(destroyMethod = "dispose")
	ConnectionProvider sampleConnections() {
		return ConnectionProvider.builder("sample-client").maxConnections(500).pendingAcquireMaxCount(-1).build();
	}

	/**
	 * The WebClient the scenarios use, built from Boot's builder so it carries retry-after's filter.
	 */
	@Bean
	WebClient sampleWebClient(WebClient.Builder builder, ConnectionProvider connections) {
		return builder.clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections).disableRetry(true)))
			.build();
	}

	/**
	 * The RestClient the scenarios use, built from Boot's builder so it carries retry-after's interceptor.
	 */
	@Bean
	RestClient sampleRestClient(RestClient.Builder builder, ConnectionProvider connections) {
		return builder.requestFactory(new ReactorClientHttpRequestFactory(HttpClient.create(connections).disableRetry(true)))
			.build();
	}

	@Bean
	ScenarioRunner scenarioRunner(SimulatedProvider provider, RetryAfterProviders providers, WebClient sampleWebClient,
			RestClient sampleRestClient, Environment environment, InstantSource clock) {
		return new ScenarioRunner(provider, providers, sampleWebClient, sampleRestClient, environment, clock);
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
