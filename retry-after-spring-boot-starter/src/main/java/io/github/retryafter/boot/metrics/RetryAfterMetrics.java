package io.github.retryafter.boot.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.AttemptKind;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.engine.WaitCause;
import io.github.retryafter.engine.WaitedEvent;

/**
 * Binds the retry engine's events to Micrometer meters, for every configured provider: its gauges, its budget's
 * refusals, its attempts by kind and its waits caused by {@code Retry-After} and by backoff when the binder is bound;
 * a series of an operation's outcome, a hint's error, a wait's other cause or a unit's window on that value's first
 * event on that provider, so a scrape holds no series for outcomes, errors, causes and windows that never happened.
 * The series are bounded by configuration and enums (never by hosts or URLs), and every series of a meter has the
 * same tag keys:
 * <table>
 * <caption>Meters</caption>
 * <tr><th>meter</th><th>type</th><th>tags</th></tr>
 * <tr><td>{@value #OPERATIONS}</td><td>function counter</td><td>provider, outcome ({@link Outcome} names)</td></tr>
 * <tr><td>{@value #ATTEMPTS}</td><td>function counter</td><td>provider, kind ({@code FIRST}, {@code RETRY})</td></tr>
 * <tr><td>{@value #AMPLIFICATION}</td><td>gauge</td><td>provider; attempts sent ÷ operations finished over the last
 * 50 to 60 seconds ({@link AmplificationWindow#standard}), {@code NaN} when no operation finished in that time</td></tr>
 * <tr><td>{@value #CLOCK_SKEW}</td><td>gauge, seconds</td><td>provider; the last measured skew (server {@code Date}
 * minus client clock), signed and as measured (a magnitude under 1 s is within the {@code Date}'s one-second precision,
 * not skew), {@code NaN} before the first</td></tr>
 * <tr><td>{@value #BUDGET_REFUSALS}</td><td>function counter</td><td>provider</td></tr>
 * <tr><td>{@value #BUDGET_TOKENS}</td><td>gauge</td><td>provider, plus {@code global} for the global bucket</td></tr>
 * <tr><td>{@value #WAIT}</td><td>timer</td><td>provider, cause ({@link WaitCause#tagValue()} of each
 * {@link WaitCause}); each wait between two attempts as it happened, its cause the part that lasted longest</td></tr>
 * <tr><td>{@value #HINT_REFUSALS}</td><td>function counter</td><td>provider, error ({@link RetryAfterError} names)</td></tr>
 * <tr><td>{@value #PACING_RATE}</td><td>gauge, requests per second</td><td>provider; the adaptive rate in force,
 * {@code NaN} while the provider is not being paced</td></tr>
 * <tr><td>{@value #COOLDOWN_REMAINING}</td><td>gauge, seconds</td><td>provider; how long the provider's gate stays
 * closed, 0 when open</td></tr>
 * <tr><td>{@value #PACING_QUEUED}</td><td>gauge</td><td>provider; requests waiting at the provider's gate</td></tr>
 * <tr><td>{@value #WINDOW_REMAINING}, {@value #WINDOW_LIMIT}, {@value #WINDOW_RESET}</td><td>gauges (the reset in
 * seconds)</td><td>provider, unit ({@code requests}, {@code tokens}); the last rate-limit window a response announced
 * ({@link LastWindows}), registered for a unit on the first response of that provider that carried one</td></tr>
 * </table>
 * <p>
 * Counters are function counters over this component's own adders, so events are counted from the first one, even
 * before the binder is bound (their series are registered when it is), and one binder can be bound to several
 * registries. Events of a provider that {@link RetryAfterProviders} does not list are ignored, so a tag value never
 * comes from anywhere but configuration.
 * The provider list is read when first needed (binding, or the first event), not at construction, because this
 * listener is created while the providers' engines are being built.
 * <p>
 * Thread-safe: events may arrive from any number of threads at once.
 */
public final class RetryAfterMetrics implements RetryListener, MeterBinder {

	/** Logical operations finished, by outcome. */
	public static final String OPERATIONS = "retry.after.operations";

	/** HTTP attempts sent, by kind. */
	public static final String ATTEMPTS = "retry.after.attempts";

	/** Attempts ÷ operations over a recent window, for this instance. */
	public static final String AMPLIFICATION = "retry.after.amplification";

	/** The last measured clock skew, signed, in seconds. */
	public static final String CLOCK_SKEW = "retry.after.clock.skew";

	/** Retries the budget refused. */
	public static final String BUDGET_REFUSALS = "retry.after.budget.refusals";

