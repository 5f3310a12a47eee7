package io.github.retryafter.boot.httpservice;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.annotation.PostExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterHttpServiceClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @ImportHttpServices} clients backed by {@code RestClient}, against one server on loopback: two groups on the
 * same host follow two providers' policies, and an interface method passes a key or a deadline per call. A test clock
 * takes every wait, so nothing waits out a Retry-After for real.
 * <p>
 * The host itself belongs to provider {@code loopback} (2 attempts), so a count other than 2 at the server shows that
 * the group, not the host, chose the provider.
 */
class HttpServiceGroupsLoopbackTests {

	private final FlakyProvider server = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final RecordingListener events = new RecordingListener();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterHttpServiceClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, HttpServiceClientPropertiesAutoConfiguration.class,
				HttpServiceClientAutoConfiguration.class))
		.withUserConfiguration(ServiceGroups.class)
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.clock)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> this.events)
		.withPropertyValues("spring.http.serviceclient.billing.base-url=" + this.server.baseUrl(),
				"spring.http.serviceclient.search.base-url=" + this.server.baseUrl(),
				"spring.http.serviceclient.misc.base-url=" + this.server.baseUrl(),
				"retry.after.providers.loopback.hosts=" + URI.create(this.server.baseUrl()).getHost(),
				"retry.after.providers.loopback.max-attempts=2",
				// billing by its name: retries a 503 up to four attempts
				"retry.after.providers.billing.max-attempts=4",
				// search listed under a provider of another name: one attempt, never a retry
				"retry.after.providers.strict.service-groups=search", "retry.after.providers.strict.max-attempts=1");

	@AfterEach
	void stopServer() {
		this.server.close();
	}

	@Test
	void twoGroupsOnOneHostFollowTheirOwnProvidersPolicies() {
		this.server.script("/billing/invoices", Reply.status(503).retryAfter("1"), Reply.status(503).retryAfter("1"),
				Reply.ok());
		this.server.script("/search/query", Reply.status(503).retryAfter("1"), Reply.ok());
		run((context) -> {
			assertThat(context.getBean(BillingApi.class).invoices().getStatusCode().value()).isEqualTo(200);
			assertThat(this.server.requests("/billing/invoices")).isEqualTo(3);
			// Retry-After 1 s twice, each with jitter 0.125 s above it (spread 0.25 s, draw 0.5)
			assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(1125), Duration.ofMillis(1125));

			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(SearchApi.class).query());
			assertThat(this.server.requests("/search/query")).isEqualTo(1);
			assertThat(this.clock.sleeps()).hasSize(2);

			assertThat(this.events.finished).extracting((event) -> event.spec().provider())
				.containsExactly("billing", "strict");
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED);
		});
	}

	@Test
	void groupNoProviderClaimsGoesByHost() {
		this.server.script("/misc/ping", Reply.status(503).retryAfter("1"));
		run((context) -> {
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(MiscApi.class).ping());
			assertThat(this.server.requests("/misc/ping")).isEqualTo(2);
			assertThat(this.events.last().spec().provider()).isEqualTo("loopback");
		});
	}

	@Test
	void callThatNamesItsOwnProviderKeepsIt() {
		this.server.script("/billing/invoices", Reply.status(503).retryAfter("1"), Reply.ok());
		run((context) -> {
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(BillingApi.class).invoicesThrough("strict"));
			assertThat(this.server.requests("/billing/invoices")).isEqualTo(1);
			assertThat(this.events.last().spec().provider()).isEqualTo("strict");
		});
	}

	@Test
	void keyPassedByTheMethodMakesAPostRetryableAndGoesOnEveryAttempt() {
		this.server.script("/billing/charges", Reply.status(503).retryAfter("1"), Reply.status(201).creates());
		run((context) -> {
			ResponseEntity<Void> created = context.getBean(BillingApi.class).charge("charge-7", "{\"pence\":250}");
			assertThat(created.getStatusCode().value()).isEqualTo(201);
			assertThat(this.server.requests("/billing/charges")).isEqualTo(2);
			assertThat(this.server.recorded()).extracting((request) -> request.getHeaders().get("Idempotency-Key"))
				.containsExactly("charge-7", "charge-7");
			assertThat(this.server.recorded()).extracting((request) -> request.getBody().utf8())
				.containsExactly("{\"pence\":250}", "{\"pence\":250}");
		});
	}

	@Test
	void keyPassedAsTheIdempotencyKeyHeaderAlsoMakesAPostRetryable() {
		this.server.script("/billing/refunds", Reply.status(503).retryAfter("1"), Reply.status(201).creates());
		run((context) -> {
			ResponseEntity<Void> created = context.getBean(BillingApi.class).refund("refund-3", "{}");
			assertThat(created.getStatusCode().value()).isEqualTo(201);
			assertThat(this.server.recorded()).extracting((request) -> request.getHeaders().get("Idempotency-Key"))
				.containsExactly("refund-3", "refund-3");
		});
	}

	@Test
	void postWithoutAKeyIsSentOnce() {
		this.server.script("/billing/charges", Reply.status(503).retryAfter("1"), Reply.status(201).creates());
		run((context) -> {
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(BillingApi.class).chargeWithoutKey("{}"));
			assertThat(this.server.requests("/billing/charges")).isEqualTo(1);
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		});
	}

	@Test
	void deadlinePassedByTheMethodEndsTheCallBeforeAWaitItCannotFit() {
		this.server.script("/billing/report", Reply.status(503).retryAfter("3"), Reply.ok());
		run((context) -> {
			BillingApi billing = context.getBean(BillingApi.class);
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> billing.report(Duration.ofSeconds(2)));
			assertThat(this.server.requests("/billing/report")).isEqualTo(1);
			assertThat(this.clock.sleeps()).isEmpty();
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);

			// the same method without a deadline of its own: the provider's, which the 3 s wait fits
			this.server.script("/billing/report", Reply.status(503).retryAfter("3"), Reply.ok());
			assertThat(billing.report(null).getStatusCode().value()).isEqualTo(200);
			assertThat(this.server.requests("/billing/report")).isEqualTo(3);
			// first the 3 s cooldown the refused call's 503 left on provider billing, then the retry's own wait
			assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(3), Duration.ofMillis(3375));
		});
	}

	private void run(ContextAssertions assertions) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertions.accept(context);
		});
	}

	@FunctionalInterface
	interface ContextAssertions {

		void accept(AssertableApplicationContext context) throws Exception;

	}

	@HttpExchange("/billing")
	interface BillingApi {

		@GetExchange("/invoices")
		ResponseEntity<Void> invoices();

		@GetExchange("/invoices")
		ResponseEntity<Void> invoicesThrough(@RequestAttribute(RetryAfterAttributes.PROVIDER) String provider);

		@PostExchange("/charges")
		ResponseEntity<Void> charge(@RequestAttribute(RetryAfterAttributes.IDEMPOTENCY_KEY) String key,
				@RequestBody String charge);

		@PostExchange("/charges")
		ResponseEntity<Void> chargeWithoutKey(@RequestBody String charge);

		@PostExchange("/refunds")
		ResponseEntity<Void> refund(@RequestHeader("Idempotency-Key") String key, @RequestBody String refund);

		@GetExchange("/report")
		ResponseEntity<Void> report(
				@RequestAttribute(name = RetryAfterAttributes.DEADLINE, required = false) Duration deadline);

	}

	@HttpExchange("/search")
	interface SearchApi {

		@GetExchange("/query")
		ResponseEntity<Void> query();

	}

	@HttpExchange("/misc")
	interface MiscApi {

		@GetExchange("/ping")
		ResponseEntity<Void> ping();

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "billing", types = BillingApi.class)
	@ImportHttpServices(group = "search", types = SearchApi.class)
	@ImportHttpServices(group = "misc", types = MiscApi.class)
	static class ServiceGroups {

	}

}
