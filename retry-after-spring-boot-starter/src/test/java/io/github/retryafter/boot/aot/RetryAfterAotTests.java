package io.github.retryafter.boot.aot;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.actuate.PacingDescriptor;
import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.actuate.RetryAfterEvents;
import io.github.retryafter.boot.actuate.RetryAfterEventsEndpoint;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEventsEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.fleet.redis.RedisFleet;
import io.github.retryafter.boot.metrics.RetryAfterMetrics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AOT processing of a context with every part of the starter (WebClient, RestClient, metrics, both endpoints,
 * the fleet on Redis), the way Spring Boot tests its own auto-configurations: the context is processed ahead of time,
 * the generated code is compiled, and a fresh context starts from the compiled initializer alone, with no
 * configuration class parsed and no condition evaluated at run time. The runtime hints the starter registers are
 * checked in what the processing contributed.
 * <p>
 * The generated code calls the auto-configurations' package-private bean methods from their own packages, so the
 * compiled classes are defined in a forked class loader that also loads the starter's classes.
 */
@CompileWithForkedClassLoader
class RetryAfterAotTests {

	private final String[] properties = { "management.endpoints.web.exposure.include=retryafter,retryafterevents",
			"retry.after.fleet.store=redis", "retry.after.fleet.key-prefix=aot",
			"retry.after.fleet.command-timeout=200ms", "retry.after.providers.payments.hosts=api.pay.example",
			"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort() };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterFleetAutoConfiguration.class,
				RetryAfterAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterMetricsAutoConfiguration.class,
				RetryAfterEndpointAutoConfiguration.class, RetryAfterEventsEndpointAutoConfiguration.class,
				DataRedisAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, WebClientAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withUserConfiguration(MeterRegistryConfiguration.class)
		.withPropertyValues(this.properties);

	@Test
	void contextWithEveryPartOfTheStarterStartsFromItsAheadOfTimeGeneratedCode() {
		this.contextRunner.prepare((context) -> {
			TestGenerationContext generationContext = new TestGenerationContext();
			ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(
					(GenericApplicationContext) context.getSourceApplicationContext(), generationContext);
			generationContext.writeGeneratedContent();
			TestCompiler.forSystem().with(generationContext).compile((compiled) -> {
				try (GenericApplicationContext fresh = new GenericApplicationContext()) {
					TestPropertyValues.of(this.properties).applyTo(fresh);
					@SuppressWarnings("unchecked")
					ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
						.getInstance(ApplicationContextInitializer.class, initializerName.reflectionName());
					initializer.initialize(fresh);
					fresh.refresh();
					assertStarterIsWired(fresh);
				}
			});
		});
	}

	@Test
	void processingContributesTheStartersRuntimeHints() {
		this.contextRunner.prepare((context) -> {
			TestGenerationContext generationContext = new TestGenerationContext();
			new ApplicationContextAotGenerator().processAheadOfTime(
					(GenericApplicationContext) context.getSourceApplicationContext(), generationContext);
			RuntimeHints hints = generationContext.getRuntimeHints();
			// Jackson writes the endpoints' descriptors through their record accessors, nested types included
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation(RetryAfterEndpoint.RetryAfterDescriptor.class, "providers")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation(RetryAfterEndpoint.FleetDescriptor.class, "state")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation(PacingDescriptor.class, "mode")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation(RetryAfterEventsEndpoint.EventsDescriptor.class, "events")).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RetryAfterEvents.Event.class, "reason"))
				.accepts(hints);
			// the fleet looks Reactor up by name
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("reactor.core.scheduler.Schedulers")))
				.accepts(hints);
		});
	}

	private static void assertStarterIsWired(GenericApplicationContext context) {
		assertThat(context.getBean(RetryAfterOperations.class)).isNotNull();
		assertThat(context.getBeansOfType(WebClientCustomizer.class)).containsKey("retryAfterWebClientCustomizer");
		assertThat(context.getBeansOfType(RestClientCustomizer.class)).containsKey("retryAfterRestClientCustomizer");
		assertThat(context.getBean(WebClient.Builder.class)).isNotNull();
		assertThat(context.getBean(RestClient.Builder.class)).isNotNull();
		assertThat(context.getBean(RetryAfterMetrics.class)).isNotNull();
		assertThat(context.getBean(MeterRegistry.class).getMeters()).isNotEmpty();
		assertThat(context.getBean(RedisFleet.class)).isNotNull();
		RetryAfterEndpoint.RetryAfterDescriptor described = context.getBean(RetryAfterEndpoint.class).retryAfter();
		assertThat(described.providers()).containsKeys("default", "payments");
		assertThat(described.fleet().store()).isEqualTo("redis");
		// Redis is on a closed port: the only events are the fleet falling back (issue 14 records each fallback)
		assertThat(context.getBean(RetryAfterEventsEndpoint.class).events().events())
			.allSatisfy((event) -> assertThat(event.type()).isEqualTo(RetryAfterEvents.Type.FLEET_FALLBACK));
	}

	/** A meter registry as an application declares it (AOT processing cannot take a bean given as a supplier). */
	@Configuration(proxyBeanMethods = false)
	static class MeterRegistryConfiguration {

		@Bean
		SimpleMeterRegistry simpleMeterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/** A loopback port nothing listens on: the fleet starts on its local fallback, without waiting on a server. */
	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
