package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import io.github.retryafter.JitterMode;
import io.github.retryafter.OnMissingDate;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.StateScope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.Backoff;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingMode;
import io.github.retryafter.pacing.PacingSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every property lands on the setting it names, a provider's own value wins over the global one field by field, and
 * every rejected value names the property it was written under.
 */
class RetryAfterPropertiesMapperTests {

	private final RetryAfterProperties properties = new RetryAfterProperties();

	@Test
	void withNothingSetEveryProviderGetsTheBuiltInDefaults() {
		RetryAfterSettings settings = map();
		assertThat(settings.providerNames()).containsExactly("default");
		ProviderSettings defaults = settings.provider("default").orElseThrow();
		assertThat(defaults.policy().planner().maxWait()).contains(Duration.ofSeconds(30));
		assertThat(defaults.policy().pacing()).isEqualTo(PacingSettings.DEFAULTS);
		assertThat(defaults.policy().maxAttempts()).isEqualTo(RetryPolicy.DEFAULTS.maxAttempts());
		assertThat(defaults.policy().backoff()).isEqualTo(RetryPolicy.DEFAULTS.backoff());
		assertThat(defaults.budget()).isEqualTo(BudgetSettings.PROVIDER_DEFAULTS);
		assertThat(defaults.idempotencyKeyEnabled()).isFalse();
		assertThat(defaults.maxReplayBodyBytes()).isEqualTo(1024 * 1024);
		assertThat(defaults.maxDrainBytes()).isEqualTo(64 * 1024);
		assertThat(settings.globalBudget()).isEqualTo(BudgetSettings.GLOBAL_DEFAULTS);
		assertThat(settings.jitterKey()).isEmpty();
	}

	@Test
	void defaultKeepsItsStatePerOriginAndAConfiguredProviderSharesOneUnlessToldOtherwise() {
		this.properties.getProviders().put("payments", new RetryAfterProperties.Provider());
		RetryAfterProperties.Provider search = new RetryAfterProperties.Provider();
		search.setScope(StateScope.ORIGIN);
		this.properties.getProviders().put("search", search);
		RetryAfterSettings settings = map();
		assertThat(settings.provider("default").orElseThrow().scope()).isEqualTo(StateScope.ORIGIN);
		assertThat(settings.provider("payments").orElseThrow().scope()).isEqualTo(StateScope.PROVIDER);
		assertThat(settings.provider("search").orElseThrow().scope()).isEqualTo(StateScope.ORIGIN);
		assertThat(settings.maxOrigins()).isEqualTo(1000);
	}

	@Test
	void maxCooldownIsTheProvidersMaxWaitUnlessSet() {
		this.properties.setMaxWait(Duration.ofSeconds(12));
		RetryAfterProperties.Provider payments = new RetryAfterProperties.Provider();
		payments.setMaxWait(Duration.ofSeconds(5));
		this.properties.getProviders().put("payments", payments);
		RetryAfterProperties.Provider search = new RetryAfterProperties.Provider();
		search.getPacing().setMaxCooldown(Duration.ofSeconds(2));
		this.properties.getProviders().put("search", search);
		RetryAfterSettings settings = map();
		assertThat(settings.provider("default").orElseThrow().policy().pacing().maxCooldown()).hasSeconds(12);
		assertThat(settings.provider("payments").orElseThrow().policy().pacing().maxCooldown()).hasSeconds(5);
		assertThat(settings.provider("search").orElseThrow().policy().pacing().maxCooldown()).hasSeconds(2);
	}

	@Test
	void aProviderNamedGlobalOrNotUsableAsATagFailsNamingTheProperty() {
		assertRejected((p) -> p.getProviders().put("global", new RetryAfterProperties.Provider()),
				"retry.after.providers.global", "global");
		assertRejected((p) -> p.getProviders().put("pay ments", new RetryAfterProperties.Provider()),
				"retry.after.providers.pay ments", "pay ments");
		assertRejected((p) -> p.getProviders().put("x".repeat(65), new RetryAfterProperties.Provider()),
				"retry.after.providers." + "x".repeat(65), "x".repeat(65));
		assertRejected((p) -> p.setMaxOrigins(0), "retry.after.max-origins", "0");
		assertRejected((p) -> p.getPacing().setMaxCooldown(Duration.ofSeconds(-1)), "retry.after.pacing.max-cooldown",
				"PT-1S");
	}