	/** Budget tokens left. */
	public static final String BUDGET_TOKENS = "retry.after.budget.tokens";

	/** Waits between attempts as they happened, by cause. */
	public static final String WAIT = "retry.after.wait";

	/** {@code Retry-After} fields that could not be used, by error. */
	public static final String HINT_REFUSALS = "retry.after.hint.refusals";

	/** The adaptive admission rate in force, in requests per second. */
	public static final String PACING_RATE = "retry.after.pacing.rate";

	/** How long the provider's gate stays closed, in seconds. */
	public static final String COOLDOWN_REMAINING = "retry.after.cooldown.remaining";

	/** Requests waiting at the provider's gate. */
	public static final String PACING_QUEUED = "retry.after.pacing.queued";

	/** What is left of the last rate-limit window a response announced, by unit. */
	public static final String WINDOW_REMAINING = "retry.after.window.remaining";

	/** The limit of the last rate-limit window a response announced, by unit. */
	public static final String WINDOW_LIMIT = "retry.after.window.limit";

	/** The seconds until the last rate-limit window a response announced resets, from that response, by unit. */
	public static final String WINDOW_RESET = "retry.after.window.reset";

	/** The {@code provider} tag value of the global budget bucket. */
	public static final String GLOBAL = "global";

	private static final String PROVIDER = "provider";

	private static final String SECONDS = "seconds";

	private final Supplier<RetryAfterProviders> providers;

	private final Ticker ticker;

	// the registries bound so far; its monitor guards it and every first registration of a series
	private final List<MeterRegistry> registries = new ArrayList<>();

	private volatile Map<String, ProviderMeters> byProvider;

	private volatile RetryBudget globalBudget;

	/**
	 * Creates the binder.
	 * @param providers supplies the configured providers; called once, when first needed
	 * @param ticker the monotonic clock of the amplification window
	 */
	public RetryAfterMetrics(Supplier<RetryAfterProviders> providers, Ticker ticker) {
		this.providers = Objects.requireNonNull(providers, "providers");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Map<String, ProviderMeters> all = providers();
		synchronized (this.registries) {
			if (this.registries.stream().anyMatch((bound) -> bound == registry)) {
				return;
			}
			this.registries.add(registry);
			for (ProviderMeters meters : all.values()) {
				meters.bindTo(registry);
			}
		}
		Gauge.builder(BUDGET_TOKENS, this, (metrics) -> metrics.globalBudget.globalTokens())
			.tags(PROVIDER, GLOBAL)
			.description("Retry budget tokens left; provider 'global' is the bucket every provider also draws from")
			.register(registry);
	}

	@Override
	public void onAttempt(AttemptEvent event) {
		ProviderMeters meters = meters(event.spec());
		if (meters != null) {
			meters.attempts.get(event.kind()).increment();
			meters.window.recordAttempt();
		}
	}

	@Override
	public void onWaited(WaitedEvent event) {
		ProviderMeters meters = meters(event.spec());
		if (meters != null) {
			for (Timer timer : meters.waitTimers(event.cause())) {
				timer.record(event.waited());
			}
		}
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		ProviderMeters meters = meters(event.spec());
		if (meters == null) {
			return;
		}
		meters.observe(event.outcome());
		event.plan().flatMap(RetryPlan::skew).ifPresent((skew) -> meters.lastSkewSeconds = skew.toNanos() / 1e9);
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		ProviderMeters meters = meters(event.spec());
		if (meters == null) {
			return;
		}
		if (event.isBudgetRefusal()) {
			meters.budgetRefusals.increment();
		}
		event.hintError().ifPresent((error) -> meters.hintRefusals.increment(error));
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		ProviderMeters meters = meters(event.spec());
		if (meters != null) {
			event.lastOutcome().ifPresent(meters::observe);
			meters.operations.increment(event.outcome());
			meters.window.recordOperation();
		}
	}

	private ProviderMeters meters(OperationSpec spec) {
		return providers().get(spec.provider());
	}

	private Map<String, ProviderMeters> providers() {
		Map<String, ProviderMeters> result = this.byProvider;
		if (result == null) {
			synchronized (this) {
				result = this.byProvider;
				if (result == null) {
					result = resolve();
					this.byProvider = result;
				}
			}
		}
		return result;
	}

	private Map<String, ProviderMeters> resolve() {
		RetryAfterProviders all = Objects.requireNonNull(this.providers.get(), "providers");
		Collection<RetryAfterProviders.Provider> list = all.all();
		Map<String, ProviderMeters> result = new LinkedHashMap<>();
		for (RetryAfterProviders.Provider provider : list) {
			result.put(provider.name(), new ProviderMeters(provider.name(), provider.engine().budget(), provider,
					AmplificationWindow.standard(this.ticker), this.registries));
		}
		this.globalBudget = all.get(OperationSpec.DEFAULT_PROVIDER)
			.orElseGet(() -> list.iterator().next())
			.engine()
			.budget();
		return Map.copyOf(result);
	}

