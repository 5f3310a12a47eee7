package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.jspecify.annotations.Nullable;

import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryAfterWiring;
import io.github.retryafter.boot.StateScope;
import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.boot.fleet.UnsharedHosts;
import io.github.retryafter.boot.metrics.LastWindows;
import io.github.retryafter.boot.springai.ModelClients;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.ProviderGate;

/**
 * The {@code retryafter} Actuator endpoint ({@code /actuator/retryafter}): per provider, what is wired under it (its
 * profile, its HTTP service groups, the clients that route to it), the settings in force, the
 * budget tokens left, operations and attempts, the amplification, the last clock skew, the last {@code Retry-After},
 * the last refusal and the provider's gate (pacing settings, rate in force, cooldown left, requests queued), and the
 * fleet's state when the budget and cooldown are shared through Redis, with the hosts called whose state it does not
 * share, and the Spring AI model clients the starter sits under with the retry count their SDKs keep above it;
 * {@code /actuator/retryafter/{provider}} shows one provider. Durations are ISO-8601 strings,
 * instants are ISO-8601 UTC strings, and token counts are {@code null} when the budget is unlimited. For a provider
 * that keeps its state per origin, its pacing entry sums its origins up and lists those that hold requests back now
 * (cooling down, probing, paced or queueing), at most {@value #MAX_LISTED_ORIGINS}, longest cooldown first.
 * <p>
 * The write operation ({@code POST /actuator/retryafter/{provider}}, optionally with {@code {"origin": "…"}}) is the
 * operator's escape hatch: it opens the provider's gate, or one origin's, at once and turns its rate limit off, also
 * for this instance (with a shared fleet store it also removes the fleet's cooldown, so no instance closes again from
 * it; the others keep the cooldown they hold until it ends or they are reset too). Anyone who can call it can make
 * this application send requests to a provider that asked for a pause, so the endpoint's default access is
 * {@link Access#READ_ONLY}: the reset exists only with {@code management.endpoint.retryafter.access=unrestricted},
 * which belongs behind operator-only security.
 * <p>
 * Thread-safe: each read builds a new snapshot.
 */
@Endpoint(id = "retryafter", defaultAccess = Access.READ_ONLY)
public class RetryAfterEndpoint {

	/** The most origins a provider's pacing entry lists. */
	public static final int MAX_LISTED_ORIGINS = 20;

	private final RetryAfterProviders providers;

	private final RetryAfterActivity activity;

	private final FleetStatusProvider fleet;

	private final SharedCooldown fleetCooldown;

	private final UnsharedHosts unsharedHosts;

	private final ModelClients modelClients;

	private final RetryAfterWiring wiring;