	@Test
	void everyGlobalPropertyLandsOnTheSettingItNames() {
		setEverything(this.properties);
		this.properties.setJitterKey("pod-7");
		this.properties.getGlobalBudget().setCapacity(300.0);
		this.properties.getGlobalBudget().setDepositRatio(0.4);
		this.properties.getGlobalBudget().setRefillPerSecond(9.0);
		RetryAfterSettings settings = map();
		assertEverything(settings.provider("default").orElseThrow());
		assertThat(settings.globalBudget()).isEqualTo(new BudgetSettings(300, 0.4, 9));
		assertThat(settings.jitterKey()).contains("pod-7");
	}

	@Test
	void everyProviderPropertyLandsOnThatProviderOnly() {
		RetryAfterProperties.Provider payments = provider("payments", "api.pay.example");
		setEverything(payments);
		RetryAfterSettings settings = map();
		assertThat(settings.providerNames()).containsExactly("default", "payments");
		ProviderSettings mapped = settings.provider("payments").orElseThrow();
		assertEverything(mapped);
		assertThat(mapped.hosts()).containsExactly("api.pay.example");
		assertThat(settings.providerBudgets()).containsEntry("payments", new BudgetSettings(7, 0.3, 0.5));
		assertThat(settings.provider("default").orElseThrow().policy().maxAttempts())
			.isEqualTo(RetryPolicy.DEFAULTS.maxAttempts());
	}

	@Test
	void aProviderInheritsEachGlobalValueItDoesNotSetItself() {
		this.properties.setMaxAttempts(6);
		this.properties.getSpread().setMax(Duration.ofSeconds(5));
		this.properties.getPacing().setBurst(4);
		this.properties.getBudget().setCapacity(9.0);
		RetryAfterProperties.Provider payments = provider("payments", "api.pay.example");
		payments.setDeadline(Duration.ofMinutes(2));
		payments.getPacing().setFreshShare(0.3);
		payments.getBudget().setRefillPerSecond(2.0);
		ProviderSettings mapped = map().provider("payments").orElseThrow();
		assertThat(mapped.policy().maxAttempts()).isEqualTo(6);
		assertThat(mapped.policy().deadline()).isEqualTo(Duration.ofMinutes(2));
		assertThat(mapped.policy().planner().maxSpread()).isEqualTo(Duration.ofSeconds(5));
		assertThat(mapped.policy().pacing().burst()).isEqualTo(4);
		assertThat(mapped.policy().pacing().freshShare()).isEqualTo(0.3);
		assertThat(mapped.budget()).isEqualTo(new BudgetSettings(9, 0.2, 2));
	}

	@Test
	void aConfiguredDefaultProviderReplacesTheImplicitOne() {
		provider("default").setMaxAttempts(2);
		RetryAfterSettings settings = map();
		assertThat(settings.providerNames()).containsExactly("default");
		assertThat(settings.provider("default").orElseThrow().policy().maxAttempts()).isEqualTo(2);
	}

	@Test
	void aBlankJitterKeyMeansTheDefaultKey() {
		this.properties.setJitterKey("  ");
		assertThat(map().jitterKey()).isEmpty();
	}

	@Test
	void aRejectedGlobalValueNamesTheGlobalProperty() {
		this.properties.setMaxAttempts(0);
		provider("payments").setMaxAttempts(3);
		assertRejected("retry.after.max-attempts", "0");
	}

	@Test
	void aRejectedProviderValueNamesTheProvidersProperty() {
		provider("payments").setAttemptTimeout(Duration.ZERO);
		assertRejected("retry.after.providers.payments.attempt-timeout", "PT0S");
	}

	@Test
	void negativeDurationsAndSizesNameTheirProperty() {
		assertRejected((p) -> p.setMaxWait(Duration.ofSeconds(-5)), "retry.after.max-wait", "PT-5S");
		assertRejected((p) -> p.setTotalWait(Duration.ofSeconds(-1)), "retry.after.total-wait", "PT-1S");
		assertRejected((p) -> p.setMinAttemptTime(Duration.ofSeconds(-1)), "retry.after.min-attempt-time", "PT-1S");
		assertRejected((p) -> p.setMaxReplayBody(DataSize.ofBytes(-1)), "retry.after.max-replay-body", "-1B");
		assertRejected((p) -> p.setMaxDrain(DataSize.ofBytes(-1)), "retry.after.max-drain", "-1B");
	}