	@Override
	public String toString() {
		Map<String, ProviderMeters> bound = this.byProvider;
		return "RetryAfterMetrics[providers=" + ((bound != null) ? bound.keySet() : "not resolved yet") + "]";
	}

	/** One provider's counts and the meters bound to them. */
	private static final class ProviderMeters {

		private final String name;

		private final RetryBudget budget;

		private final RetryAfterProviders.Provider gates;

		private final AmplificationWindow window;

		private final Tags provider;

		// per Outcome value that happened: at most Outcome.values().length series
		private final CountsOnFirstUse<Outcome> operations;

		// per RetryAfterError value that happened: at most RetryAfterError.values().length series
		private final CountsOnFirstUse<RetryAfterError> hintRefusals;

		// both kinds from the start: rate() sees no count a series had at its first scrape, and these carry the
		// first retries of a burst
		private final Map<AttemptKind, LongAdder> attempts = new EnumMap<>(AttemptKind.class);

		// retry-after and backoff from the start, for the same reason (the waits of a burst's first retries); every
		// other cause from its first wait on this provider: at most WaitCause.values().length series
		private final Map<WaitCause, List<Timer>> waits = new EnumMap<>(WaitCause.class);

		// the causes whose series exist, guarded by the monitor of the registries
		private final Set<WaitCause> waitCauses = EnumSet.of(WaitCause.RETRY_AFTER, WaitCause.BACKOFF);

		private final List<MeterRegistry> registries;

		private final LongAdder budgetRefusals = new LongAdder();

		private volatile double lastSkewSeconds = Double.NaN;

		// every response reaches a retry's or the operation's end event: at most one window per unit kept, and three
		// gauges per unit from its first window on this provider
		private final LastWindows windows = new LastWindows();

		ProviderMeters(String name, RetryBudget budget, RetryAfterProviders.Provider gates, AmplificationWindow window,
				List<MeterRegistry> registries) {
			this.name = name;
			this.budget = budget;
			this.gates = gates;
			this.window = window;
			this.provider = Tags.of(PROVIDER, name);
			this.operations = counts(Outcome.class, OPERATIONS, "outcome",
					"Logical operations finished (one per call, however many attempts), by outcome", registries);
			this.hintRefusals = counts(RetryAfterError.class, HINT_REFUSALS, "error",
					"Retry-After fields that could not be used (treated as absent, or too long), by error", registries);
			for (AttemptKind kind : AttemptKind.values()) {
				this.attempts.put(kind, new LongAdder());
			}
			for (WaitCause cause : WaitCause.values()) {
				this.waits.put(cause, new CopyOnWriteArrayList<>());
			}
			this.registries = registries;
		}

		/** One function counter per value of {@code type} that happened, over an adder of its own. */
		private <E extends Enum<E>> CountsOnFirstUse<E> counts(Class<E> type, String meter, String key,
				String description, List<MeterRegistry> registries) {
			return new CountsOnFirstUse<>(type,
					(registry, value, adder) -> FunctionCounter.builder(meter, adder, LongAdder::sum)
						.tags(this.provider.and(key, value.name()))
						.description(description)
						.register(registry),
					registries);
		}

