package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import io.github.retryafter.boot.fleet.FleetStatusProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health configuration docs/fleet.md documents for a Redis outage, run for real: a servlet application on Tomcat
 * with Actuator, the fleet store on Redis and Redis not listening. {@code /actuator/health} goes {@code DOWN} (Boot's
 * own Redis indicator), which is what pulled instances out of a load balancer (issue 31, item 4), while the readiness
 * group the load balancer is told to probe stays {@code UP}, with the starter's contributor in it on its local
 * fallback. Also the other documented choice: Boot's Redis indicator off, the whole health stays {@code UP}.
 */
class RedisOutageReadinessTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

	@Test
	void theReadinessGroupKeepsTheInstanceInWhileTheWholeHealthIsDown() throws Exception {
		// what docs/fleet.md says to configure, the load balancer probing /actuator/health/readiness
		try (ConfigurableApplicationContext context = start("management.endpoint.health.probes.enabled=true",
				"management.endpoint.health.group.readiness.include=readinessState,retryAfterFleet",
				"management.endpoint.health.group.readiness.show-details=always")) {
			JsonNode ready = get(context, "/actuator/health/readiness", 200);
			assertThat(ready.path("status").asString()).isEqualTo("UP");
			assertThat(ready.path("components").propertyNames()).containsExactlyInAnyOrder("readinessState",
					"retryAfterFleet");
			assertThat(ready.at("/components/retryAfterFleet/status").asString()).isEqualTo("UP");
			assertThat(ready.at("/components/retryAfterFleet/details/state").asString()).isEqualTo("LOCAL_FALLBACK");

			// the problem: the whole health is Boot's Redis indicator's too
			JsonNode all = get(context, "/actuator/health", 503);
			assertThat(all.path("status").asString()).isEqualTo("DOWN");
			assertThat(all.at("/components/redis/status").asString()).isEqualTo("DOWN");
			assertThat(all.at("/components/retryAfterFleet/status").asString()).isEqualTo("UP");
		}
	}

	@Test
	void withoutBootsRedisIndicatorTheWholeHealthStaysUp() throws Exception {
		// the other documented choice, for an application that uses Redis for the fleet alone
		try (ConfigurableApplicationContext context = start("management.health.redis.enabled=false")) {
			JsonNode all = get(context, "/actuator/health", 200);
			assertThat(all.path("status").asString()).isEqualTo("UP");
			assertThat(all.path("components").has("redis")).isFalse();
			assertThat(all.at("/components/retryAfterFleet/details/state").asString()).isEqualTo("LOCAL_FALLBACK");
		}
	}

	/** Starts the application with the fleet store on Redis, where no Redis listens, and {@code configuration}. */
	private static ConfigurableApplicationContext start(String... configuration) throws IOException {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.SERVLET)
			.properties("server.address=127.0.0.1", "server.port=0", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + deadPort(), "spring.data.redis.connect-timeout=200ms",
					"spring.data.redis.timeout=200ms", "retry.after.fleet.store=redis",
					"retry.after.fleet.key-prefix=outage", "retry.after.fleet.command-timeout=50ms",
					"management.endpoint.health.show-details=always",
					// the test classpath's OpenTelemetry starter would export to a collector that is not there
					"management.defaults.metrics.export.enabled=false", "management.tracing.export.enabled=false",
					"management.logging.export.otlp.enabled=false", "spring.main.banner-mode=off",
					// the test classpath's Spring AI Google GenAI chat model would need an API key
					"spring.ai.model.chat=none")
			.properties(configuration)
			.run();
		// the fleet noticed: Redis refused its first connection
		await().atMost(TIMEOUT)
			.until(() -> context.getBean(FleetStatusProvider.class).fleetStatus().state().equals("LOCAL_FALLBACK"));
		return context;
	}

	private static JsonNode get(ConfigurableApplicationContext context, String path, int status) throws Exception {
		URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
		HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + " answered " + response.body()).isEqualTo(status);
		return JSON.readTree(response.body());
	}

	/** A loopback port nothing listens on: one the kernel just handed out, closed again. */
	private static int deadPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** The application: every auto-configuration on the test classpath, as {@code @SpringBootApplication} has. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