	@Test
	void maxDrainIsSixtyFourKilobytesUnlessSetGloballyOrPerProvider() {
		this.properties.setMaxDrain(DataSize.ofKilobytes(8));
		provider("payments", "pay.example").setMaxDrain(DataSize.ofBytes(100));
		provider("search", "search.example");
		RetryAfterSettings settings = map();
		assertThat(settings.provider("default").orElseThrow().maxDrainBytes()).isEqualTo(8 * 1024);
		assertThat(settings.provider("payments").orElseThrow().maxDrainBytes()).isEqualTo(100);
		assertThat(settings.provider("search").orElseThrow().maxDrainBytes()).isEqualTo(8 * 1024);
		assertThat(new RetryAfterPropertiesMapper(new RetryAfterProperties()).settings()
			.provider("default")
			.orElseThrow()
			.maxDrainBytes()).isEqualTo(64 * 1024);
		assertRejected((p) -> p.setMaxDrain(DataSize.ofBytes(-1)), "retry.after.max-drain", "-1B");
	}

	@Test
	void badListsAndHeadersNameTheirProperty() {
		assertRejected((p) -> p.setRetryableStatuses(Set.of(42)), "retry.after.retryable-statuses", "[42]");
		assertRejected((p) -> p.setRetryableMethods(Set.of("GE T")), "retry.after.retryable-methods", "[GE T]");
		assertRejected((p) -> p.getIdempotencyKey().setHeader("Bad Header"), "retry.after.idempotency-key.header",
				"Bad Header");
	}