		/** Registers this provider's meters in a registry being bound (holding the monitor of the registries). */
		void bindTo(MeterRegistry registry) {
			Tags provider = this.provider;
			this.operations.bindTo(registry);
			this.hintRefusals.bindTo(registry);
			this.attempts.forEach((kind, adder) -> FunctionCounter.builder(ATTEMPTS, adder, LongAdder::sum)
				.tags(provider.and("kind", kind.name()))
				.description("HTTP attempts sent, first requests and retries")
				.register(registry));
			for (WaitCause cause : this.waitCauses) {
				addOnce(this.waits.get(cause), waitTimer(registry, cause));
			}
			FunctionCounter.builder(BUDGET_REFUSALS, this.budgetRefusals, LongAdder::sum)
				.tags(provider)
				.description("Retries the retry budget refused")
				.register(registry);
			Gauge.builder(AMPLIFICATION, this.window, AmplificationWindow::ratio)
				.tags(provider)
				.description("Attempts sent per operation finished over the last 50 to 60 seconds, for this instance")
				.register(registry);
			Gauge.builder(CLOCK_SKEW, this, (meters) -> meters.lastSkewSeconds)
				.tags(provider)
				.baseUnit(SECONDS)
				.description("Last measured clock skew, the server's Date minus the client's clock, signed, as measured;"
						+ " a magnitude under 1 s is within the Date's one-second precision, not skew")
				.register(registry);
			Gauge.builder(BUDGET_TOKENS, this, (meters) -> meters.budget.providerTokens(meters.name))
				.tags(provider)
				.description("Retry budget tokens left; provider 'global' is the bucket every provider also draws from")
				.register(registry);
			Gauge.builder(PACING_RATE, this.gates, (gates) -> gates.rate().orElse(Double.NaN))
				.tags(provider)
				.description("Adaptive admission rate in force, requests per second (the lowest of its origins' for a "
						+ "provider kept per origin); NaN while the provider is not paced")
				.register(registry);
			Gauge.builder(COOLDOWN_REMAINING, this.gates, (gates) -> gates.cooldownRemaining().toNanos() / 1e9)
				.tags(provider)
				.baseUnit(SECONDS)
				.description("How long the provider's gate (its longest-closed origin's, for a provider kept per "
						+ "origin) stays closed after a Retry-After; 0 when open")
				.register(registry);
			Gauge.builder(PACING_QUEUED, this.gates, RetryAfterProviders.Provider::queued)
				.tags(provider)
				.description("Requests waiting at the provider's gates, for a cooldown, a probe's answer or a slot in its rate")
				.register(registry);
			for (LastWindows.Unit unit : LastWindows.Unit.values()) {
				if (this.windows.seen(unit)) {
					windowGauges(registry, unit);
				}
			}
		}

		/**
		 * Keeps the windows a response's rate-limit fields announced (the families the provider's field set names),
		 * and registers a unit's gauges in every bound registry on its first window here.
		 */
		void observe(AttemptOutcome outcome) {
			if (!(outcome instanceof AttemptOutcome.Response response)) {
				return;
			}
			if (this.windows.record(response.hints().rateLimits(this.gates.policy().planner().fields()))) {
				synchronized (this.registries) {
					for (MeterRegistry registry : this.registries) {
						for (LastWindows.Unit unit : LastWindows.Unit.values()) {
							if (this.windows.seen(unit)) {
								windowGauges(registry, unit);
							}
						}
					}
				}
			}
		}

		/** Registers one unit's window gauges; registering them again in a registry finds the same gauges. */
		private void windowGauges(MeterRegistry registry, LastWindows.Unit unit) {
			Tags tags = this.provider.and("unit", unit.tag());
			Gauge.builder(WINDOW_REMAINING, this.windows, (windows) -> windows.remaining(unit))
				.tags(tags)
				.description("What was left of the provider's rate-limit window in the last response that announced"
						+ " one, by unit (requests, tokens)")
				.register(registry);
			Gauge.builder(WINDOW_LIMIT, this.windows, (windows) -> windows.limit(unit))
				.tags(tags)
				.description("The limit of the provider's rate-limit window in the last response that announced one,"
						+ " by unit; NaN when the fields gave none")
				.register(registry);
			Gauge.builder(WINDOW_RESET, this.windows, (windows) -> windows.resetSeconds(unit))
				.tags(tags)
				.baseUnit(SECONDS)
				.description("Seconds until the provider's rate-limit window resets, as the last response that"
						+ " announced one said, measured from that response, by unit")
				.register(registry);
		}

		/** The timers of a wait's cause, registered in every bound registry on the cause's first wait here. */
		List<Timer> waitTimers(WaitCause cause) {
			List<Timer> timers = this.waits.get(cause);
			if (!timers.isEmpty()) {
				return timers;
			}
			synchronized (this.registries) {
				if (this.waitCauses.add(cause)) {
					for (MeterRegistry registry : this.registries) {
						addOnce(timers, waitTimer(registry, cause));
					}
				}
				return timers;
			}
		}

		private Timer waitTimer(MeterRegistry registry, WaitCause cause) {
			return Timer.builder(WAIT)
				.tags(this.provider.and("cause", cause.tagValue()))
				.description("Waits between attempts as they happened, from the end of one attempt to the start of the"
						+ " next, by cause: the provider's field, the provider's gate, the budget or the backoff")
				.register(registry);
		}

		/** Adds a meter unless that very instance is there: binding twice to one registry records once. */
		private static <M> void addOnce(List<M> meters, M meter) {
			synchronized (meters) {
				if (meters.stream().noneMatch((each) -> each == meter)) {
					meters.add(meter);
				}
			}
		}

	}

}
