package io.github.retryafter.boot.webclient;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.StateScope;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32's soak, not part of the default build (it holds tens of thousands of requests for 20 s of real time):
 * {@code ./mvnw -pl retry-after-spring-boot-starter test -Dtest=HeldRequestSoakTests -Dsoak=true [-Dsoak.requests=N]}.
 * N WebClient requests are held behind a closed gate with its rate on (as after a burst of 503s), the heap is read
 * after a full GC at 5, 10 and 15 s, then the gate opens and every request must end in a documented outcome, none on
 * the connection pool's pending-acquire queue. It prints what it measured; the note on issue 32 quotes it.
 */
@EnabledIfSystemProperty(named = "soak", matches = "true")
class HeldRequestSoakTests {

	@Test
	void requestsHeldBehindAClosedGateCostAFlatHeapAndAllEndInADocumentedOutcome() throws Exception {
		int requests = Integer.getInteger("soak.requests", 100_000);
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> response.status(200).sendString(Mono.just("ok")))
			.bindNow();
		try {
			RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
				.pacing(PacingSettings.builder().maxQueued(requests).build())
				.deadline(Duration.ofMinutes(5))
				.build();
			BudgetSettings roomy = new BudgetSettings(1_000_000, 0.2, 1_000);
			TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().global(roomy).providerDefaults(roomy).build();
			RetryAfterProviders providers = new RetryAfterProviders(
					List.of(new ProviderSettings("default", List.of(), policy, roomy, false, 0,
							ProviderSettings.DEFAULT_MAX_DRAIN_BYTES, StateScope.PROVIDER)),
					(settings) -> RetryEngine.builder()
						.policy(settings.policy())
						.budget(budget)
						.ticker(Ticker.system())
						.wallClock(InstantSource.system())
						.random(() -> 0.5)
						.build());
			RetryAfterOperations operations = new RetryAfterOperations(providers, "soak");
			ProviderGate gate = providers.get("default").orElseThrow().engine().gate("default");
			long now = Ticker.system().read();
			gate.onThrottle(now, now);
			gate.closeUntil(now + Duration.ofSeconds(20).toNanos());
			WebClient client = WebClient.builder()
				.clientConnector(new ReactorClientHttpConnector(HttpClient.create()))
				.filter(new RetryAfterExchangeFilterFunction(operations, Ticker.system(), Schedulers.parallel()))
				.baseUrl("http://127.0.0.1:" + server.port())
				.build();
			MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
			long before = usedAfterGc(memory);
			Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
			CountDownLatch done = new CountDownLatch(requests);
			AtomicLong acquireFailures = new AtomicLong();
			for (int i = 0; i < requests; i++) {
				client.get()
					.uri("/held")
					.attributes(RetryAfterAttributes.onOutcome((outcome) -> outcomes
						.computeIfAbsent(outcome.outcome().name(), (k) -> new LongAdder())
						.increment()))
					.retrieve()
					.toBodilessEntity()
					.subscribe((ok) -> done.countDown(), (error) -> {
						if (String.valueOf(error.getMessage()).contains("Pending acquire queue")) {
							acquireFailures.incrementAndGet();
						}
						done.countDown();
					});
			}
			long[] heap = new long[3];
			for (int i = 0; i < 3; i++) {
				done.await(5, TimeUnit.SECONDS);
				heap[i] = usedAfterGc(memory);
				System.out.printf("soak: %,d held, queued %,d, at %d s heap %,d B (%,d B per held request)%n", requests,
						gate.queued(), 5 * (i + 1), heap[i], (heap[i] - before) / requests);
			}
			long released = System.nanoTime();
			assertThat(done.await(4, TimeUnit.MINUTES)).as("every request ended").isTrue();
			System.out.printf("soak: all ended %.1f s after the gate opened; outcomes %s; acquire-queue failures %d%n",
					(System.nanoTime() - released) / 1e9 - 5, outcomes, acquireFailures.get());
			assertThat(acquireFailures).hasValue(0);
			assertThat(Math.abs(heap[2] - heap[0])).as("flat in time").isLessThan((heap[0] - before) / 5);
			assertThat(outcomes.keySet()).allSatisfy((name) -> assertThat(Outcome.valueOf(name)).isNotNull());
		}
		finally {
			server.disposeNow();
		}
	}

	private static long usedAfterGc(MemoryMXBean memory) {
		System.gc();
		System.gc();
		return memory.getHeapMemoryUsage().getUsed();
	}

}
