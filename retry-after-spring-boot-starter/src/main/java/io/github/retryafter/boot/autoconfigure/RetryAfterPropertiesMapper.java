package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import io.github.retryafter.JitterMode;
import io.github.retryafter.OnMissingDate;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.Backoff;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingSettings;

/**
 * Maps {@link RetryAfterProperties} onto the core's immutable settings, in one place: each provider's value, else the
 * global value, else the built-in default. Every bad value fails with the property's name and the value.
 */
final class RetryAfterPropertiesMapper {

	/** Built-in defaults that the core leaves open: the starter always has a finite max wait. */
	static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

	static final DataSize DEFAULT_MAX_REPLAY_BODY = DataSize.ofMegabytes(1);

	static final String DEFAULT_IDEMPOTENCY_HEADER = "Idempotency-Key";

	private static final String PREFIX = "retry.after.";

	private final RetryAfterProperties properties;

	RetryAfterPropertiesMapper(RetryAfterProperties properties) {
		this.properties = properties;
	}

	/**
	 * Returns the settings of every provider, {@code default} first.
	 */
	List<ProviderSettings> providers() {
		List<ProviderSettings> result = new ArrayList<>();
		Map<String, RetryAfterProperties.Provider> providers = this.properties.getProviders();
		if (!providers.containsKey(OperationSpec.DEFAULT_PROVIDER)) {
			result.add(map(OperationSpec.DEFAULT_PROVIDER, null));
		}
		Map<String, String> owners = new java.util.HashMap<>();
		providers.forEach((name, provider) -> {
			for (String host : provider.getHosts()) {
				String previous = owners.putIfAbsent(host.trim().toLowerCase(Locale.ROOT), name);
				if (previous != null) {
					throw new InvalidConfigurationPropertyValueException(PREFIX + "providers." + name + ".hosts", host,
							"it is already listed under provider '" + previous + "'; list each host under one provider");
				}
			}
			result.add(map(name, provider));
		});
		return result;
	}

	/**
	 * Returns the global budget's settings.
	 */
	BudgetSettings globalBudget() {
		return budget(PREFIX + "global-budget.", this.properties.getGlobalBudget(), null, BudgetSettings.GLOBAL_DEFAULTS);
	}

	private ProviderSettings map(String name, RetryAfterProperties.Provider provider) {
		String prefix = (provider != null) ? PREFIX + "providers." + name + "." : PREFIX;
		Resolver resolve = new Resolver(this.properties, provider, prefix);
		RetryPolicy defaults = RetryPolicy.DEFAULTS;
		RetryPolicy.Builder policy = RetryPolicy.builder();
		resolve.apply("max-attempts", PolicyProperties::getMaxAttempts, defaults.maxAttempts(), policy::maxAttempts);
		resolve.apply("deadline", PolicyProperties::getDeadline, defaults.deadline(), policy::deadline);
		resolve.apply("attempt-timeout", PolicyProperties::getAttemptTimeout, defaults.attemptTimeout(),
				policy::attemptTimeout);
		resolve.apply("min-attempt-time", PolicyProperties::getMinAttemptTime, defaults.minAttemptTime(),
				policy::minAttemptTime);
		resolve.apply("total-wait", PolicyProperties::getTotalWait, defaults.totalWait(), policy::totalWait);
		resolve.apply("hint-mode", PolicyProperties::getHintMode, RetryHintMode.FLOOR_PLUS_JITTER,
				(mode) -> policy.hintMode(mode.engineMode()));
		resolve.apply("subtract-round-trip", PolicyProperties::getSubtractRoundTrip, defaults.subtractRoundTrip(),
				policy::subtractRoundTrip);
		resolve.apply("retryable-statuses", PolicyProperties::getRetryableStatuses, defaults.retryableStatuses(),
				policy::retryableStatuses);
		resolve.apply("retryable-methods", PolicyProperties::getRetryableMethods, defaults.retryableMethods(),
				(Set<String> methods) -> policy
					.retryableMethods(methods.stream().map((method) -> method.toUpperCase(Locale.ROOT)).toList()));
		resolve.apply("idempotency-key.header", (p) -> p.getIdempotencyKey().getHeader(), DEFAULT_IDEMPOTENCY_HEADER,
				policy::idempotencyKeyHeader);
		Duration backoffDelay = resolve.value((p) -> p.getBackoff().getDelay(), defaults.backoff().base());
		Duration backoffMax = resolve.value((p) -> p.getBackoff().getMaxDelay(), defaults.backoff().max());
		resolve.check("backoff.delay", backoffDelay, () -> policy.backoff(new Backoff(backoffDelay, backoffMax)));
		policy.planner(planner(resolve));
		policy.pacing(pacing(resolve));
		boolean keyEnabled = resolve.value((p) -> p.getIdempotencyKey().getEnabled(), false);
		DataSize maxReplayBody = resolve.value(PolicyProperties::getMaxReplayBody, DEFAULT_MAX_REPLAY_BODY);
		if (maxReplayBody.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(prefix + "max-replay-body", maxReplayBody,
					"must not be negative");
		}
		BudgetSettings budget = budget(prefix + "budget.", (provider != null) ? provider.getBudget() : null,
				this.properties.getBudget(), BudgetSettings.PROVIDER_DEFAULTS);
		List<String> hosts = (provider != null) ? provider.getHosts() : List.of();
		RetryPolicy built = resolve.check("deadline", resolve.value(PolicyProperties::getDeadline, defaults.deadline()),
				policy::build);
		return new ProviderSettings(name, hosts, built, budget, keyEnabled, maxReplayBody.toBytes());
	}

