package io.github.retryafter.boot.httpservice;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.service.ReactiveHttpServiceClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.registry.HttpServiceGroup.ClientType;
import org.springframework.web.service.registry.ImportHttpServices;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterHttpServiceClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ImportHttpServices} clients backed by {@code WebClient}, against one server on loopback: two groups on the
 * same host follow two providers' policies, and a method passes a deadline per call. Waits run on Reactor's virtual
 * time. The host belongs to provider {@code loopback} (2 attempts), so any other count at the server shows that the
 * group chose the provider.
 */
class WebClientHttpServiceGroupsLoopbackTests {

	private final FlakyProvider server = new FlakyProvider();

	private final RecordingListener events = new RecordingListener();

	private final VirtualTimeScheduler virtualTime = VirtualTimeScheduler.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, RetryAfterHttpServiceClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				WebClientAutoConfiguration.class, HttpServiceClientPropertiesAutoConfiguration.class,
				ReactiveHttpServiceClientAutoConfiguration.class))
		.withUserConfiguration(ServiceGroups.class, VirtualTimeFilterConfiguration.class)
		.withBean(Ticker.class, () -> () -> this.virtualTime.now(TimeUnit.NANOSECONDS))
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withBean(RetryListener.class, () -> this.events)
		.withBean(VirtualTimeScheduler.class, () -> this.virtualTime)
		.withPropertyValues("spring.http.serviceclient.ledger.base-url=" + this.server.baseUrl(),
				"spring.http.serviceclient.audit.base-url=" + this.server.baseUrl(),
				"retry.after.providers.loopback.hosts=" + URI.create(this.server.baseUrl()).getHost(),
				"retry.after.providers.loopback.max-attempts=2", "retry.after.providers.ledger.max-attempts=4",
				"retry.after.providers.strict.service-groups=audit", "retry.after.providers.strict.max-attempts=1");

	@AfterEach
	void stop() {
		this.server.close();
		this.virtualTime.dispose();
	}

	@Test
	void twoGroupsOnOneHostFollowTheirOwnProvidersPolicies() {
		this.server.script("/ledger/entries", Reply.status(503).retryAfter("1"), Reply.status(503).retryAfter("1"),
				Reply.ok());
		this.server.script("/audit/trail", Reply.status(503).retryAfter("1"), Reply.ok());
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			CompletableFuture<ResponseEntity<Void>> entries = context.getBean(LedgerApi.class).entries().toFuture();
			for (int retry = 1; retry <= 2; retry++) {
				int scheduled = retry;
				await().atMost(Duration.ofSeconds(5)).until(() -> this.events.retries.size() == scheduled);
				// Retry-After 1 s and jitter 0.125 s above it
				this.virtualTime.advanceTimeBy(Duration.ofMillis(1125));
			}
			assertThat(entries.get(5, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
			assertThat(this.server.requests("/ledger/entries")).isEqualTo(3);

			assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(AuditApi.class).trail(null).block(Duration.ofSeconds(5)));
			assertThat(this.server.requests("/audit/trail")).isEqualTo(1);
			assertThat(this.events.finished).extracting((event) -> event.spec().provider())
				.containsExactly("ledger", "strict");
		});
	}

	@Test
	void deadlinePassedByTheMethodEndsTheCallBeforeAWaitItCannotFit() {
		this.server.script("/audit/trail", Reply.status(503).retryAfter("3"), Reply.ok());
		this.contextRunner.withPropertyValues("retry.after.providers.strict.max-attempts=3").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
				.isThrownBy(() -> context.getBean(AuditApi.class).trail(Duration.ofSeconds(2)).block(Duration.ofSeconds(5)));
			assertThat(this.server.requests("/audit/trail")).isEqualTo(1);
			assertThat(this.events.retries).isEmpty();
			assertThat(this.events.last().outcome()).isEqualTo(Outcome.WAIT_EXCEEDS_DEADLINE);
		});
	}

	@HttpExchange("/ledger")
	interface LedgerApi {

		@GetExchange("/entries")
		Mono<ResponseEntity<Void>> entries();

	}

	@HttpExchange("/audit")
	interface AuditApi {

		@GetExchange("/trail")
		Mono<ResponseEntity<Void>> trail(
				@RequestAttribute(name = RetryAfterAttributes.DEADLINE, required = false) Duration deadline);

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "ledger", types = LedgerApi.class, clientType = ClientType.WEB_CLIENT)
	@ImportHttpServices(group = "audit", types = AuditApi.class, clientType = ClientType.WEB_CLIENT)
	static class ServiceGroups {

	}

	@Configuration(proxyBeanMethods = false)
	static class VirtualTimeFilterConfiguration {

		@Bean
		RetryAfterExchangeFilterFunction virtualTimeFilter(RetryAfterOperations operations, Ticker ticker,
				VirtualTimeScheduler scheduler) {
			return new RetryAfterExchangeFilterFunction(operations, ticker, scheduler);
		}

	}

}
