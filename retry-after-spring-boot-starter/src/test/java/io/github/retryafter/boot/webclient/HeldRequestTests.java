package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests held at the provider's gate on Reactor's virtual time: however long a request is held, and however often
 * it asks the gate again, it is one operation at one level, not a chain that grows with every re-ask.
 */
class HeldRequestTests {

	private final VirtualTimeScheduler virtualTime = VirtualTimeScheduler.create();

	private final AtomicInteger tickerReads = new AtomicInteger();

	@AfterEach
	void stop() {
		this.virtualTime.dispose();
	}

	/**
	 * Issue 32, defect 2: each re-ask nested one more operator ({@code waitUntil(..).then(defer(attempt))}): 2,000
	 * requests held behind a probe the server never answered grew the heap by about 4.6 MB/s, and an operation held
	 * long enough overflowed the stack when it finally completed through every level.
	 */
	@Test
	void aRequestHeldBehindAProbeForThousandsOfReAsksCompletesAtOneLevel() {
		AtomicInteger exchanges = new AtomicInteger();
		AtomicReference<Integer> depthAtRelease = new AtomicReference<>();
		ExchangeFunction server = (request) -> switch (exchanges.incrementAndGet()) {
			case 1 -> Mono.just(ClientResponse.create(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1").build());
			case 2 -> Mono.never(); // the probe the server never answers
			default -> Mono.fromSupplier(() -> {
				depthAtRelease.set(Thread.currentThread().getStackTrace().length);
				return ClientResponse.create(HttpStatus.OK).build();
			});
		};
		RetryAfterExchangeFilterFunction filter = filter();
		Disposable probe = filter.filter(request(), server).subscribe();
		this.virtualTime.advanceTimeBy(Duration.ofMillis(1500));
		assertThat(exchanges).as("the first attempt, then its retry as the probe").hasValue(2);

		AtomicReference<ClientResponse> held = new AtomicReference<>();
		AtomicReference<Throwable> failed = new AtomicReference<>();
		AtomicInteger completions = new AtomicInteger();
		filter.filter(request(), server).subscribe(held::set, failed::set, completions::incrementAndGet);
		// held behind the probe, asking again every 100 ms: 20,000 re-asks
		int readsBefore = this.tickerReads.get();
		this.virtualTime.advanceTimeBy(Duration.ofSeconds(2000));
		assertThat(this.tickerReads.get() - readsBefore).as("it asked the gate again about every 100 ms")
			.isGreaterThan(20_000);
		assertThat(exchanges).as("nothing sent while the probe is out").hasValue(2);
		assertThat(held).hasNullValue();

		probe.dispose();
		this.virtualTime.advanceTimeBy(Duration.ofMillis(200));
		assertThat(failed).hasNullValue();
		assertThat(held.get()).isNotNull().satisfies((response) -> assertThat(response.statusCode().value()).isEqualTo(200));
		assertThat(completions).hasValue(1);
		assertThat(exchanges).hasValue(3);
		assertThat(depthAtRelease.get()).as("the stack when the held request is sent does not grow with its re-asks")
			.isLessThan(400);
	}

	private static ClientRequest request() {
		return ClientRequest.create(HttpMethod.GET, java.net.URI.create("http://provider.test/held")).build();
	}

	private RetryAfterExchangeFilterFunction filter() {
		Ticker ticker = () -> {
			this.tickerReads.incrementAndGet();
			return this.virtualTime.now(TimeUnit.NANOSECONDS);
		};
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.pacing(PacingSettings.DEFAULTS)
			.deadline(Duration.ofHours(3))
			.attemptTimeout(Duration.ofHours(2))
			.build();
		BudgetSettings roomy = new BudgetSettings(1_000_000, 0.2, 1_000);
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().global(roomy).providerDefaults(roomy).build();
		RetryAfterProviders providers = new RetryAfterProviders(
				List.of(new ProviderSettings("default", List.of(), policy, roomy, false, 0)),
				(settings) -> RetryEngine.builder()
					.policy(settings.policy())
					.budget(budget)
					.ticker(ticker)
					.wallClock(InstantSource.system())
					.random(() -> 0.0)
					.build());
		return new RetryAfterExchangeFilterFunction(new RetryAfterOperations(providers, "test"), ticker,
				this.virtualTime);
	}

}
