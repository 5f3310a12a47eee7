package io.github.retryafter.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

import io.github.retryafter.HintFields;
import io.github.retryafter.NearestName;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterSettings;
import io.github.retryafter.boot.StateScope;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.Backoff;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.ProviderConventions;
import io.github.retryafter.engine.ProviderProfile;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.engine.RetryPolicyBuilder;
import io.github.retryafter.pacing.PacingSettings;

/**
 * Maps {@link RetryAfterProperties} onto {@link RetryAfterSettings}, once, in one place. A provider's settings start
 * from the built-in defaults, then the global properties ({@code retry.after.*}) are laid over them, then the
 * provider's own ({@code retry.after.providers.<name>.*}): each property set walked with {@link PropertyMapper}, so a
 * value that is not set leaves the one below in force.
 * <p>
 * Every bad value fails here with an {@link InvalidConfigurationPropertyValueException} naming the property as it
 * was written and the value: a single value when the setter that receives it rejects it, and, for the settings
 * checked against each other when built (deadline, backoff, spread, pacing rates), the provider's property that the
 * check bounds.
 */
final class RetryAfterPropertiesMapper {

	/** Built-in defaults that the core leaves open: the starter always has a finite max wait. */
	static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

	static final DataSize DEFAULT_MAX_REPLAY_BODY = DataSize.ofMegabytes(1);

	static final DataSize DEFAULT_MAX_DRAIN = DataSize.ofBytes(ProviderSettings.DEFAULT_MAX_DRAIN_BYTES);

	private static final String PREFIX = "retry.after.";

	private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

	private final PropertyMapper map = PropertyMapper.get();

	private final RetryAfterProperties properties;

	RetryAfterPropertiesMapper(RetryAfterProperties properties) {
		this.properties = properties;
	}