	private PlannerOptions planner(Resolver resolve) {
		PlannerOptions.Builder planner = PlannerOptions.builder();
		resolve.apply("max-wait", PolicyProperties::getMaxWait, DEFAULT_MAX_WAIT, (maxWait) -> {
			if (maxWait.isNegative()) {
				throw new IllegalArgumentException("must not be negative");
			}
			planner.maxWait(maxWait);
		});
		resolve.apply("jitter", PolicyProperties::getJitter, JitterMode.RANDOM, planner::jitter);
		resolve.apply("on-missing-date", PolicyProperties::getOnMissingDate, OnMissingDate.REFUSE,
				planner::onMissingDate);
		PlannerOptions defaults = PlannerOptions.DEFAULTS;
		resolve.apply("spread.ratio", (p) -> p.getSpread().getRatio(), defaults.spreadRatio(), planner::spreadRatio);
		resolve.apply("spread.min", (p) -> p.getSpread().getMin(), defaults.minSpread(), planner::minSpread);
		resolve.apply("spread.max", (p) -> p.getSpread().getMax(), defaults.maxSpread(), planner::maxSpread);
		return resolve.check("spread.max", resolve.value((p) -> p.getSpread().getMax(), defaults.maxSpread()),
				planner::build);
	}

	private PacingSettings pacing(Resolver resolve) {
		PacingSettings defaults = PacingSettings.DEFAULTS;
		PacingSettings.Builder pacing = PacingSettings.builder();
		resolve.apply("pacing.mode", (p) -> p.getPacing().getMode(), defaults.mode(), pacing::mode);
		resolve.apply("pacing.min-rate", (p) -> p.getPacing().getMinRate(), defaults.minRate(), pacing::minRate);
		resolve.apply("pacing.max-rate", (p) -> p.getPacing().getMaxRate(), defaults.maxRate(), pacing::maxRate);
		resolve.apply("pacing.burst", (p) -> p.getPacing().getBurst(), defaults.burst(), pacing::burst);
		resolve.apply("pacing.fresh-share", (p) -> p.getPacing().getFreshShare(), defaults.freshShare(),
				pacing::freshShare);
		resolve.apply("pacing.decrease-factor", (p) -> p.getPacing().getDecreaseFactor(), defaults.decreaseFactor(),
				pacing::decreaseFactor);
		return resolve.check("pacing.max-rate", resolve.value((p) -> p.getPacing().getMaxRate(), defaults.maxRate()),
				pacing::build);
	}

	private static BudgetSettings budget(String prefix, PolicyProperties.Budget own, PolicyProperties.Budget inherited,
			BudgetSettings defaults) {
		double capacity = first(own, inherited, PolicyProperties.Budget::getCapacity, defaults.capacity());
		double ratio = first(own, inherited, PolicyProperties.Budget::getDepositRatio, defaults.depositRatio());
		double refill = first(own, inherited, PolicyProperties.Budget::getRefillPerSecond, defaults.refillPerSecond());
		try {
			return new BudgetSettings(capacity, ratio, refill);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "*",
					"capacity=" + capacity + ", deposit-ratio=" + ratio + ", refill-per-second=" + refill,
					ex.getMessage());
		}
	}

	private static <T> T first(PolicyProperties.Budget own, PolicyProperties.Budget inherited,
			Function<PolicyProperties.Budget, T> getter, T fallback) {
		T value = (own != null) ? getter.apply(own) : null;
		if (value == null && inherited != null) {
			value = getter.apply(inherited);
		}
		return (value != null) ? value : fallback;
	}

	/**
	 * Reads one setting for one provider, and turns a validation failure into one that names the property.
	 */
	private static final class Resolver {

		private final PolicyProperties global;

		private final PolicyProperties provider;

		private final String prefix;

		Resolver(PolicyProperties global, PolicyProperties provider, String prefix) {
			this.global = global;
			this.provider = provider;
			this.prefix = prefix;
		}

		<T> T value(Function<PolicyProperties, T> getter, T fallback) {
			T value = (this.provider != null) ? getter.apply(this.provider) : null;
			if (value == null) {
				value = getter.apply(this.global);
			}
			return (value != null) ? value : fallback;
		}

		<T> void apply(String property, Function<PolicyProperties, T> getter, T fallback,
				java.util.function.Consumer<T> setter) {
			T value = value(getter, fallback);
			check(property, value, () -> {
				setter.accept(value);
				return null;
			});
		}

		<R> R check(String property, Object value, java.util.function.Supplier<R> action) {
			try {
				return action.get();
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(this.prefix + property, value, ex.getMessage());
			}
		}

		void check(String property, Object value, Runnable action) {
			check(property, value, () -> {
				action.run();
				return null;
			});
		}

	}

}