	/**
	 * Creates the endpoint.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity) {
		this(providers, activity, null);
	}

	/**
	 * Creates the endpoint of an instance whose budget and cooldown are shared by a fleet.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 * @param fleet the fleet's status, or {@code null} when the budget is local
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity, FleetStatusProvider fleet) {
		this(providers, activity, fleet, null);
	}

	/**
	 * Creates the endpoint of an instance whose budget and cooldown are shared by a fleet.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 * @param fleet the fleet's status, or {@code null} when the budget is local
	 * @param fleetCooldown the fleet's shared cooldown, which a reset also ends, or {@code null}
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity, FleetStatusProvider fleet,
			SharedCooldown fleetCooldown) {
		this(providers, activity, fleet, fleetCooldown, null);
	}

	/**
	 * Creates the endpoint of an instance whose budget and cooldown are shared by a fleet, showing the hosts the
	 * fleet does not share.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 * @param fleet the fleet's status, or {@code null} when the budget is local
	 * @param fleetCooldown the fleet's shared cooldown, which a reset also ends, or {@code null}
	 * @param unsharedHosts the hosts called whose state the fleet does not share, or {@code null}
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity, FleetStatusProvider fleet,
			SharedCooldown fleetCooldown, UnsharedHosts unsharedHosts) {
		this(providers, activity, fleet, fleetCooldown, unsharedHosts, null);
	}

	/**
	 * Creates the endpoint, showing also the Spring AI model clients the starter sits under.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 * @param fleet the fleet's status, or {@code null} when the budget is local
	 * @param fleetCooldown the fleet's shared cooldown, which a reset also ends, or {@code null}
	 * @param unsharedHosts the hosts called whose state the fleet does not share, or {@code null}
	 * @param modelClients the model clients under the starter, or {@code null} when Spring AI is absent
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity, FleetStatusProvider fleet,
			SharedCooldown fleetCooldown, UnsharedHosts unsharedHosts, ModelClients modelClients) {
		this(providers, activity, fleet, fleetCooldown, unsharedHosts, modelClients, null);
	}

	/**
	 * Creates the endpoint, showing also what is wired under each provider.
	 * @param providers the configured providers
	 * @param activity what was seen of them
	 * @param fleet the fleet's status, or {@code null} when the budget is local
	 * @param fleetCooldown the fleet's shared cooldown, which a reset also ends, or {@code null}
	 * @param unsharedHosts the hosts called whose state the fleet does not share, or {@code null}
	 * @param modelClients the model clients under the starter, or {@code null} when Spring AI is absent
	 * @param wiring each provider's profile, service groups and client integrations, or {@code null} (then every
	 * provider's {@code wiring} is {@code null})
	 */
	public RetryAfterEndpoint(RetryAfterProviders providers, RetryAfterActivity activity, FleetStatusProvider fleet,
			SharedCooldown fleetCooldown, UnsharedHosts unsharedHosts, ModelClients modelClients,
			RetryAfterWiring wiring) {
		this.providers = Objects.requireNonNull(providers, "providers");
		this.activity = Objects.requireNonNull(activity, "activity");
		this.fleet = fleet;
		this.fleetCooldown = fleetCooldown;
		this.unsharedHosts = unsharedHosts;
		this.modelClients = modelClients;
		this.wiring = wiring;
	}

	/**
	 * Opens a provider's gate, or one of its origins', at once: ends the cooldown, forgets the probe and turns the
	 * rate limit off (the fleet's cooldown too, when shared). Requests held at the gate go when they next ask.
	 * @param provider the provider's name
	 * @param origin one origin ({@code scheme://host:port}) of a provider kept per origin, or {@code null} for the
	 * provider's own gate and all its origins'
	 * @return what was opened, or {@code null} (a 404) when no such provider is configured
	 */
	@WriteOperation
	public ResetDescriptor reset(@Selector String provider, @Nullable String origin) {
		return this.providers.get(provider).map((found) -> {
			List<String> opened = new ArrayList<>();
			if (origin == null) {
				found.engine().gate(provider).reset();
				opened.add(provider);
				if (this.fleetCooldown != null) {
					this.fleetCooldown.reset(provider);
				}
			}
			for (ProviderGate gate : found.engine().originGates()) {
				String gateOrigin = gate.scope().origin().orElse(null);
				if (gate.provider().equals(provider) && (origin == null || origin.equalsIgnoreCase(gateOrigin))) {
					gate.reset();
					opened.add(gate.scope().toString());
				}
			}
			return new ResetDescriptor(provider, origin, opened.size());
		}).orElse(null);
	}

	/**
	 * What a reset opened.
	 * @param provider the provider
	 * @param origin the origin asked for, or {@code null} for the whole provider
	 * @param gatesOpened how many gates were opened (the provider's own and its origins')
	 */
	public record ResetDescriptor(String provider, String origin, int gatesOpened) implements OperationResponseBody {
	}

	/**
	 * Describes every provider and the global budget.
	 * @return the description
	 */
	@ReadOperation
	public RetryAfterDescriptor retryAfter() {
		Map<String, ProviderDescriptor> providers = new TreeMap<>();
		for (RetryAfterProviders.Provider provider : this.providers.all()) {
			providers.put(provider.name(), describe(provider));
		}
		RetryBudget budget = this.providers.get(OperationSpec.DEFAULT_PROVIDER)
			.orElseGet(() -> this.providers.all().iterator().next())
			.engine()
			.budget();
		FleetDescriptor fleet = (this.fleet != null) ? FleetDescriptor.of(this.fleet.fleetStatus(), this.unsharedHosts)
				: null;
		List<ModelClients.ModelClient> modelClients = (this.modelClients != null) ? this.modelClients.all() : null;
		return new RetryAfterDescriptor(
				new BudgetDescriptor(budget.globalSettings().orElse(null), finite(budget.globalTokens())), providers,
				fleet, modelClients);
	}

