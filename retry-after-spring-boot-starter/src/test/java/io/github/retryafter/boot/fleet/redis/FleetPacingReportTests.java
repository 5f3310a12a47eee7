package io.github.retryafter.boot.fleet.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.RateLimitedProvider;
import io.github.retryafter.boot.testing.RedisServer;
import io.github.retryafter.engine.Outcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness of issue 17 (a fleet sharing a store must do as well as one instance), on four application contexts
 * sharing one {@code redis-server} and the starter's default retry budget (20 tokens per provider): 1,000 operations
 * started together against a loopback provider that is down for 1 s ({@code 503 Retry-After: 1}) and then admits
 * 400 requests a second with a burst of 40 ({@code 429 Retry-After: 1} beyond that). It asserts what already holds
 * (no request reaches the provider before the instant a refusal of the same operation named, every operation ends,
 * few attempts per operation) and reports the success rate, which issue 17 is to bring to 99.5%: printed and written
 * to {@code target/fleet-pacing.txt}. On a busy 2-core machine it ranged from 90% to 99.4% from run to run, before and
 * after the measured rate and the refund take-over: the refusals left come from each instance's local share of the
 * bucket, which its non-blocking retry decisions spend.
 */
class FleetPacingReportTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private static final int INSTANCES = 4;

	private static final int OPERATIONS = 1000;

	private final String prefix = "pacing-" + fleets.incrementAndGet();

	private final RateLimitedProvider provider = new RateLimitedProvider(1000, 400, 40, 1);

	private final ApplicationContextRunner instance = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.fleet.key-prefix=" + this.prefix,
				"retry.after.providers.pacing.hosts=127.0.0.1", "retry.after.fleet.command-timeout=1s",
				"retry.after.max-attempts=6", "retry.after.deadline=20s");

	@AfterEach
	void stop() {
		this.provider.close();
	}

	private static void count(RetryOutcome outcome, Map<String, Integer> outcomes, List<String> reasons) {
		outcomes.merge(outcome.outcome().name(), 1, Integer::sum);
		if (outcome.outcome() != Outcome.SUCCESS && reasons.size() < 5) {
			reasons.add(outcome.attempts() + " attempts: " + outcome.reason());
		}
	}

	@Test
	void fourInstancesSharingTheStoreNeverComeBackEarlyAndReportTheirSuccessRate() {
		List<AssertableApplicationContext> contexts = new ArrayList<>();
		Map<String, Integer> outcomes = new ConcurrentHashMap<>();
		List<String> reasons = new CopyOnWriteArrayList<>();
		this.instance.run((a) -> this.instance.run((b) -> this.instance.run((c) -> this.instance.run((d) -> {
			contexts.addAll(List.of(a, b, c, d));
			List<WebClient> clients = contexts.stream()
				.map((context) -> context.getBean(WebClient.Builder.class).build())
				.toList();
			List<Integer> statuses = Flux.range(0, OPERATIONS)
				.flatMap((i) -> clients.get(i % INSTANCES)
					.get()
					.uri(this.provider.uri("/items/" + i))
					.header(RateLimitedProvider.OPERATION, "op-" + i)
					.attributes(RetryAfterAttributes.onOutcome((outcome) -> count(outcome, outcomes, reasons)))
					.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
					.onErrorResume((ex) -> Mono.just(-1)), OPERATIONS)
				.collectList()
				.block(Duration.ofSeconds(40));
			String report = String.format(java.util.Locale.ROOT,
					"fleet of %d on redis: %d operations, %.1f%% success, outcomes %s, %.2f attempts per operation, %d "
							+ "early%n%s%n",
					INSTANCES, OPERATIONS, 100.0 * this.provider.successes() / OPERATIONS, new TreeMap<>(outcomes),
					(double) this.provider.requests() / OPERATIONS, this.provider.earlyArrivals(),
					String.join(System.lineSeparator(), reasons));
			System.out.print(report);
			java.nio.file.Files.writeString(java.nio.file.Path.of("target", "fleet-pacing.txt"), report);
			assertThat(statuses).hasSize(OPERATIONS);
			assertThat(this.provider.earlyArrivals()).as("requests before the server's instant").isZero();
			assertThat(this.provider.requests()).as("attempts the server saw for %d operations", OPERATIONS)
				.isLessThanOrEqualTo(3 * OPERATIONS);
		}))));
	}

}
