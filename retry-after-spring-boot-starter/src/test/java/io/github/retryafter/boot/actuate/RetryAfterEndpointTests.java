package io.github.retryafter.boot.actuate;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEndpointAutoConfiguration;
import io.github.retryafter.boot.testing.Drive;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DelaySource;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.test.FakeClock;

import static io.github.retryafter.boot.testing.Drive.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code retryafter} endpoint over the auto-configured engines, fed by real operations on a test clock.
 */
class RetryAfterEndpointTests {

	private static final Instant NOW = Instant.parse("2026-11-30T10:15:30Z");

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterEndpointAutoConfiguration.class))
		// the ticker alone (not the fake clock, which is also a wall clock), so the application's fixed
		// InstantSource bean is the wall clock
		.withBean(Ticker.class, () -> this.clock::read)
		.withBean(InstantSource.class, () -> InstantSource.fixed(NOW))
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("management.endpoints.web.exposure.include=retryafter",
				"retry.after.providers.payments.hosts=api.pay.example,*.pay.example",
				"retry.after.providers.payments.max-attempts=3", "retry.after.providers.payments.budget.capacity=5",
				"retry.after.budget.refill-per-second=0", "retry.after.global-budget.refill-per-second=0");

	@Test
	void listsTheOriginsOfDefaultThatAreCoolingDownAndAResetOpensThemAtOnce() {
		this.contextRunner.run((context) -> {
			RetryAfterOperations operations = context.getBean(RetryAfterOperations.class);
			HeaderSource pause = HeaderSource.of(Map.of("Retry-After", List.of("60")));
			// each operation ends WAIT_TOO_LONG (max-wait 30 s) and closes its origin's gate for max-cooldown, 30 s
			for (String host : List.of("a.example", "b.example")) {
				Drive.operation(operations, URI.create("https://" + host + "/x?secret=1"), this.clock, pause, 503);
			}
			RetryAfterEndpoint endpoint = context.getBean(RetryAfterEndpoint.class);
			PacingDescriptor pacing = endpoint.provider("default").pacing();
			assertThat(pacing.activeOrigins()).extracting(PacingDescriptor.OriginDescriptor::origin)
				.containsExactlyInAnyOrder("https://a.example:443", "https://b.example:443");
			assertThat(pacing.cooldownRemaining()).isEqualTo("PT30S");
			assertThat(pacing.notBefore()).as("the instant an outer layer waits for, on the wall clock")
				.isEqualTo("2026-11-30T10:16:00Z");
			assertThat(pacing.activeOrigins()).extracting(PacingDescriptor.OriginDescriptor::notBefore)
				.containsOnly("2026-11-30T10:16:00Z");
			assertThat(endpoint.reset("default", "https://a.example:443").gatesOpened()).isEqualTo(1);
			assertThat(endpoint.provider("default").pacing().activeOrigins())
				.extracting(PacingDescriptor.OriginDescriptor::origin)
				.containsExactly("https://b.example:443");
			assertThat(endpoint.reset("default", null).gatesOpened()).isEqualTo(3);
			assertThat(endpoint.provider("default").pacing().activeOrigins()).isEmpty();
			assertThat(endpoint.provider("default").pacing().cooldownRemaining()).isEqualTo("PT0S");
			assertThat(endpoint.provider("default").pacing().notBefore()).isNull();
			assertThat(endpoint.reset("nobody", null)).isNull();
		});
	}

	@Test
	void showsSettingsBudgetCountsAndWhatWasLastSeenPerProvider() {
		this.contextRunner.run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			Drive.operation(providers, "payments", this.clock, REFUSED, 200);
			Drive.operation(providers, "payments", this.clock, 200);
			Drive.operation(providers, "payments", this.clock, REFUSED);
			RetryAfterActivity activity = context.getBean(RetryAfterActivity.class);
			activity.onRetryScheduled(hinted("payments", Duration.ofMillis(-2500)));
			RetryAfterEndpoint.RetryAfterDescriptor all = context.getBean(RetryAfterEndpoint.class).retryAfter();
			assertThat(all.providers()).containsOnlyKeys("default", "payments");
			assertThat(all.globalBudget().capacity()).isEqualTo(100);
			// a successful retry gives its token back, so only the exhausted operation's two retries are spent
			assertThat(all.globalBudget().tokens()).isEqualTo(98.0, org.assertj.core.api.Assertions.within(1e-9));
			RetryAfterEndpoint.ProviderDescriptor payments = all.providers().get("payments");
			assertThat(payments.settings().hosts()).containsExactly("api.pay.example", "*.pay.example");
			assertThat(payments.settings().maxAttempts()).isEqualTo(3);
			assertThat(payments.settings().deadline()).isEqualTo("PT30S");
			assertThat(payments.settings().maxWait()).isEqualTo("PT30S");
			assertThat(payments.settings().hintMode()).isEqualTo("FLOOR_PLUS_JITTER");
			assertThat(payments.settings().jitter()).isEqualTo("RANDOM");
			assertThat(payments.settings().retryableStatuses()).containsExactly(408, 429, 502, 503, 504);
			// the standard profile: what is read and which refusals are repeated, as the properties name them
			assertThat(payments.settings().hintFields()).containsExactly("retry-after", "rate-limit");
			assertThat(payments.settings().retryRefusedRequests()).isFalse();
			assertThat(payments.settings().refusalStatuses()).containsExactly(429);
			assertThat(payments.settings().attemptHeader()).isNull();
			assertThat(payments.budget().capacity()).isEqualTo(5);
			// 3 retries taken, the successful one given back; the deposit of the successful first attempt found the
			// bucket full
			assertThat(payments.budget().tokens()).isEqualTo(3.0, org.assertj.core.api.Assertions.within(1e-9));
			assertThat(payments.operations()).containsEntry("total", 3L)
				.containsEntry("SUCCESS", 2L)
				.containsEntry("ATTEMPTS_EXHAUSTED", 1L)
				.containsEntry("BUDGET_EXHAUSTED", 0L);
			assertThat(payments.attempts()).containsExactly(Map.entry("FIRST", 3L), Map.entry("RETRY", 3L));
			assertThat(payments.amplification().ratio()).isEqualTo(2.0);
			assertThat(payments.amplification().window()).isEqualTo("PT1M");
			assertThat(payments.lastSkew().seconds()).isEqualTo(-2.5);
			assertThat(payments.lastSkew().at()).isEqualTo("2026-11-30T10:15:30Z");
			assertThat(payments.lastSkew().withinDatePrecision()).as("2.5 s is more than the Date's precision").isFalse();
			assertThat(payments.lastRetryAfter().value()).isEqualTo("Mon, 30 Nov 2026 10:15:32 GMT");
			assertThat(payments.lastRetryAfter().status()).isEqualTo(503);
			assertThat(payments.lastRetryAfter().waitTime()).isEqualTo("PT2S");
			assertThat(payments.lastRetryAfter().source()).isEqualTo("RETRY_AFTER");
			assertThat(payments.lastRefusal().stop()).isEqualTo("ATTEMPTS_EXHAUSTED");
			assertThat(payments.pacing()).isEqualTo(new PacingDescriptor("HOLD", 1.0, 1000.0, 10, 0.1,
					0.7, null, "PT0S", null, 0, "PT30S", List.of()));
			RetryAfterEndpoint.ProviderDescriptor defaults = all.providers().get("default");
			assertThat(defaults.operations()).containsEntry("total", 0L);
			assertThat(defaults.amplification().ratio()).isNull();
			assertThat(defaults.lastSkew()).isNull();
			assertThat(defaults.lastRetryAfter()).isNull();
		});
	}

	@Test
	void showsWhatAProfileMakesAProviderReadAndRepeat() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.profile=openai").run((context) -> {
			SettingsDescriptor openai = context.getBean(RetryAfterEndpoint.class)
				.provider("openai")
				.settings();
			assertThat(openai.hintFields()).contains("retry-after", "retry-after-ms", "x-should-retry")
				.doesNotContain("stripe-should-retry");
			assertThat(openai.retryRefusedRequests()).isTrue();
			assertThat(openai.refusalStatuses()).containsExactly(429, 503);
			assertThat(openai.attemptHeader()).isEqualTo("x-stainless-retry-count");
		});
	}

	@Test
	void showsTheLastRateLimitWindowOfEachUnitAsTheProfileReadsIt() {
		this.contextRunner.withPropertyValues("retry.after.providers.openai.hosts=api.openai.example",
				"retry.after.providers.openai.profile=openai").run((context) -> {
			RetryAfterEndpoint endpoint = context.getBean(RetryAfterEndpoint.class);
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(endpoint.provider("openai").windows()).isEmpty();
			Drive.operation(providers, "openai", this.clock, HeaderSource.of(Map.of("x-ratelimit-remaining-requests",
					List.of("42"), "x-ratelimit-limit-requests", List.of("60"), "x-ratelimit-reset-requests",
					List.of("1s"), "x-ratelimit-remaining-tokens", List.of("8000"), "x-ratelimit-limit-tokens",
					List.of("10000"), "x-ratelimit-reset-tokens", List.of("30ms"))), 200);
			assertThat(endpoint.provider("openai").windows()).containsExactly(
					Map.entry("requests", new RetryAfterEndpoint.WindowDescriptor(42.0, 60.0, 1.0)),
					Map.entry("tokens", new RetryAfterEndpoint.WindowDescriptor(8000.0, 10000.0, 0.03)));
			Drive.operation(providers, "payments", this.clock,
					HeaderSource.of(Map.of("X-RateLimit-Remaining", List.of("7"), "X-RateLimit-Reset", List.of("30"))),
					200);
			assertThat(endpoint.provider("payments").windows())
				.containsExactly(Map.entry("requests", new RetryAfterEndpoint.WindowDescriptor(7.0, null, 30.0)));
			Drive.operation(providers, "payments", this.clock, HeaderSource.of(Map.of("X-RateLimit-Limit",
					List.of("10"), "X-RateLimit-Remaining", List.of("6"), "X-RateLimit-Reset", List.of("29"))), 200);
			assertThat(endpoint.provider("payments").windows()).as("a standard family's limit, as announced")
				.containsExactly(Map.entry("requests", new RetryAfterEndpoint.WindowDescriptor(6.0, 10.0, 29.0)));
		});
	}

	@Test
	void showsWhoseTimeoutsBoundAModelProvidersAttempts() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.openai.profile=openai",
					"retry.after.providers.azure.profile=azure", "retry.after.providers.azure.attempt-timeout=20s")
			.run((context) -> {
				RetryAfterEndpoint endpoint = context.getBean(RetryAfterEndpoint.class);
				assertThat(endpoint.provider("openai").settings().clientTimeouts()).isTrue();
				assertThat(endpoint.provider("openai").settings().deadline()).isEqualTo("PT10M");
				assertThat(endpoint.provider("azure").settings().clientTimeouts()).isFalse();
				assertThat(endpoint.provider("azure").settings().attemptTimeout()).isEqualTo("PT20S");
				assertThat(endpoint.provider("payments").settings().clientTimeouts()).isFalse();
			});
	}

	@Test
	void withoutAFleetStoreEachProviderSaysItsScopeAndNothingIsShared() {
		this.contextRunner.withPropertyValues("retry.after.providers.payments.hosts=api.pay.example").run((context) -> {
			RetryAfterEndpoint.RetryAfterDescriptor all = context.getBean(RetryAfterEndpoint.class).retryAfter();
			assertThat(all.fleet()).isNull();
			assertThat(all.providers().get("payments").scope()).isEqualTo("PROVIDER");
			assertThat(all.providers().get("default").scope()).isEqualTo("ORIGIN");
			assertThat(all.providers().values()).allSatisfy((provider) -> assertThat(provider.sharedByFleet()).isNull());
		});
	}

	@Test
	void keepsTheLastUnusableRetryAfterWithItsErrorAndCutsLongValues() {
		this.contextRunner.run((context) -> {
			RetryAfterActivity activity = context.getBean(RetryAfterActivity.class);
			OperationSpec spec = OperationSpec.of("GET").withProvider("payments");
			String huge = "9".repeat(500);
			AttemptOutcome response = new AttemptOutcome.Response(429,
					HeaderSource.of(Map.of("Retry-After", List.of(huge))), 0, 0);
			activity.onRefusal(new RefusalEvent(spec, 2, Optional.of(Outcome.WAIT_TOO_LONG),
					Optional.of(RetryAfterError.TOO_LONG), "the server asked for too long", Duration.ofSeconds(9), 3,
					Duration.ofSeconds(1)));
			activity.onOperationFinished(new io.github.retryafter.engine.OperationFinishedEvent(spec,
					Outcome.WAIT_TOO_LONG, "too long", 2, Duration.ZERO, Duration.ofSeconds(1), Optional.of(response)));
			RetryAfterEndpoint.ProviderDescriptor payments = context.getBean(RetryAfterEndpoint.class)
				.provider("payments");
			assertThat(payments.lastRetryAfter().value()).hasSize(RetryAfterActivity.MAX_VALUE_LENGTH).endsWith("…");
			assertThat(payments.lastRetryAfter().decision()).isEqualTo("WAIT_TOO_LONG");
			assertThat(payments.lastRetryAfter().waitTime()).isNull();
			assertThat(payments.lastRefusal().hintError()).isEqualTo("TOO_LONG");
			assertThat(payments.lastRefusal().reason()).isEqualTo("the server asked for too long");
		});
	}

	@Test
	void selectorShowsOneProviderAndNothingForAnUnknownOne() {
		this.contextRunner.run((context) -> {
			RetryAfterEndpoint endpoint = context.getBean(RetryAfterEndpoint.class);
			assertThat(endpoint.provider("payments").settings().maxAttempts()).isEqualTo(3);
			assertThat(endpoint.provider("nope")).isNull();
		});
	}

	@Test
	void namesEachProvidersProfileServiceGroupsAndTheClientsThatRouteToIt() {
		this.contextRunner
			.withPropertyValues("retry.after.providers.github.hosts=api.github.com",
					"retry.after.providers.github.profile=github",
					"retry.after.providers.github.service-groups=github,gists")
			.run((context) -> {
				RetryAfterEndpoint endpoint = context.getBean(RetryAfterEndpoint.class);
				RetryAfterEndpoint.WiringDescriptor github = endpoint.provider("github").wiring();
				assertThat(github.profile()).isEqualTo("github");
				assertThat(github.serviceGroups()).containsExactly("github", "gists");
				assertThat(github.clients()).as("the integrations on this classpath, by their switches")
					.containsExactly("RestClient", "RestTemplate", "WebClient", "OkHttp builders");
				RetryAfterEndpoint.WiringDescriptor payments = endpoint.retryAfter().providers().get("payments").wiring();
				assertThat(payments.profile()).isEqualTo("standard");
				assertThat(payments.serviceGroups()).isEmpty();
				assertThat(endpoint.provider("default").wiring().profile()).isEqualTo("standard");
				String json = JsonMapper.builder().build().writeValueAsString(endpoint.provider("github"));
				assertThat(json).contains("\"wiring\":{\"profile\":\"github\",\"serviceGroups\":[\"github\",\"gists\"],"
						+ "\"clients\":[\"RestClient\",\"RestTemplate\",\"WebClient\",\"OkHttp builders\"]}");
			});
		this.contextRunner.withPropertyValues("retry.after.ok-http.enabled=false", "retry.after.web-client.enabled=false")
			.run((context) -> assertThat(context.getBean(RetryAfterEndpoint.class).provider("payments").wiring().clients())
				.containsExactly("RestClient", "RestTemplate"));
	}

	@Test
	void rendersAsJson() {
		this.contextRunner.run((context) -> {
			Drive.operation(context.getBean(RetryAfterProviders.class), "payments", this.clock, REFUSED, 200);
			context.getBean(RetryAfterActivity.class).onRetryScheduled(hinted("payments", Duration.ofMillis(-2500)));
			String json = JsonMapper.builder().build().writerWithDefaultPrettyPrinter()
				.writeValueAsString(context.getBean(RetryAfterEndpoint.class).retryAfter());
			assertThat(json).contains("\"amplification\"", "\"ratio\" : 2.0", "\"seconds\" : -2.5",
					"\"value\" : \"Mon, 30 Nov 2026 10:15:32 GMT\"", "\"maxAttempts\" : 3");
		});
	}

	@Test
	void isAbsentUntilTheEndpointIsExposed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
					RetryAfterEndpointAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RetryAfterEndpoint.class)
				.doesNotHaveBean(RetryAfterActivity.class));
	}

	@Test
	void backsOffWhenUserDefinesTheirOwnEndpoint() {
		this.contextRunner.withBean("myEndpoint", RetryAfterEndpoint.class,
				() -> new RetryAfterEndpoint(
						new RetryAfterProviders(
								List.of(new io.github.retryafter.boot.ProviderSettings("default", List.of(),
										io.github.retryafter.engine.RetryPolicy.DEFAULTS,
										io.github.retryafter.budget.BudgetSettings.PROVIDER_DEFAULTS, false, 0)),
								(settings) -> io.github.retryafter.engine.RetryEngine.builder().build()),
						new RetryAfterActivity(InstantSource.system(), Ticker.system())))
			.run((context) -> assertThat(context).hasSingleBean(RetryAfterEndpoint.class)
				.getBean(RetryAfterEndpoint.class)
				.isSameAs(context.getBean("myEndpoint")));
	}

	@Test
	void staysAwayWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RetryAfterProviders.class)
				.doesNotHaveBean(RetryAfterEndpoint.class)
				.doesNotHaveBean(RetryAfterActivity.class));
	}

	private static RetryScheduledEvent hinted(String provider, Duration skew) {
		Duration wait = Duration.ofSeconds(2);
		RetryPlan plan = new RetryPlan(wait, wait, Duration.ZERO, Duration.ZERO, PlanSource.HTTP_DATE, wait,
				Duration.ZERO, false, Optional.of(skew), false, 0, NOW.plus(wait));
		Decision.Retry retry = new Decision.Retry(wait, wait.toNanos(), DelaySource.RETRY_AFTER, Optional.of(plan),
				Optional.empty(), Optional.empty());
		AttemptOutcome outcome = new AttemptOutcome.Response(503,
				HeaderSource.of(Map.of("Retry-After", List.of("Mon, 30 Nov 2026 10:15:32 GMT"))), 0, 0);
		return new RetryScheduledEvent(OperationSpec.of("GET").withProvider(provider), 1, outcome, retry,
				Duration.ofSeconds(20), wait, 10, Duration.ZERO);
	}

}