	/**
	 * Describes one provider.
	 * @param provider the provider's name
	 * @return the description, or {@code null} (a 404) when no such provider is configured
	 */
	@ReadOperation
	public ProviderDescriptor provider(@Selector String provider) {
		return this.providers.get(provider).map(this::describe).orElse(null);
	}

	private ProviderDescriptor describe(RetryAfterProviders.Provider provider) {
		RetryAfterActivity.Snapshot snapshot = this.activity.snapshot(provider.name());
		RetryBudget budget = provider.engine().budget();
		Map<String, Long> operations = new LinkedHashMap<>();
		operations.put("total", snapshot.totalOperations());
		snapshot.operations().entrySet().stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((entry) -> operations.put(entry.getKey().name(), entry.getValue()));
		Map<String, Long> attempts = new LinkedHashMap<>();
		snapshot.attempts().entrySet().stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((entry) -> attempts.put(entry.getKey().name(), entry.getValue()));
		return new ProviderDescriptor(wiring(provider.name()), SettingsDescriptor.of(provider.settings()),
				new BudgetDescriptor(provider.settings().budget(), finite(budget.providerTokens(provider.name())),
						finite(budget.availableTokens(provider.name()))),
				operations, attempts,
				new AmplificationDescriptor(snapshot.amplification().orElse(null), snapshot.window().toString()),
				snapshot.lastSkew().map(SkewDescriptor::of).orElse(null),
				snapshot.lastRetryAfter().map(LastRetryAfterDescriptor::of).orElse(null),
				snapshot.lastRefusal().map(RefusalDescriptor::of).orElse(null),
				PacingDescriptor.of(provider), provider.settings().scope().name(), sharedByFleet(provider),
				WindowDescriptor.of(this.activity.windows(provider.name())));
	}

	private WiringDescriptor wiring(String provider) {
		if (this.wiring == null) {
			return null;
		}
		RetryAfterWiring.Provider wired = this.wiring.provider(provider)
			.orElseGet(() -> new RetryAfterWiring.Provider("standard", List.of()));
		List<String> clients = new ArrayList<>(this.wiring.clientIntegrations());
		if (this.modelClients != null) {
			this.modelClients.all()
				.stream()
				.filter((model) -> model.provider().equals(provider))
				.forEach((model) -> clients.add(model.describe()));
		}
		return new WiringDescriptor(wired.profile(), wired.serviceGroups(), clients);
	}

	private Boolean sharedByFleet(RetryAfterProviders.Provider provider) {
		return (this.fleet != null) ? provider.settings().scope() == StateScope.PROVIDER : null;
	}

	private static Double finite(double tokens) {
		return Double.isFinite(tokens) ? tokens : null;
	}

	/**
	 * Every provider and the global budget.
	 *
	 * @param globalBudget the bucket every provider also draws from
	 * @param providers the providers by name
	 * @param fleet where the budget and cooldown are shared, or {@code null} when they are local to this instance
	 * @param modelClients the Spring AI model clients the starter sits under: per vendor, its provider, how many of
	 * its HTTP clients carry the starter's interceptor, the retry count its SDK keeps above the starter (the property
	 * that sets it), and whether two layers are stacked; {@code null} when Spring AI is absent
	 */
	public record RetryAfterDescriptor(BudgetDescriptor globalBudget, Map<String, ProviderDescriptor> providers,
			FleetDescriptor fleet, List<ModelClients.ModelClient> modelClients) implements OperationResponseBody {
	}

