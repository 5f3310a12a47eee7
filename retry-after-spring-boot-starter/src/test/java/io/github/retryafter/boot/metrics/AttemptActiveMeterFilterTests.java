package io.github.retryafter.boot.metrics;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The attempts' long-task timer is left out of the auto-configured registries, the operations' is not, and Spring
 * Boot's own switch brings it back.
 */
class AttemptActiveMeterFilterTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void leavesOutTheAttemptsLongTaskTimerButNotTheOperations() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LongTaskTimer.builder("retry.after.attempt.active").tag("provider", "default").register(registry);
			LongTaskTimer.builder("retry.after.operation.active").tag("provider", "default").register(registry);
			assertThat(registry.find("retry.after.attempt.active").longTaskTimers()).isEmpty();
			assertThat(registry.find("retry.after.operation.active").longTaskTimers()).hasSize(1);
		});
	}

	@Test
	void springBootsEnableSwitchKeepsIt() {
		this.contextRunner.withPropertyValues("management.metrics.enable.retry.after.attempt.active=true")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(AttemptActiveMeterFilter.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				LongTaskTimer.builder("retry.after.attempt.active").tag("provider", "default").register(registry);
				assertThat(registry.find("retry.after.attempt.active").longTaskTimers()).hasSize(1);
			});
	}

}
