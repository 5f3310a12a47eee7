package io.github.retryafter.boot.pacing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.RateLimitedProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Provider pacing over real HTTP, in real time: a loopback provider that is down for 300 ms (503,
 * {@code Retry-After: 1}) and then admits 400 requests a second (429, {@code Retry-After: 1}, to the excess), and a few
 * hundred operations started together through the auto-configured clients, with the starter's defaults (pacing on)
 * but a retry budget large enough for the burst.
 * Every operation must succeed, the server must see few attempts per operation, and no request may reach it before
 * the instant a refusal of the same operation named, judged on the server's own clock. The waits are real, and short:
 * a 1 s Retry-After and a few seconds of draining in all. The margins hold on two busy cores: the bound on attempts is
 * looser than the simulation's 2.5, because a slow scheduler widens the window of requests in flight when a 429
 * closes the gate.
 */
class PacedLoopbackIntegrationTests {

	private final RateLimitedProvider provider = new RateLimitedProvider(300, 400, 40, 1);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class,
				RestClientAutoConfiguration.class))
		// The retry budget is sized for the burst so that this test measures pacing, not the budget: with the
		// default 20 tokens, a loaded machine's slow round trips keep enough paced retries in flight at once to empty
		// it (by design: tokens come back only when a retry succeeds), and an operation would end BUDGET_EXHAUSTED.
		.withPropertyValues("retry.after.max-attempts=6", "retry.after.deadline=20s", "retry.after.budget.capacity=400",
				"retry.after.global-budget.capacity=400");

	@AfterEach
	void stop() {
		this.provider.close();
	}

	@Test
	void twoHundredWebClientOperationsAllSucceedWithFewAttemptsAndNoneEarly() {
		int operations = 200;
		this.contextRunner.run((context) -> {
			WebClient client = context.getBean(WebClient.Builder.class).build();
			List<Integer> statuses = statuses(client, this.provider, "web-", operations);
			assertThat(statuses).hasSize(operations).containsOnly(200);
			assertThat(this.provider.successes()).isEqualTo(operations);
			assertThat(this.provider.earlyArrivals()).as("requests before the server's instant").isZero();
			assertThat(this.provider.requests()).as("attempts the server saw for %d operations", operations)
				.isLessThanOrEqualTo(3 * operations);
		});
	}

	/**
	 * Issue 13 on loopback: 600 operations against a provider down for 1 s ({@code Retry-After: 1}) that then admits
	 * 40 at once and 400 a second. The bound that honours every hint: nobody comes back before 1 s after the first
	 * request, then the k-th success needs {@code (k − 40) / 400} more seconds (p50 1.65 s, p99 2.385 s, both from the
	 * server's first request, on the same {@link System#nanoTime()} clock). The ratio to the bound is printed, not
	 * asserted: on two busy cores the client itself may not reach 400 requests a second (one run measured the provider
	 * admitting 250 a second while the gate allowed 700), so timing here measures the machine as much as the pacing;
	 * the simulator pins the ratio. What is asserted holds on any machine: every operation succeeds, none is early,
	 * and the server sees at most 2.2 attempts per operation (the bound; a run at load
	 * average 5 saw 1.79, quiet runs 1.13–1.27).
	 */
	@Test
	void sixHundredWebClientOperationsAllSucceedWithFewAttemptsAndTheirTimesAreMeasuredAgainstTheBound() {
		measureAgainstTheBound(new RateLimitedProvider(1000, 400, 40, 1), "delay-seconds");
	}

	/**
	 * The same with every hint an HTTP-date and the client's wall clock 40 s slow and then 40 s fast (the server's 40 s
	 * fast or slow, as the client sees it): the planner measures each hint against the response's own {@code Date},
	 * so the clocks change nothing.
	 */
	@org.junit.jupiter.params.ParameterizedTest
	@org.junit.jupiter.params.provider.ValueSource(longs = { -40, 40 })
	void withHttpDatesAndClocksFortySecondsApartTheOperationsFareTheSame(long clientOffsetSeconds) {
		Duration offset = Duration.ofSeconds(clientOffsetSeconds);
		measureAgainstTheBound(RateLimitedProvider.withHttpDates(1000, 1, 400, 40, 1),
				this.contextRunner.withBean(java.time.InstantSource.class, () -> () -> java.time.Instant.now().plus(offset)),
				"HTTP-dates, client clock " + ((clientOffsetSeconds > 0) ? "+" : "") + clientOffsetSeconds + " s");
	}

	private void measureAgainstTheBound(RateLimitedProvider slow, String variant) {
		measureAgainstTheBound(slow, this.contextRunner, variant);
	}

	private void measureAgainstTheBound(RateLimitedProvider slow, ApplicationContextRunner runner, String variant) {
		int operations = 600;
		try {
			runner.run((context) -> {
				WebClient client = context.getBean(WebClient.Builder.class).build();
				warmUp(client, operations);
				List<Long> finished = Flux.range(0, operations)
					.flatMap((i) -> client.get()
						.uri(slow.uri("/items/" + i))
						.header(RateLimitedProvider.OPERATION, "bound-" + i)
						.retrieve()
						.toBodilessEntity()
						.map((response) -> System.nanoTime()), operations)
					.collectList()
					.block(Duration.ofSeconds(30));
				assertThat(finished).hasSize(operations);
				assertThat(slow.successes()).isEqualTo(operations);
				assertThat(slow.earlyArrivals()).as("requests before the server's instant").isZero();
				long first = slow.firstRequestNanos();
				long[] sorted = finished.stream().mapToLong((at) -> at - first).sorted().toArray();
				double p50 = sorted[operations / 2 - 1] / 1e9;
				double p99 = sorted[(int) Math.ceil(0.99 * operations) - 1] / 1e9;
				// nobody honouring every hint succeeds before the first instant a hint named after the recovery
				double back = slow.earliestReturnNanos() / 1e9;
				double p50Bound = back + (operations / 2 - 40) / 400.0;
				double p99Bound = back + (Math.ceil(0.99 * operations) - 40) / 400.0;
				System.out.printf("loopback bound run (%s): %d requests for %d operations, p50 %.3f s (bound %.3f, "
						+ "%.2fx), p99 %.3f s (bound %.3f, %.2fx)%n", variant, slow.requests(), operations, p50, p50Bound,
						p50 / p50Bound, p99, p99Bound, p99 / p99Bound);
				if (p50 / p50Bound > 1.15 || p99 / p99Bound > 1.15) {
					System.out.print("what the server answered, per 100 ms after its first request:\n" + slow.timeline(100));
				}
				assertThat(slow.requests()).as("attempts the server saw").isLessThanOrEqualTo((int) (2.2 * operations));
				assertThat(p50).as("p50 after the server's first request, s").isGreaterThanOrEqualTo(1.0);
			});
		}
		finally {
			slow.close();
		}
	}

	/**
	 * The same number of operations against a provider that admits them all, first, so the run measured is that of an
	 * application that has been serving (its code compiled, its pool warm): a cold JVM spends the first second
	 * loading and compiling, reads the first refusals hundreds of milliseconds late and spreads its first burst over
	 * as long, which would measure the JIT, not the pacing.
	 */
	private static void warmUp(WebClient client, int operations) {
		try (RateLimitedProvider healthy = new RateLimitedProvider(0, 1e9, operations, 1)) {
			assertThat(statuses(client, healthy, "warm-up-", operations)).hasSize(operations).containsOnly(200);
		}
	}

	/** Sends {@code operations} GETs at once, each its own operation named {@code prefix + i}; their statuses. */
	private static List<Integer> statuses(WebClient client, RateLimitedProvider provider, String prefix, int operations) {
		return Flux.range(0, operations)
			.flatMap((i) -> client.get()
				.uri(provider.uri("/items/" + i))
				.header(RateLimitedProvider.OPERATION, prefix + i)
				.retrieve()
				.toBodilessEntity()
				.map((response) -> response.getStatusCode().value()), operations)
			.collectList()
			.block(Duration.ofSeconds(30));
	}

	@Test
	void sixtyRestClientOperationsOnTheirOwnThreadsAllSucceedWithFewAttemptsAndNoneEarly() throws Exception {
		int operations = 60;
		ExecutorService threads = Executors.newFixedThreadPool(operations);
		try {
			this.contextRunner.run((context) -> {
				RestClient client = context.getBean(RestClient.Builder.class).build();
				List<Future<Integer>> calls = new ArrayList<>();
				for (int i = 0; i < operations; i++) {
					String operation = "rest-" + i;
					calls.add(threads.submit(() -> client.get()
						.uri(this.provider.uri("/items/" + operation))
						.header(RateLimitedProvider.OPERATION, operation)
						.retrieve()
						.toBodilessEntity()
						.getStatusCode()
						.value()));
				}
				for (Future<Integer> call : calls) {
					assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo(200);
				}
				assertThat(this.provider.successes()).isEqualTo(operations);
				assertThat(this.provider.earlyArrivals()).as("requests before the server's instant").isZero();
				assertThat(this.provider.requests()).as("attempts the server saw for %d operations", operations)
					.isLessThanOrEqualTo(3 * operations);
			});
		}
		finally {
			threads.shutdownNow();
		}
	}

}