	/**
	 * Returns every setting in force: every provider ({@code default} first unless configured), the global budget
	 * and the jitter key.
	 * @throws InvalidConfigurationPropertyValueException naming the first bad property
	 */
	RetryAfterSettings settings() {
		Optional<String> jitterKey = Optional.ofNullable(this.properties.getJitterKey()).filter(StringUtils::hasText);
		int maxOrigins = this.properties.getMaxOrigins();
		if (maxOrigins < 1) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "max-origins", maxOrigins,
					"at least one origin must be tracked");
		}
		return new RetryAfterSettings(providers(), globalBudget(), jitterKey, maxOrigins);
	}

	private List<ProviderSettings> providers() {
		Layer global = new Layer(PREFIX, this.properties);
		List<ProviderSettings> result = new ArrayList<>();
		Map<String, RetryAfterProperties.Provider> providers = this.properties.getProviders();
		if (!providers.containsKey(OperationSpec.DEFAULT_PROVIDER)) {
			result.add(provider(OperationSpec.DEFAULT_PROVIDER, List.of(), null, ProviderProfile.STANDARD,
					List.of(global)));
		}
		Map<String, String> owners = new HashMap<>();
		providers.forEach((name, provider) -> {
			checkName(name);
			String prefix = PREFIX + "providers." + name + ".";
			for (String host : provider.getHosts()) {
				String previous = owners.putIfAbsent(host.trim().toLowerCase(Locale.ROOT), name);
				if (previous != null) {
					throw new InvalidConfigurationPropertyValueException(prefix + "hosts", host,
							"it is already listed under provider '" + previous + "'; list each host under one provider");
				}
			}
			result.add(provider(name, provider.getHosts(), provider.getScope(), profile(prefix, provider),
					List.of(global, new Layer(prefix, provider))));
		});
		return result;
	}

	private BudgetSettings globalBudget() {
		return budget(BudgetSettings.GLOBAL_DEFAULTS, PREFIX + "global-budget.", this.properties.getGlobalBudget());
	}

	/** The provider's profile: {@code standard} unless set; an unknown name fails naming the nearest. */
	private static ProviderProfile profile(String prefix, RetryAfterProperties.Provider provider) {
		String name = provider.getProfile();
		if (!StringUtils.hasText(name)) {
			return ProviderProfile.STANDARD;
		}
		return ProviderProfile.named(name)
			.orElseThrow(() -> new InvalidConfigurationPropertyValueException(prefix + "profile", name,
					"there is no such profile; did you mean '" + NearestName.of(name, ProviderProfile.names()).get()
							+ "'? Profiles: " + String.join(", ", ProviderProfile.names())));
	}

	/**
	 * Lays each property set over the defaults, the profile just under the provider's own properties, then builds
	 * the provider's settings, naming the last layer's property when settings fail a check against each other.
	 */
	private ProviderSettings provider(String name, List<String> hosts, StateScope scope, ProviderProfile profile,
			List<Layer> layers) {
		Draft draft = new Draft();
		Layer own = layers.get(layers.size() - 1);
		for (Layer layer : layers) {
			if (layer == own) {
				applyProfile(profile, layers, draft);
			}
			apply(layer, draft);
		}
		if (own.properties() instanceof RetryAfterProperties.Provider provider && provider.getHintFields() != null) {
			draft.planner.fields(new HintFields(provider.getHintFields()));
		}
		if (resolved(layers, (p) -> p.getPacing().getMaxCooldown(), null) == null) {
			draft.pacing.maxCooldown(resolved(layers, PolicyProperties::getMaxWait, DEFAULT_MAX_WAIT));
		}
		RetryPolicy defaults = RetryPolicy.DEFAULTS;
		Duration delay = resolved(layers, (p) -> p.getBackoff().getDelay(), defaults.backoff().base());
		Duration maxDelay = resolved(layers, (p) -> p.getBackoff().getMaxDelay(), defaults.backoff().max());
		draft.policy.backoff(own.check("backoff.delay", delay, () -> new Backoff(delay, maxDelay)));
		draft.policy.planner(own.check("spread.max",
				resolved(layers, (p) -> p.getSpread().getMax(), PlannerOptions.DEFAULTS.maxSpread()),
				draft.planner::build));
		draft.policy.pacing(own.check("pacing.max-rate",
				resolved(layers, (p) -> p.getPacing().getMaxRate(), PacingSettings.DEFAULTS.maxRate()),
				draft.pacing::build));
		draft.policy.conventions(draft.conventions);
		RetryPolicy policy = own.check("deadline",
				resolved(layers, PolicyProperties::getDeadline, defaults.deadline()), draft.policy::build);
		return new ProviderSettings(name, hosts, policy, draft.budget, draft.idempotencyKeyEnabled,
				draft.maxReplayBody.toBytes(), draft.maxDrain.toBytes(),
				(scope != null) ? scope : ProviderSettings.defaultScope(name), draft.clientTimeouts);
	}

	/**
	 * A provider's name becomes a metric tag, a Redis key part and an endpoint path: letters, digits, '.', '_' and
	 * '-' only, and never 'global', the global budget's tag.
	 */
	private static void checkName(String name) {
		String property = PREFIX + "providers." + name;
		if ("global".equalsIgnoreCase(name)) {
			throw new InvalidConfigurationPropertyValueException(property, name,
					"'global' names the global budget in metrics and the endpoint; give the provider another name");
		}
		if (!VALID_NAME.matcher(name).matches()) {
			throw new InvalidConfigurationPropertyValueException(property, name,
					"a provider name is a metric tag: use 1 to 64 letters, digits, '.', '_' or '-', starting with a "
							+ "letter or digit");
		}
	}

	/**
	 * Lays a profile over the global properties: its fields, its statuses added to the retryable statuses in force,
	 * its refusals, its attempt header when it names one, and its call timeouts (the client's own timeouts for each
	 * attempt, which only the provider's own {@code attempt-timeout} turns off, and its deadline). {@code standard}
	 * lays nothing: it is what the properties alone say.
	 */
	private static void applyProfile(ProviderProfile profile, List<Layer> layers, Draft draft) {
		if (profile.equals(ProviderProfile.STANDARD)) {
			return;
		}
		draft.planner.fields(profile.fields());
		if (!profile.addedRetryableStatuses().isEmpty()) {
			List<Layer> below = layers.subList(0, layers.size() - 1);
			draft.policy.retryableStatuses(profile.retryableStatuses(
					resolved(below, PolicyProperties::getRetryableStatuses, RetryPolicy.DEFAULT_RETRYABLE_STATUSES)));
		}
		ProviderConventions conventions = profile.conventions();
		draft.conventions = draft.conventions.withRetryRefusedRequests(conventions.retryRefusedRequests())
			.withRefusalStatuses(conventions.refusalStatuses());
		conventions.attemptHeader()
			.ifPresent((header) -> draft.conventions = draft.conventions.withAttemptHeader(header));
		draft.clientTimeouts = profile.timeouts().clientTimeouts();
		profile.timeouts().deadline().ifPresent(draft.policy::deadline);
	}

	/** Lays one property set over the draft: only the values it sets. */
	private void apply(Layer layer, Draft draft) {
		PolicyProperties p = layer.properties();
		RetryPolicyBuilder policy = draft.policy;
		this.map.from(p::getMaxAttempts).to(layer.named("max-attempts", policy::maxAttempts));
		this.map.from(p::getDeadline).to(layer.named("deadline", policy::deadline));
		this.map.from(p::getAttemptTimeout).to(layer.named("attempt-timeout", (timeout) -> {
			policy.attemptTimeout(timeout);
			// an attempt timeout set for the provider is the user's bound, below the client's own if so set
			draft.clientTimeouts = false;
		}));
		this.map.from(p::getMinAttemptTime).to(layer.named("min-attempt-time", policy::minAttemptTime));
		this.map.from(p::getTotalWait).to(layer.named("total-wait", policy::totalWait));
		this.map.from(p::getHintMode).as(RetryHintMode::engineMode).to(policy::hintMode);
		this.map.from(p::getHintedRetries).to(policy::hintedRetries);
		this.map.from(p::getSubtractRoundTrip).to(policy::subtractRoundTrip);
		this.map.from(p::getRetryableStatuses).to(layer.named("retryable-statuses", policy::retryableStatuses));
		this.map.from(p::getRetryableMethods).to(layer.named("retryable-methods", policy::retryableMethods));
		this.map.from(p.getIdempotencyKey()::getHeader)
			.to(layer.named("idempotency-key.header", policy::idempotencyKeyHeader));
		this.map.from(p.getIdempotencyKey()::getEnabled).to((enabled) -> draft.idempotencyKeyEnabled = enabled);
		this.map.from(p::getRetryRefusedRequests)
			.to((retry) -> draft.conventions = draft.conventions.withRetryRefusedRequests(retry));
		this.map.from(p::getRefusalStatuses).to(layer.named("refusal-statuses",
				(statuses) -> draft.conventions = draft.conventions.withRefusalStatuses(statuses)));
		this.map.from(p::getAttemptHeader).whenHasText().to(layer.named("attempt-header",
				(header) -> draft.conventions = draft.conventions.withAttemptHeader(header.trim())));
		this.map.from(p::getMaxReplayBody)
			.to(layer.named("max-replay-body", (size) -> draft.maxReplayBody = nonNegative(size)));
		this.map.from(p::getMaxDrain).to(layer.named("max-drain", (size) -> draft.maxDrain = nonNegative(size)));
		PlannerOptions.Builder planner = draft.planner;
		this.map.from(p::getMaxWait).to(layer.named("max-wait", (maxWait) -> planner.maxWait(nonNegative(maxWait))));
		this.map.from(p::getJitter).to(planner::jitter);
		this.map.from(p::getOnMissingDate).to(planner::onMissingDate);
		this.map.from(p.getSpread()::getRatio).to(planner::spreadRatio);
		this.map.from(p.getSpread()::getMin).to(planner::minSpread);
		this.map.from(p.getSpread()::getMax).to(planner::maxSpread);
		PacingProperties pacing = p.getPacing();
		this.map.from(pacing::getMode).to(draft.pacing::mode);
		this.map.from(pacing::getMinRate).to(layer.named("pacing.min-rate", draft.pacing::minRate));
		this.map.from(pacing::getMaxRate).to(layer.named("pacing.max-rate", draft.pacing::maxRate));
		this.map.from(pacing::getBurst).to(layer.named("pacing.burst", draft.pacing::burst));
		this.map.from(pacing::getFreshShare).to(layer.named("pacing.fresh-share", draft.pacing::freshShare));
		this.map.from(pacing::getDecreaseFactor)
			.to(layer.named("pacing.decrease-factor", draft.pacing::decreaseFactor));
		this.map.from(pacing::getMaxCooldown).to(layer.named("pacing.max-cooldown", draft.pacing::maxCooldown));
		this.map.from(pacing::getMaxQueued).to(layer.named("pacing.max-queued", draft.pacing::maxQueued));
		this.map.from(pacing.getRateLimitFields()::getEnabled).to(draft.pacing::rateLimitFields);
		draft.budget = budget(draft.budget, layer.prefix() + "budget.", p.getBudget());
	}

	/** Lays one budget property set over {@code below}; {@link BudgetSettings} checks each value on its own. */
	private BudgetSettings budget(BudgetSettings below, String prefix, BudgetProperties budget) {
		BudgetSettings result = below;
		result = this.map.from(budget::getCapacity)
			.to(result, namedWith(prefix + "capacity", BudgetSettings::withCapacity));
		result = this.map.from(budget::getDepositRatio)
			.to(result, namedWith(prefix + "deposit-ratio", BudgetSettings::withDepositRatio));
		return this.map.from(budget::getRefillPerSecond)
			.to(result, namedWith(prefix + "refill-per-second", BudgetSettings::withRefillPerSecond));
	}

	/** The value in force after every layer, for a message: the last one set, else {@code fallback}. */
	private static <T> T resolved(List<Layer> layers, Function<PolicyProperties, T> getter, T fallback) {
		T value = fallback;
		for (Layer layer : layers) {
			T set = getter.apply(layer.properties());
			value = (set != null) ? set : value;
		}
		return value;
	}

	private static Duration nonNegative(Duration duration) {
		if (duration.isNegative()) {
			throw new IllegalArgumentException("must not be negative");
		}
		return duration;
	}

	private static DataSize nonNegative(DataSize size) {
		if (size.isNegative()) {
			throw new IllegalArgumentException("must not be negative");
		}
		return size;
	}

	/** A setter that reports a value it rejects as a bad value of {@code property}. */
	private static <T> Consumer<T> named(String property, Consumer<T> setter) {
		return (value) -> check(property, value, () -> {
			setter.accept(value);
			return null;
		});
	}

	/** A copy-with function that reports a value it rejects as a bad value of {@code property}. */
	private static <R, T> BiFunction<R, T, R> namedWith(String property, BiFunction<R, T, R> with) {
		return (instance, value) -> check(property, value, () -> with.apply(instance, value));
	}

	private static <R> R check(String property, Object value, Supplier<R> action) {
		try {
			return action.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property, value, ex.getMessage());
		}
	}

	/**
	 * One property set and the prefix its properties are written under.
	 */
	private record Layer(String prefix, PolicyProperties properties) {

		<T> Consumer<T> named(String property, Consumer<T> setter) {
			return RetryAfterPropertiesMapper.named(this.prefix + property, setter);
		}

		<R> R check(String property, Object value, Supplier<R> action) {
			return RetryAfterPropertiesMapper.check(this.prefix + property, value, action);
		}

	}

	/** One provider's settings while the layers are laid over each other. Not thread-safe. */
	private static final class Draft {

		final RetryPolicyBuilder policy = RetryPolicy.builder();

		final PlannerOptions.Builder planner = PlannerOptions.builder().maxWait(DEFAULT_MAX_WAIT);

		final PacingSettings.Builder pacing = PacingSettings.builder();

		BudgetSettings budget = BudgetSettings.PROVIDER_DEFAULTS;

		boolean idempotencyKeyEnabled;

		boolean clientTimeouts;

		ProviderConventions conventions = ProviderConventions.NONE;

		DataSize maxReplayBody = DEFAULT_MAX_REPLAY_BODY;

		DataSize maxDrain = DEFAULT_MAX_DRAIN;

	}

}
