package io.github.retryafter.boot.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.budget.RetryBudget;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The defaults an IDE shows (from the generated configuration metadata) are the defaults the starter applies.
 */
class ConfigurationMetadataTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class));

	@Test
	void metadataDefaultsAreTheDefaultsInForce() throws Exception {
		Map<String, Object> defaults = metadataDefaults();
		this.contextRunner.run((context) -> {
			ProviderSettings settings = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().settings();
			assertThat(defaults.get("retry.after.max-attempts")).isEqualTo(settings.policy().maxAttempts());
			assertThat(duration(defaults, "retry.after.deadline")).isEqualTo(settings.policy().deadline());
			assertThat(duration(defaults, "retry.after.attempt-timeout")).isEqualTo(settings.policy().attemptTimeout());
			assertThat(duration(defaults, "retry.after.min-attempt-time")).isEqualTo(settings.policy().minAttemptTime());
			assertThat(duration(defaults, "retry.after.total-wait")).isEqualTo(settings.policy().totalWait());
			assertThat(duration(defaults, "retry.after.max-wait")).isEqualTo(settings.policy().planner().maxWait().orElseThrow());
			assertThat(duration(defaults, "retry.after.backoff.delay")).isEqualTo(settings.policy().backoff().base());
			assertThat(duration(defaults, "retry.after.backoff.max-delay")).isEqualTo(settings.policy().backoff().max());
			assertThat(duration(defaults, "retry.after.spread.min")).isEqualTo(settings.policy().planner().minSpread());
			assertThat(duration(defaults, "retry.after.spread.max")).isEqualTo(settings.policy().planner().maxSpread());
			assertThat(((Number) defaults.get("retry.after.spread.ratio")).doubleValue())
				.isEqualTo(settings.policy().planner().spreadRatio());
			assertThat(defaults.get("retry.after.retryable-statuses")).asInstanceOf(
					org.assertj.core.api.InstanceOfAssertFactories.LIST)
				.containsExactlyInAnyOrderElementsOf(settings.policy().retryableStatuses());
			assertThat(defaults.get("retry.after.idempotency-key.header"))
				.isEqualTo(settings.policy().idempotencyKeyHeader());
			assertThat(((Number) defaults.get("retry.after.budget.capacity")).doubleValue())
				.isEqualTo(settings.budget().capacity());
			assertThat(((Number) defaults.get("retry.after.budget.refill-per-second")).doubleValue())
				.isEqualTo(settings.budget().refillPerSecond());
			RetryBudget budget = context.getBean(RetryBudget.class);
			assertThat(((Number) defaults.get("retry.after.global-budget.capacity")).doubleValue())
				.isEqualTo(budget.globalSettings().orElseThrow().capacity());
			assertThat(defaults.get("retry.after.pacing.rate-limit-fields.enabled"))
				.isEqualTo(settings.policy().pacing().rateLimitFields())
				.isEqualTo(true);
			assertThat(settings.maxReplayBodyBytes()).isEqualTo(1024 * 1024);
			assertThat(defaults.get("retry.after.max-replay-body")).isEqualTo("1MB");
			assertThat(settings.maxDrainBytes()).isEqualTo(64 * 1024);
			assertThat(defaults.get("retry.after.max-drain")).isEqualTo("64KB");
		});
	}

	@Test
	void maxCooldownAndMaxOriginsDefaultsInMetadataAreTheOnesInForce() throws Exception {
		Map<String, Object> defaults = metadataDefaults();
		this.contextRunner.run((context) -> {
			ProviderSettings settings = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().settings();
			assertThat(duration(defaults, "retry.after.pacing.max-cooldown"))
				.isEqualTo(settings.policy().pacing().maxCooldown())
				.isEqualTo(settings.policy().planner().maxWait().orElseThrow());
			assertThat(defaults.get("retry.after.max-origins"))
				.isEqualTo(context.getBean(RetryAfterSettings.class).maxOrigins());
			assertThat(defaults.get("retry.after.pacing.max-queued")).isEqualTo(settings.policy().pacing().maxQueued())
				.isEqualTo(10_000);
		});
	}

	@Test
	void maxDrainDefaultInMetadataIsTheOneInForce() throws Exception {
		Map<String, Object> defaults = metadataDefaults();
		this.contextRunner.run((context) -> {
			ProviderSettings settings = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().settings();
			assertThat(DataSize.parse((String) defaults.get("retry.after.max-drain")).toBytes())
				.isEqualTo(settings.maxDrainBytes())
				.isEqualTo(64 * 1024);
		});
	}

	private static Duration duration(Map<String, Object> defaults, String name) {
		return DurationStyle.detectAndParse((String) defaults.get(name));
	}

	@Test
	void everyPropertyOfTheStarterIsListedInDocsProperties() throws Exception {
		String docs = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "properties.md"));
		try (InputStream json = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			List<String> names = JsonPath.read(json, "$.properties[*].name");
			// the per-provider map is listed by its entries (retry.after.providers.<name>.*)
			assertThat(names).filteredOn((name) -> name.startsWith("retry.after.") && !name.equals("retry.after.providers"))
				.hasSizeGreaterThan(40)
				.allSatisfy((name) -> assertThat(docs).as("docs/properties.md lists " + name).contains("`" + name + "`"));
		}
	}

	private static Map<String, Object> metadataDefaults() throws Exception {
		try (InputStream json = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			List<Map<String, Object>> properties = JsonPath.read(json, "$.properties[?(@.defaultValue)]");
			Map<String, Object> defaults = new java.util.HashMap<>();
			properties.forEach((property) -> defaults.put((String) property.get("name"), property.get("defaultValue")));
			return defaults;
		}
	}

}