	/**
	 * The fleet this instance shares its budget and cooldown with.
	 *
	 * @param store where the shared state lives ({@code redis})
	 * @param state {@code REDIS}, {@code CONNECTING} or {@code LOCAL_FALLBACK}
	 * @param keyPrefix the prefix of the fleet's keys
	 * @param fallbacks how many times this instance fell back to local state
	 * @param lastError the last Redis failure, or {@code null}
	 * @param commandTimeout the longest a request waits for Redis
	 * @param instances the fleet's members this instance counted last (at least 1, itself)
	 * @param unsharedHosts the hosts this instance called that no provider lists, whose calls use {@code default}
	 * and keep their budget and cooldown per instance, sorted, at most {@code retry.after.max-origins}; empty when
	 * {@code default} is shared, {@code null} when not recorded
	 * @param unsharedHostsNotListed further such hosts seen once the list was full (about once each), or {@code null}
	 */
	public record FleetDescriptor(String store, String state, String keyPrefix, long fallbacks, String lastError,
			String commandTimeout, int instances, List<String> unsharedHosts, Long unsharedHostsNotListed) {

		static FleetDescriptor of(FleetStatus status, UnsharedHosts unshared) {
			return new FleetDescriptor(status.store(), status.state(), status.keyPrefix(), status.fallbacks(),
					status.lastError().orElse(null), status.commandTimeout().toString(), status.instances(),
					(unshared != null) ? unshared.hosts() : null, (unshared != null) ? unshared.notListed() : null);
		}

	}

	/**
	 * What is wired under a provider.
	 *
	 * @param profile its profile ({@code standard} unless set)
	 * @param serviceGroups the HTTP service groups whose requests it takes whatever their host
	 * @param clients the client integrations that are on, which route requests to its hosts or named for it
	 * ({@code RestClient}, {@code RestTemplate}, {@code WebClient}, {@code OkHttp builders}), then the Spring AI model
	 * clients pinned to it ({@code Spring AI's openai model (1 OkHttp clients)})
	 */
	public record WiringDescriptor(String profile, List<String> serviceGroups, List<String> clients) {
	}

	/**
	 * One provider.
	 *
	 * @param wiring its profile, service groups and the clients under it, or {@code null} when not known
	 * @param settings the settings in force
	 * @param budget its budget bucket
	 * @param operations operations finished: {@code total} and by outcome
	 * @param attempts attempts sent by kind
	 * @param amplification attempts ÷ operations over the recent window
	 * @param lastSkew the last measured clock skew, or {@code null}
	 * @param lastRetryAfter the last {@code Retry-After} received, or {@code null}
	 * @param lastRefusal the last refused retry or hint, or {@code null}
	 * @param pacing the provider's gate: its settings, rate, cooldown and queue
	 * @param scope {@code PROVIDER} (one state for all its hosts) or {@code ORIGIN} (a state per origin)
	 * @param sharedByFleet with a fleet store, whether the fleet shares this provider's budget and cooldown (a
	 * provider kept per origin, {@code default} among them, stays per instance); {@code null} without a fleet
	 * @param windows the last rate-limit window a response announced, by unit ({@code requests}, {@code tokens}); empty
	 * before the first
	 */
	public record ProviderDescriptor(WiringDescriptor wiring, SettingsDescriptor settings, BudgetDescriptor budget,
			Map<String, Long> operations,
			Map<String, Long> attempts, AmplificationDescriptor amplification, SkewDescriptor lastSkew,
			LastRetryAfterDescriptor lastRetryAfter, RefusalDescriptor lastRefusal, PacingDescriptor pacing,
			String scope, Boolean sharedByFleet, Map<String, WindowDescriptor> windows)
			implements OperationResponseBody {
	}

	/**
	 * A provider's last rate-limit window of one unit, as the response that carried it announced it.
	 *
	 * @param remaining what was left, or {@code null} when not announced
	 * @param limit its limit, or {@code null} when not announced
	 * @param resetSeconds the seconds from that response until it resets, or {@code null} when not announced
	 */
	public record WindowDescriptor(Double remaining, Double limit, Double resetSeconds) {

