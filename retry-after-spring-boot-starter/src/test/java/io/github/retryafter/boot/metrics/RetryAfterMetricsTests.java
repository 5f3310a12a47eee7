package io.github.retryafter.boot.metrics;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.testing.Drive;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DelaySource;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.engine.WaitCause;
import io.github.retryafter.engine.WaitedEvent;
import io.github.retryafter.test.FakeClock;

import static io.github.retryafter.boot.testing.Drive.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics bound by Spring Boot to a registry, fed by real operations of the auto-configured engines on a test
 * clock.
 */
class RetryAfterMetricsTests {

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(Ticker.class, () -> this.clock)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("retry.after.providers.payments.hosts=api.pay.example",
				"retry.after.budget.refill-per-second=0", "retry.after.global-budget.refill-per-second=0");

	@Test
	void registersEachProvidersMetersBeforeTheFirstRequestButNoOutcomeOrHintErrorThatHasNotHappened() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Map<String, Long> series = retryAfterMeters(registry).stream()
				.collect(Collectors.groupingBy((meter) -> meter.getId().getName(), Collectors.counting()));
			int providers = 2;
			// no operation has finished and no hint was refused: no series for outcomes or errors yet
			assertThat(series).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
					Map.entry(RetryAfterMetrics.ATTEMPTS, 2L * providers),
					Map.entry(RetryAfterMetrics.WAIT, 2L * providers),
					Map.entry(RetryAfterMetrics.AMPLIFICATION, (long) providers),
					Map.entry(RetryAfterMetrics.CLOCK_SKEW, (long) providers),
					Map.entry(RetryAfterMetrics.BUDGET_REFUSALS, (long) providers),
					Map.entry(RetryAfterMetrics.BUDGET_TOKENS, providers + 1L),
					Map.entry(RetryAfterMetrics.PACING_RATE, (long) providers),
					Map.entry(RetryAfterMetrics.COOLDOWN_REMAINING, (long) providers),
					Map.entry(RetryAfterMetrics.PACING_QUEUED, (long) providers)));
			assertThat(registry.get(RetryAfterMetrics.BUDGET_TOKENS).tag("provider", "global").gauge().value())
				.isEqualTo(100);
			assertThat(registry.get(RetryAfterMetrics.CLOCK_SKEW).tag("provider", "payments").gauge().value()).isNaN();
		});
	}

	@Test
	void eventsOfTheAutoConfiguredEnginesReachTheMeters() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(Drive.operation(providers, "payments", this.clock, REFUSED, REFUSED, 200)).isEqualTo(Outcome.SUCCESS);
			assertThat(counter(registry, RetryAfterMetrics.ATTEMPTS, "payments", "kind", "FIRST")).isEqualTo(1);
			assertThat(counter(registry, RetryAfterMetrics.ATTEMPTS, "payments", "kind", "RETRY")).isEqualTo(2);
			assertThat(counter(registry, RetryAfterMetrics.OPERATIONS, "payments", "outcome", "SUCCESS")).isEqualTo(1);
			assertThat(registry.find(RetryAfterMetrics.OPERATIONS).tag("provider", "default").meters())
				.as("a provider that finished no operation").isEmpty();
			assertThat(registry.find(RetryAfterMetrics.OPERATIONS).tag("provider", "payments").meters())
				.as("outcomes that never happened").hasSize(1);
			Timer backoff = registry.get(RetryAfterMetrics.WAIT)
				.tags("provider", "payments", "cause", "backoff")
				.timer();
			// full-jitter backoff with draw 0.5: half of the 100 ms and 200 ms ceilings
			assertThat(backoff.count()).isEqualTo(2);
			assertThat(backoff.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(150);
			assertThat(backoff.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(100);
			assertThat(registry.get(RetryAfterMetrics.WAIT)
				.tags("provider", "payments", "cause", "retry-after")
				.timer()
				.count()).isZero();
			assertThat(registry.get(RetryAfterMetrics.AMPLIFICATION).tag("provider", "payments").gauge().value())
				.isEqualTo(3.0);
			// two retries took a token each; the one that succeeded gave its token back
			assertThat(registry.get(RetryAfterMetrics.BUDGET_TOKENS).tag("provider", "payments").gauge().value())
				.isEqualTo(19);
			assertThat(registry.get(RetryAfterMetrics.BUDGET_TOKENS).tag("provider", "global").gauge().value())
				.isEqualTo(99);
		});
	}

	@Test
	void countsRetriesTheBudgetRefusedAndTheOperationsItEnded() {
		this.contextRunner.withPropertyValues("retry.after.providers.payments.budget.capacity=1").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(Drive.operation(providers, "payments", this.clock, REFUSED)).isEqualTo(Outcome.BUDGET_EXHAUSTED);
			assertThat(counter(registry, RetryAfterMetrics.BUDGET_REFUSALS, "payments", null, null)).isEqualTo(1);
			assertThat(counter(registry, RetryAfterMetrics.OPERATIONS, "payments", "outcome", "BUDGET_EXHAUSTED"))
				.isEqualTo(1);
			assertThat(registry.get(RetryAfterMetrics.BUDGET_TOKENS).tag("provider", "payments").gauge().value())
				.isZero();
		});
	}

	@Test
	void amplificationCoversTheLastMinuteOnly() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			Drive.operation(providers, "default", this.clock, REFUSED, 200);
			this.clock.sleep(Duration.ofSeconds(30), Cancellation.never());
			Drive.operation(providers, "default", this.clock, 200);
			assertThat(amplification(registry, "default")).isEqualTo(1.5);
			this.clock.sleep(Duration.ofSeconds(40), Cancellation.never());
			// the first operation has left the window, the second is still in it
			assertThat(amplification(registry, "default")).isEqualTo(1.0);
			this.clock.sleep(Duration.ofSeconds(60), Cancellation.never());
			assertThat(amplification(registry, "default")).isNaN();
			assertThat(counter(registry, RetryAfterMetrics.ATTEMPTS, "default", "kind", "RETRY")).isEqualTo(1);
		});
	}

	@Test
	void recordsSkewRetryAfterWaitsAndUnusableHints() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryListener metrics = context.getBean(RetryAfterMetrics.class);
			OperationSpec spec = OperationSpec.of("GET").withProvider("payments");
			metrics.onRetryScheduled(scheduled(spec, Duration.ofMillis(-2500), Duration.ofSeconds(3)));
			metrics.onRetryScheduled(scheduled(spec, Duration.ofSeconds(1), Duration.ofSeconds(5)));
			assertThat(registry.get(RetryAfterMetrics.WAIT).tags("provider", "payments").timers())
				.as("a planned wait is not a wait yet")
				.allSatisfy((timer) -> assertThat(timer.count()).isZero());
			metrics.onWaited(waited(spec, Duration.ofSeconds(3)));
			metrics.onWaited(waited(spec, Duration.ofSeconds(5)));
			assertThat(registry.get(RetryAfterMetrics.CLOCK_SKEW).tag("provider", "payments").gauge().value())
				.isEqualTo(1.0);
			Timer hinted = registry.get(RetryAfterMetrics.WAIT)
				.tags("provider", "payments", "cause", "retry-after")
				.timer();
			assertThat(hinted.count()).isEqualTo(2);
			assertThat(hinted.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(8);
			metrics.onRefusal(new RefusalEvent(spec, 1, Optional.empty(), Optional.of(RetryAfterError.INVALID_DELAY),
					"unusable", Duration.ofSeconds(10), 5, Duration.ZERO));
			assertThat(counter(registry, RetryAfterMetrics.HINT_REFUSALS, "payments", "error", "INVALID_DELAY"))
				.isEqualTo(1);
			assertThat(counter(registry, RetryAfterMetrics.BUDGET_REFUSALS, "payments", null, null)).isZero();
		});
	}

	@Test
	void aRealRetryAfterFromAServerFortySecondsFastSetsSkewAndHintedWait() {
		// the fake clock is both the ticker and the client's wall clock, and reads a whole second here
		java.time.Instant fixed = this.clock.instant();
		this.contextRunner.withPropertyValues("retry.after.hint-mode=exact")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				String serverDate = java.time.format.DateTimeFormatter
					.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)
					.withZone(java.time.ZoneOffset.UTC)
					.format(fixed.plusSeconds(40));
				HeaderSource headers = HeaderSource.of(Map.of("Retry-After", List.of("2"), "Date", List.of(serverDate)));
				assertThat(Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, headers,
						503, 200)).isEqualTo(Outcome.SUCCESS);
				assertThat(registry.get(RetryAfterMetrics.CLOCK_SKEW).tag("provider", "payments").gauge().value())
					.isEqualTo(40.0);
				Timer hinted = registry.get(RetryAfterMetrics.WAIT)
					.tags("provider", "payments", "cause", "retry-after")
					.timer();
				assertThat(hinted.count()).isEqualTo(1);
				assertThat(hinted.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2);
			});
	}

	@Test
	void windowGaugesShowTheLastWindowOfEachUnitTheProvidersResponsesAnnounced() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.model.hosts=api.model.example",
					"retry.after.providers.model.profile=openai")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
				assertThat(registry.find(RetryAfterMetrics.WINDOW_REMAINING).gauges()).isEmpty();
				assertThat(Drive.operation(providers, "model", this.clock, HeaderSource.empty(), 200))
					.isEqualTo(Outcome.SUCCESS);
				assertThat(registry.find(RetryAfterMetrics.WINDOW_REMAINING).gauges()).isEmpty();
				Drive.operation(providers, "model", this.clock, openAi("50", "60", "2s", "9000", "10000", "6m0s"), 200);
				Drive.operation(providers, "model", this.clock, openAi("42", "60", "1s", "8000", "10000", "30ms"), 503,
						200);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_REMAINING, "model", "requests")).isEqualTo(42);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_LIMIT, "model", "requests")).isEqualTo(60);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_RESET, "model", "requests")).isEqualTo(1.0);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_REMAINING, "model", "tokens")).isEqualTo(8000);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_LIMIT, "model", "tokens")).isEqualTo(10000);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_RESET, "model", "tokens")).isEqualTo(0.03);
				assertThat(registry.find(RetryAfterMetrics.WINDOW_REMAINING).tag("provider", "payments").gauges())
					.isEmpty();
				// a standard family is a window of requests, its limit the trio's; no tokens series for it
				Drive.operation(providers, "payments", this.clock, HeaderSource.of(Map.of("X-RateLimit-Remaining",
						List.of("7"), "X-RateLimit-Limit", List.of("10"), "X-RateLimit-Reset", List.of("30"))), 200);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_REMAINING, "payments", "requests")).isEqualTo(7);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_LIMIT, "payments", "requests")).isEqualTo(10);
				assertThat(window(registry, RetryAfterMetrics.WINDOW_RESET, "payments", "requests")).isEqualTo(30);
				assertThat(registry.find(RetryAfterMetrics.WINDOW_REMAINING).tags("provider", "payments", "unit", "tokens")
					.gauges()).isEmpty();
			});
	}

	private static HeaderSource openAi(String requestsLeft, String requests, String requestsReset, String tokensLeft,
			String tokens, String tokensReset) {
		return HeaderSource.of(Map.of("x-ratelimit-remaining-requests", List.of(requestsLeft),
				"x-ratelimit-limit-requests", List.of(requests), "x-ratelimit-reset-requests", List.of(requestsReset),
				"x-ratelimit-remaining-tokens", List.of(tokensLeft), "x-ratelimit-limit-tokens", List.of(tokens),
				"x-ratelimit-reset-tokens", List.of(tokensReset)));
	}

	private static double window(MeterRegistry registry, String meter, String provider, String unit) {
		return registry.get(meter).tags("provider", provider, "unit", unit).gauge().value();
	}

	@Test
	void tenThousandDistinctHostsAddNoSeries() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			int before = retryAfterMeters(registry).size();
			Drive.operation(providers, providers.resolve(URI.create("https://host-0.example/"), Optional.empty()).name(),
					this.clock, REFUSED, 200);
			int afterOneHost = retryAfterMeters(registry).size();
			// the first success's series; then every host ends the same way
			assertThat(afterOneHost - before).isEqualTo(1);
			for (int i = 1; i < 10_000; i++) {
				String name = providers.resolve(URI.create("https://host-" + i + ".example/x?id=" + i), Optional.empty())
					.name();
				Drive.operation(providers, name, this.clock, (i % 10 == 0) ? REFUSED : 200, 200);
			}
			assertThat(retryAfterMeters(registry)).hasSize(afterOneHost);
			Set<String> providerValues = retryAfterMeters(registry).stream()
				.map((meter) -> meter.getId().getTag("provider"))
				.collect(Collectors.toCollection(TreeSet::new));
			assertThat(providerValues).containsExactly("default", "global", "payments");
			assertThat(counter(registry, RetryAfterMetrics.OPERATIONS, "default", "outcome", "SUCCESS"))
				.isEqualTo(10_000);
		});
	}

	@Test
	void tenThousandUnconfiguredHostsKeepTheOriginsTrackedAtTheirCapAndAddNoSeries() {
		this.contextRunner.withPropertyValues("retry.after.max-origins=200").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterOperations operations = context.getBean(RetryAfterOperations.class);
			RetryEngine engine = context.getBean(RetryAfterProviders.class).get("default").orElseThrow().engine();
			HeaderSource pause = HeaderSource.of(Map.of("Retry-After", List.of("60")));
			int before = 0;
			for (int i = 0; i < 10_000; i++) {
				Drive.operation(operations, URI.create("https://host-" + i + ".example/x?id=" + i), this.clock, pause,
						(i % 3 == 0) ? 503 : 200);
				assertThat(engine.originGates().size()).isLessThanOrEqualTo(200);
				if (i == 2) {
					// a series appears on its outcome's first event: the first three hosts have seen both answers
					before = retryAfterMeters(registry).size();
				}
			}
			assertThat(engine.originGates()).hasSizeGreaterThan(180);
			assertThat(((TokenBucketRetryBudget) engine.budget()).originBuckets()).isLessThanOrEqualTo(200);
			assertThat(retryAfterMeters(registry)).hasSize(before);
			assertThat(registry.get(RetryAfterMetrics.COOLDOWN_REMAINING).tag("provider", "default").gauge().value())
				.as("the longest cooldown among the origins tracked").isEqualTo(30.0);
		});
	}

	@Test
	void pacingGaugesShowTheCooldownTheRateAndTheQueueOfTheProvidersGate() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryEngine engine = context.getBean(RetryAfterProviders.class).get("payments").orElseThrow().engine();
			RetryOperation throttled = engine.start(OperationSpec.of("GET").withProvider("payments"), Cancellation.create());
			throttled.beforeAttempt();
			long now = this.clock.read();
			throttled.afterAttempt(new AttemptOutcome.Response(429,
					HeaderSource.of(Map.of("Retry-After", List.of("3"))), now, now));
			RetryOperation fresh = engine.start(OperationSpec.of("GET").withProvider("payments"), Cancellation.create());
			assertThat(fresh.beforeAttempt()).isInstanceOf(Permit.Wait.class);
			assertThat(registry.get(RetryAfterMetrics.COOLDOWN_REMAINING).tag("provider", "payments").gauge().value())
				.isEqualTo(3.0);
			assertThat(registry.get(RetryAfterMetrics.PACING_QUEUED).tag("provider", "payments").gauge().value())
				.isEqualTo(1.0);
			// the first throttle turns the rate on at 0.7 × max-rate
			assertThat(registry.get(RetryAfterMetrics.PACING_RATE).tag("provider", "payments").gauge().value())
				.isEqualTo(700.0);
			assertThat(registry.get(RetryAfterMetrics.PACING_RATE).tag("provider", "default").gauge().value()).isNaN();
			fresh.cancel();
			assertThat(registry.get(RetryAfterMetrics.PACING_QUEUED).tag("provider", "payments").gauge().value())
				.isZero();
		});
	}

	@Test
	void everySeriesOfAMeterHasTheSameTagKeys() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			Drive.operation(providers, "payments", this.clock, REFUSED, 200);
			Drive.operation(providers, "payments", this.clock, GARBLED, 503, 200);
			Map<String, Set<List<String>>> keysByName = retryAfterMeters(registry).stream()
				.collect(Collectors.groupingBy((meter) -> meter.getId().getName(), Collectors.mapping(
						(meter) -> meter.getId().getTags().stream().map(Tag::getKey).sorted().toList(),
						Collectors.toSet())));
			assertThat(keysByName).hasSize(11).allSatisfy((name, keys) -> assertThat(keys).as(name).hasSize(1));
		});
	}

	@Test
	void prometheusNamesAreTheDocumentedOnes() {
		this.contextRunner
			.withBean("prometheus", PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
			.run((context) -> {
				Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, REFUSED, 200);
				Drive.operation(context.getBean(RetryAfterProviders.class), "default", this.clock, GARBLED, 503, 200);
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape).contains("retry_after_operations_total{outcome=\"SUCCESS\",provider=\"payments\"} 1.0",
						"retry_after_attempts_total{kind=\"RETRY\",provider=\"payments\"} 1.0",
						"retry_after_amplification{provider=\"payments\"} 2.0",
						"retry_after_clock_skew_seconds{provider=\"payments\"} NaN",
						"retry_after_budget_refusals_total{provider=\"payments\"} 0.0",
						"retry_after_budget_tokens{provider=\"global\"} 100.0",
						"retry_after_pacing_rate{provider=\"payments\"} NaN",
						"retry_after_cooldown_remaining_seconds{provider=\"payments\"} 0.0",
						"retry_after_pacing_queued{provider=\"payments\"} 0.0",
						"retry_after_wait_seconds_count{cause=\"backoff\",provider=\"payments\"} 1",
						"retry_after_wait_seconds_sum{cause=\"backoff\",provider=\"payments\"} 0.05",
						"retry_after_wait_seconds_max{cause=\"backoff\",provider=\"payments\"} 0.05",
						"retry_after_wait_seconds_count{cause=\"retry-after\",provider=\"payments\"} 0",
						"retry_after_hint_refusals_total{error=\"INVALID_DELAY\",provider=\"default\"} 1.0");
				assertThat(scrape).doesNotContain("retry_after_wait_seconds_bucket", "retry_after_clock_skew_magnitude",
						"retry_after_wait_seconds_count{cause=\"window-reset\"",
						"retry_after_hint_refusals_total{error=\"INVALID_DELAY\",provider=\"payments\"}",
						"retry_after_hint_refusals_total{error=\"TOO_LONG\"",
						"retry_after_operations_total{outcome=\"NOT_RETRYABLE\"");
			});
	}

	@Test
	void anOutcomesSeriesCountsFromItsFirstEventInEveryRegistryBoundBeforeOrAfterIt() {
		this.contextRunner.run((context) -> {
			RetryAfterMetrics metrics = context.getBean(RetryAfterMetrics.class);
			SimpleMeterRegistry early = new SimpleMeterRegistry();
			metrics.bindTo(early);
			Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, REFUSED, 200);
			SimpleMeterRegistry late = new SimpleMeterRegistry();
			metrics.bindTo(late);
			metrics.bindTo(late);
			for (MeterRegistry registry : List.of(context.getBean(MeterRegistry.class), early, late)) {
				assertThat(counter(registry, RetryAfterMetrics.ATTEMPTS, "payments", "kind", "RETRY")).isEqualTo(1);
				assertThat(counter(registry, RetryAfterMetrics.OPERATIONS, "payments", "outcome", "SUCCESS"))
					.isEqualTo(1);
				assertThat(registry.find(RetryAfterMetrics.OPERATIONS).tag("provider", "payments").functionCounters())
					.as("outcomes that happened").hasSize(1);
			}
			Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, REFUSED, 200);
			// bound twice, recorded once
			assertThat(late.get(RetryAfterMetrics.WAIT).tags("provider", "payments", "cause", "backoff").timer().count())
				.isEqualTo(1);
			assertThat(early.get(RetryAfterMetrics.WAIT).tags("provider", "payments", "cause", "backoff").timer().count())
				.isEqualTo(2);
			assertThat(counter(late, RetryAfterMetrics.OPERATIONS, "payments", "outcome", "SUCCESS")).isEqualTo(2);
			});
	}

	@Test
	void waitHistogramTurnsOnWithBootsDistributionProperty() {
		this.contextRunner
			.withBean("prometheus", PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
			.withPropertyValues("management.metrics.distribution.percentiles-histogram.retry.after.wait=true")
			.run((context) -> {
				Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, REFUSED, 200);
				assertThat(context.getBean(PrometheusMeterRegistry.class).scrape())
					.contains("retry_after_wait_seconds_bucket{cause=\"backoff\",provider=\"payments\",le=");
			});
	}

	@Test
	void backsOffWhenUserDefinesTheirOwnMetrics() {
		RetryAfterProviders own = new RetryAfterProviders(
				List.of(new ProviderSettings("default", List.of(), RetryPolicy.DEFAULTS,
						BudgetSettings.PROVIDER_DEFAULTS, false, 0)),
				(settings) -> RetryEngine.builder().build());
		RetryAfterMetrics mine = new RetryAfterMetrics(() -> own, Ticker.system());
		this.contextRunner.withBean("myMetrics", RetryAfterMetrics.class, () -> mine)
			.run((context) -> assertThat(context).hasSingleBean(RetryAfterMetrics.class)
				.getBean(RetryAfterMetrics.class)
				.isSameAs(mine));
	}

	@Test
	void staysAwayWithoutMicrometer() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
					RetryAfterMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RetryAfterProviders.class)
				.doesNotHaveBean(RetryAfterMetrics.class));
	}

	@Test
	void staysAwayWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
					RetryAfterMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RetryAfterProviders.class)
				.doesNotHaveBean(RetryAfterMetrics.class));
	}

	private static final HeaderSource GARBLED = HeaderSource.of(Map.of("Retry-After", List.of("soon")));

	private static List<Meter> retryAfterMeters(MeterRegistry registry) {
		return registry.getMeters().stream().filter((meter) -> meter.getId().getName().startsWith("retry.after.")).toList();
	}

	private static double counter(MeterRegistry registry, String name, String provider, String key, String value) {
		var search = registry.get(name).tag("provider", provider);
		if (key != null) {
			search = search.tag(key, value);
		}
		return search.functionCounter().count();
	}

	private static double amplification(MeterRegistry registry, String provider) {
		return registry.get(RetryAfterMetrics.AMPLIFICATION).tag("provider", provider).gauge().value();
	}

	private static WaitedEvent waited(OperationSpec spec, Duration waited) {
		return new WaitedEvent(spec, 2, waited, WaitCause.RETRY_AFTER, Map.of(WaitCause.RETRY_AFTER, waited),
				Duration.ZERO);
	}

	private static RetryScheduledEvent scheduled(OperationSpec spec, Duration skew, Duration wait) {
		RetryPlan plan = new RetryPlan(wait, wait, Duration.ZERO, Duration.ZERO, PlanSource.HTTP_DATE, wait,
				Duration.ZERO, false, Optional.of(skew), false, 0, Instant.EPOCH);
		Decision.Retry retry = new Decision.Retry(wait, wait.toNanos(), DelaySource.RETRY_AFTER, Optional.of(plan),
				Optional.empty(), Optional.empty());
		AttemptOutcome outcome = new AttemptOutcome.Response(503,
				HeaderSource.of(Map.of("Retry-After", List.of("Thu, 01 Jan 1970 00:00:05 GMT"))), 0, 0);
		return new RetryScheduledEvent(spec, 1, outcome, retry, Duration.ofSeconds(20), wait, 10, Duration.ZERO);
	}

}