	@Test
	void badBudgetValuesNameTheSingleProperty() {
		this.properties.getGlobalBudget().setDepositRatio(-0.5);
		assertRejected("retry.after.global-budget.deposit-ratio", "-0.5");
		RetryAfterProperties fresh = new RetryAfterProperties();
		RetryAfterProperties.Provider payments = new RetryAfterProperties.Provider();
		payments.getBudget().setCapacity(Double.NaN);
		fresh.getProviders().put("payments", payments);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new RetryAfterPropertiesMapper(fresh).settings())
			.withMessageContaining("retry.after.providers.payments.budget.capacity")
			.withMessageContaining("NaN");
	}

	@Test
	void badPacingValuesNameTheirProperty() {
		assertRejected((p) -> p.getPacing().setBurst(0), "retry.after.pacing.burst", "0");
		assertRejected((p) -> p.getPacing().setDecreaseFactor(1.0), "retry.after.pacing.decrease-factor", "1.0");
		assertRejected((p) -> {
			p.getPacing().setMinRate(50.0);
			p.getPacing().setMaxRate(10.0);
		}, "retry.after.pacing.max-rate", "10.0");
	}

	@Test
	void settingsCheckedAgainstEachOtherNameTheProvidersProperty() {
		RetryAfterProperties.Provider payments = provider("payments");
		payments.setDeadline(Duration.ofMillis(50));
		payments.setMinAttemptTime(Duration.ofMillis(100));
		assertRejected("retry.after.providers.payments.deadline", "PT0.05S");
		RetryAfterProperties other = new RetryAfterProperties();
		other.getBackoff().setDelay(Duration.ofSeconds(20));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new RetryAfterPropertiesMapper(other).settings())
			.withMessageContaining("retry.after.backoff.delay")
			.withMessageContaining("PT20S");
	}

	@Test
	void aHostListedUnderTwoProvidersNamesTheSecondProvidersHosts() {
		provider("a", "api.example.com");
		provider("b", " API.example.com ");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::map)
			.withMessageContaining("retry.after.providers.b.hosts")
			.withMessageContaining("'a'");
	}

	private RetryAfterSettings map() {
		return new RetryAfterPropertiesMapper(this.properties).settings();
	}

	private RetryAfterProperties.Provider provider(String name, String... hosts) {
		RetryAfterProperties.Provider provider = new RetryAfterProperties.Provider();
		provider.setHosts(List.of(hosts));
		this.properties.getProviders().put(name, provider);
		return provider;
	}

	private void assertRejected(String property, String value) {
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::map)
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo(property))
			.satisfies((ex) -> assertThat(String.valueOf(ex.getValue())).isEqualTo(value));
	}

	private static void assertRejected(Consumer<RetryAfterProperties> setting, String property, String value) {
		RetryAfterProperties properties = new RetryAfterProperties();
		setting.accept(properties);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new RetryAfterPropertiesMapper(properties).settings())
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo(property))
			.satisfies((ex) -> assertThat(String.valueOf(ex.getValue())).isEqualTo(value));
	}

	/** Sets every policy property to a value that is not its default. */
	private static void setEverything(PolicyProperties p) {
		p.setMaxAttempts(7);
		p.setDeadline(Duration.ofSeconds(40));
		p.setAttemptTimeout(Duration.ofSeconds(3));
		p.setMinAttemptTime(Duration.ofMillis(200));
		p.setMaxWait(Duration.ofSeconds(90));
		p.setTotalWait(Duration.ofSeconds(25));
		p.setHintMode(RetryHintMode.MAX_WITH_BACKOFF);
		p.setJitter(JitterMode.KEYED);
		p.getSpread().setRatio(0.5);
		p.getSpread().setMin(Duration.ofMillis(100));
		p.getSpread().setMax(Duration.ofSeconds(8));
		p.setOnMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK);
		p.setSubtractRoundTrip(true);
		p.getBackoff().setDelay(Duration.ofMillis(300));
		p.getBackoff().setMaxDelay(Duration.ofSeconds(4));
		p.setRetryableStatuses(Set.of(429, 503));
		p.setRetryableMethods(Set.of("get", "Delete"));
		p.getIdempotencyKey().setEnabled(true);
		p.getIdempotencyKey().setHeader("X-Request-Key");
		p.getBudget().setCapacity(7.0);
		p.getBudget().setDepositRatio(0.3);
		p.getBudget().setRefillPerSecond(0.5);
		p.setMaxReplayBody(DataSize.ofKilobytes(64));
		p.setMaxDrain(DataSize.ofKilobytes(8));
		p.getPacing().setMode(PacingMode.FAIL_FAST);
		p.getPacing().setMinRate(2.0);
		p.getPacing().setMaxRate(500.0);
		p.getPacing().setBurst(3);
		p.getPacing().setFreshShare(0.25);
		p.getPacing().setDecreaseFactor(0.5);
		p.getPacing().setMaxCooldown(Duration.ofSeconds(45));
	}

	private static void assertEverything(ProviderSettings settings) {
		RetryPolicy policy = settings.policy();
		assertThat(policy.maxAttempts()).isEqualTo(7);
		assertThat(policy.deadline()).isEqualTo(Duration.ofSeconds(40));
		assertThat(policy.attemptTimeout()).isEqualTo(Duration.ofSeconds(3));
		assertThat(policy.minAttemptTime()).isEqualTo(Duration.ofMillis(200));
		assertThat(policy.totalWait()).isEqualTo(Duration.ofSeconds(25));
		assertThat(policy.hintMode()).isEqualTo(HintMode.MAX_WITH_BACKOFF);
		assertThat(policy.subtractRoundTrip()).isTrue();
		assertThat(policy.backoff()).isEqualTo(new Backoff(Duration.ofMillis(300), Duration.ofSeconds(4)));
		assertThat(policy.retryableStatuses()).containsExactlyInAnyOrder(429, 503);
		assertThat(policy.retryableMethods()).containsExactlyInAnyOrder("GET", "DELETE");
		assertThat(policy.idempotencyKeyHeader()).isEqualTo("X-Request-Key");
		assertThat(policy.planner()).isEqualTo(PlannerOptions.builder()
			.maxWait(Duration.ofSeconds(90))
			.jitter(JitterMode.KEYED)
			.spreadRatio(0.5)
			.minSpread(Duration.ofMillis(100))
			.maxSpread(Duration.ofSeconds(8))
			.onMissingDate(OnMissingDate.TRUST_CLIENT_CLOCK)
			.build());
		assertThat(policy.pacing()).isEqualTo(PacingSettings.builder()
			.mode(PacingMode.FAIL_FAST)
			.minRate(2)
			.maxRate(500)
			.burst(3)
			.freshShare(0.25)
			.decreaseFactor(0.5)
			.maxCooldown(Duration.ofSeconds(45))
			.build());
		assertThat(settings.budget()).isEqualTo(new BudgetSettings(7, 0.3, 0.5));
		assertThat(settings.idempotencyKeyEnabled()).isTrue();
		assertThat(settings.maxReplayBodyBytes()).isEqualTo(64 * 1024);
		assertThat(settings.maxDrainBytes()).isEqualTo(8 * 1024);
	}

}