		static Map<String, WindowDescriptor> of(Optional<LastWindows> windows) {
			Map<String, WindowDescriptor> result = new LinkedHashMap<>();
			windows.ifPresent((seen) -> {
				for (LastWindows.Unit unit : LastWindows.Unit.values()) {
					seen.last(unit)
						.ifPresent((window) -> result.put(unit.tag(), new WindowDescriptor(known(window.remaining()),
								known(window.limit()), known(window.resetSeconds()))));
				}
			});
			return result;
		}

		private static Double known(double value) {
			return Double.isNaN(value) ? null : value;
		}

	}

	/**
	 * A budget bucket.
	 *
	 * @param capacity the tokens a full bucket holds, or {@code null} when not a token bucket
	 * @param depositRatio the tokens a successful first attempt deposits, or {@code null}
	 * @param refillPerSecond the tokens regained per second, or {@code null}
	 * @param tokens the tokens in this bucket now, or {@code null} when unlimited
	 * @param available what a retry could take now (the smaller of this bucket and the global one), or {@code null}
	 * when unlimited
	 */
	public record BudgetDescriptor(Double capacity, Double depositRatio, Double refillPerSecond, Double tokens,
			Double available) {

		BudgetDescriptor(BudgetSettings settings, Double tokens) {
			this(settings, tokens, tokens);
		}

		BudgetDescriptor(BudgetSettings settings, Double tokens, Double available) {
			this((settings != null) ? settings.capacity() : null, (settings != null) ? settings.depositRatio() : null,
					(settings != null) ? settings.refillPerSecond() : null, tokens, available);
		}

	}

	/**
	 * The amplification over the recent window.
	 *
	 * @param ratio attempts sent ÷ operations finished, or {@code null} when no operation finished in the window
	 * @param window the longest span the window covers
	 */
	public record AmplificationDescriptor(Double ratio, String window) {
	}

	/**
	 * The last measured clock skew.
	 *
	 * @param seconds the server's {@code Date} minus the client's clock, signed, as measured
	 * @param at when it was measured
	 * @param withinDatePrecision whether its magnitude is under one second: within the {@code Date}'s one-second
	 * precision, so the clocks agree as far as the field can tell and the figure is not skew
	 */
	public record SkewDescriptor(double seconds, String at, boolean withinDatePrecision) {

		static SkewDescriptor of(RetryAfterActivity.LastSkew skew) {
			return new SkewDescriptor(skew.seconds(), skew.at().toString(), skew.withinDatePrecision());
		}

	}

	/**
	 * The last {@code Retry-After} received.
	 *
	 * @param value the value as received, cut to {@value RetryAfterActivity#MAX_VALUE_LENGTH} characters
	 * @param status the response's status
	 * @param at when it was received
	 * @param decision {@code RETRY}, or the outcome the operation ended with
	 * @param waitTime the wait before the retry, or {@code null}
	 * @param source where the wait came from, or {@code null}
	 * @param error why the value could not be used, or {@code null}
	 */
	public record LastRetryAfterDescriptor(String value, int status, String at, String decision, String waitTime,
			String source, String error) {

		static LastRetryAfterDescriptor of(RetryAfterActivity.LastRetryAfter last) {
			return new LastRetryAfterDescriptor(last.value(), last.status(), last.at().toString(), last.decision(),
					last.waitTime().map(Duration::toString).orElse(null), last.source(),
					last.error().map(Enum::name).orElse(null));
		}

	}

	/**
	 * The last refused retry or hint.
	 *
	 * @param stop the outcome the operation ended with, or {@code null} when only a hint was refused
	 * @param hintError the refused {@code Retry-After}'s error, or {@code null}
	 * @param reason the engine's sentence
	 * @param at when
	 */
	public record RefusalDescriptor(String stop, String hintError, String reason, String at) {

		static RefusalDescriptor of(RetryAfterActivity.LastRefusal refusal) {
			return new RefusalDescriptor(refusal.stop().map(Enum::name).orElse(null),
					refusal.hintError().map(Enum::name).orElse(null), refusal.reason(), refusal.at().toString());
		}

	}

}
