package io.github.retryafter.boot.fleet.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

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
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

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
 * A fleet sharing one {@code redis-server} does as well as one instance (issue 17): application contexts with the
 * starter and its defaults (the retry budget's 20 tokens per provider included), sharing one key prefix, send
 * operations dealt round-robin, all started together (after as many to a healthy provider, so the fleet has been
 * serving), to a loopback provider that is down for its outage
 * ({@code 503 Retry-After}) and then admits 400 requests a second with a burst of 40 ({@code 429 Retry-After: 1}
 * beyond that), judged on its own clock. Asserted: every operation succeeds but at most 0.5%, no request arrives
 * before the instant a refusal of the same operation named, at most 2.2 attempts per operation. Reported (printed
 * and written to {@code target/fleet-pacing-N.txt}): the completion percentiles beside the bound that honours every
 * hint (nobody succeeds before the first hint instant at or after the recovery; from then on the provider admits its
 * burst and its rate), and how fast the first refusal's cooldown stopped the fleet's first attempts.
 * <p>
 * The default build runs one, four and sixteen instances on 1,000 operations behind a 2 s outage
 * ({@code Retry-After: 1}); {@code -Dfleet.instances=16 -Dfleet.operations=2000 -Dfleet.outage=3000
 * -Dfleet.outage-hint=2} runs the issue's own workload on another fleet (in place of the four), and
 * {@code -Dfleet.refusal-delay=300} has the provider answer each outage {@code 503} 300 ms late, so every first attempt
 * of the burst reaches it before any gate can close (issue 31's unlucky runs, made certain).
 */
class FleetPacingTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private static final double RATE = 400;

	private static final int BURST = 40;

	private final String prefix = "pacing-" + fleets.incrementAndGet();

	private final int operations = Integer.getInteger("fleet.operations", 1000);

	private final long outageMillis = Long.getLong("fleet.outage", 2000);

	private final int outageHint = Integer.getInteger("fleet.outage-hint", 1);

	private final RateLimitedProvider provider = new RateLimitedProvider(this.outageMillis, this.outageHint, RATE, BURST,
			1)
		.refusingSlowly(Duration.ofMillis(Long.getLong("fleet.refusal-delay", 0)));

	private final ApplicationContextRunner instance = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterWebClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.store=redis", "retry.after.fleet.key-prefix=" + this.prefix,
				"retry.after.providers.pacing.hosts=127.0.0.1", "retry.after.fleet.command-timeout=1s",
				"retry.after.max-attempts=6", "retry.after.deadline=30s");

	private final ConnectionProvider connections = ConnectionProvider.builder("fleet-pacing")
		.maxConnections(500)
		.pendingAcquireMaxCount(-1)
		.build();

	@AfterEach
	void stop() {
		this.provider.close();
		this.connections.dispose();
	}

	@Test
	void oneInstanceDrainsTheBacklogAtTheProvidersRate() throws IOException {
		runFleet(1);
	}

	@Test
	void fourInstancesSharingTheStoreDoAsWellAsOne() throws IOException {
		runFleet(Integer.getInteger("fleet.instances", 4));
	}

	@Test
	void sixteenInstancesSharingTheStoreDoAsWellAsOne() throws IOException {
		// at sixteen, an instance's share of the default budget is 1.25 tokens: most of the time the tokens its
		// retries need are in flight or pooled at the other instances
		runFleet(16);
	}

	@Test
	void aHealthyProviderCostsNoRedisRoundTripPerRequest() {
		// one sync a second, so what the instance sends on its own while the requests below run stays small
		this.instance.withPropertyValues("retry.after.fleet.flush-interval=1s").run((context) -> {
			List<WebClient> clients = List.of(context.getBean(WebClient.Builder.class).build());
			warmUp(clients);
			try (RateLimitedProvider healthy = new RateLimitedProvider(0, 1e9, 2000, 1)) {
				long before = commandsProcessed();
				long started = System.nanoTime();
				List<Integer> statuses = Flux.range(0, 2000)
					.flatMap((i) -> clients.get(0)
						.get()
						.uri(healthy.uri("/items/" + i))
						.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value())),
							64)
					.collectList()
					.block(Duration.ofSeconds(30));
				long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
				long during = commandsProcessed() - before - 1;
				assertThat(statuses).hasSize(2000).containsOnly(200);
				assertThat(healthy.requests()).as("requests the provider saw").isGreaterThanOrEqualTo(2000);
				// successes deposit locally and reach Redis with the next sync; the gate's success path is local too.
				// What the instance sends on its own: up to about 40 commands a sync (its heartbeat, the fleet's
				// cooldowns, probes and budget, a key check each), one sync a second here
				long background = 45 * (elapsedMillis / 1000 + 2);
				assertThat(during).as("Redis commands during 2,000 successful requests, in %d ms", elapsedMillis)
					.isLessThanOrEqualTo(background)
					.isLessThan(2000 / 4);
			}
		});
	}

	private static long commandsProcessed() throws IOException {
		return redis.command("INFO", "stats")
			.lines()
			.filter((line) -> line.startsWith("total_commands_processed:"))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
			.findFirst()
			.orElseThrow();
	}

	private void runFleet(int instances) throws IOException {
		Map<String, Integer> outcomes = new ConcurrentHashMap<>();
		List<String> reasons = new CopyOnWriteArrayList<>();
		List<Integer> statuses = new ArrayList<>();
		List<String> fallbacks = new ArrayList<>();
		AtomicInteger subscribed = new AtomicInteger();
		Sends sends = new Sends();
		withInstances(instances, new ArrayList<>(), (contexts) -> {
			// every operation in flight at once needs a connection or a place in the queue for one: the shared
			// default pool (500 connections, 1,000 waiting) refused part of a slow warm-up at sixteen instances
			List<WebClient> clients = contexts.stream()
				.map((context) -> context.getBean(WebClient.Builder.class)
					.clientConnector(new ReactorClientHttpConnector(HttpClient.create(this.connections)))
					.filter(sends)
					.build())
				.toList();
			warmUp(clients);
			subscribed.set((int) contexts.stream()
				.filter((context) -> context.getBean(RedisFleetStore.class).subscribed())
				.count());
			statuses.addAll(Flux.range(0, this.operations)
				.flatMap((i) -> clients.get(i % instances)
					.get()
					.uri(this.provider.uri("/items/" + i))
					.header(RateLimitedProvider.OPERATION, "op-" + i)
					.attributes(RetryAfterAttributes.onOutcome((outcome) -> count(outcome, outcomes, reasons)))
					.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
					.onErrorResume((ex) -> Mono.just(-1)), this.operations)
				.collectList()
				.block(Duration.ofSeconds(60)));
			// a budget that ran dry on one instance alone is most often that instance's fallback: say so
			contexts.stream()
				.map((context) -> context.getBean(RedisFleet.class).fleetStatus())
				.filter((status) -> status.fallbacks() > 0 || status.keyFallbacks() > 0)
				.forEach((status) -> fallbacks.add(status.toString()));
		});
		List<Long> done = new ArrayList<>(this.provider.completionNanos());
		done.sort(null);
		double successRate = (double) this.provider.successes() / this.operations;
		double attemptsPerOperation = (double) this.provider.requests() / this.operations;
		String report = String.format(Locale.ROOT,
				"fleet of %d on redis: %d operations, %.1f%% success, outcomes %s, %.2f attempts per operation, %d "
						+ "early; done p50 %.2f s (bound %.2f s, %.2fx), p99 %.2f s (bound %.2f s, %.2fx)%n%s%n",
				instances, this.operations, 100 * successRate, new TreeMap<>(outcomes), attemptsPerOperation,
				this.provider.earlyArrivals(), seconds(percentile(done, 0.50)), bound(0.50), seconds(percentile(done, 0.50)) / bound(0.50),
				seconds(percentile(done, 0.99)), bound(0.99), seconds(percentile(done, 0.99)) / bound(0.99),
				String.join(System.lineSeparator(), reasons))
				+ firstAttempts() + "; " + subscribed + " of " + instances + " instances subscribed to the announcements"
				+ System.lineSeparator() + sends.report(Duration.ofSeconds(this.outageHint)) + System.lineSeparator()
				+ "instances that decided locally: " + (fallbacks.isEmpty() ? "none" : fallbacks) + System.lineSeparator()
				+ "what the server answered, per 100 ms after its first request:" + System.lineSeparator()
				+ this.provider.timeline(100);
		System.out.print(report);
		Files.writeString(Path.of("target", "fleet-pacing-" + instances + ".txt"), report);
		assertThat(statuses).hasSize(this.operations);
		assertThat(this.provider.earlyArrivals()).as("requests before the server's instant").isZero();
		assertThat(successRate).as("operations that succeeded").isGreaterThanOrEqualTo(0.995);
		assertThat(attemptsPerOperation).as("attempts the server saw per operation").isLessThanOrEqualTo(2.2);
	}

	/**
	 * How fast the fleet stopped sending new work once the provider refused (issue 31): the time from the first
	 * refusal to the last first attempt the provider saw, and to the last one that arrived while that refusal's
	 * {@code Retry-After} still stood (a fleet whose every gate had learned the cooldown would send none then; those
	 * after it are first attempts the gates held and released).
	 */
	private String firstAttempts() {
		long refused = this.provider.firstRefusalNanos();
		long named = this.provider.firstRefusalNamedNanos();
		List<Long> firsts = this.provider.firstAttemptNanos();
		if (refused < 0 || firsts.isEmpty()) {
			return "first attempts: " + firsts.size() + ", no refusal";
		}
		long last = firsts.stream().mapToLong(Long::longValue).max().orElseThrow();
		List<Long> during = firsts.stream().filter((at) -> at > refused && at < named).sorted().toList();
		return String.format(Locale.ROOT,
				"first 503 -> last first attempt: %.1f ms; while its Retry-After stood: %d first attempts, the last "
						+ "%.1f ms after it (%d operations)",
				(last - refused) / 1e6, during.size(),
				during.isEmpty() ? 0.0 : (during.get(during.size() - 1) - refused) / 1e6, firsts.size());
	}

	/**
	 * The same number of operations against a provider that admits them all, first, so the fleet measured is one that
	 * has been serving (its code compiled, its pools warm). Cold, a context's event loop spent the first 300 ms
	 * writing its share of the burst before it read the first 503: 961 of 1,000 first attempts met the outage (about
	 * 100 when warm), every operation needed a retry, and the default budget (20 tokens, 1 a second, deposits lost
	 * to a full bucket) ran dry after 25 refused retries, as it promises to; that measured the JIT, not the fleet.
	 */
	private void warmUp(List<WebClient> clients) {
		try (RateLimitedProvider healthy = new RateLimitedProvider(0, 1e9, this.operations, 1)) {
			List<Integer> statuses = Flux.range(0, this.operations)
				.flatMap((i) -> clients.get(i % clients.size())
					.get()
					.uri(healthy.uri("/items/" + i))
					.header(RateLimitedProvider.OPERATION, "warm-up-" + i)
					.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value())),
						this.operations)
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(statuses).hasSize(this.operations).containsOnly(200);
		}
	}

	/**
	 * The completion time of the operation at quantile {@code q} if every operation honoured every hint and the
	 * provider admitted each as soon as it could: the first hint instant at or after the recovery, then the burst at
	 * once and the rest at the provider's rate.
	 */
	private double bound(double q) {
		double back = Math.ceil(this.outageMillis / 1000.0 / this.outageHint) * this.outageHint;
		double rank = Math.ceil(q * this.operations);
		return back + Math.max(0, rank - BURST) / RATE;
	}

	private static double percentile(List<Long> sorted, double q) {
		if (sorted.isEmpty()) {
			return Double.NaN;
		}
		int index = (int) Math.min(sorted.size() - 1, Math.max(0, Math.ceil(q * sorted.size()) - 1));
		return sorted.get(index);
	}

	private static double seconds(double nanos) {
		return nanos / 1e9;
	}

	private void withInstances(int remaining, List<AssertableApplicationContext> started,
			Consumer<List<AssertableApplicationContext>> body) {
		if (remaining == 0) {
			body.accept(List.copyOf(started));
			return;
		}
		this.instance.run((context) -> {
			started.add(context);
			withInstances(remaining - 1, started, body);
		});
	}

	private static void count(RetryOutcome outcome, Map<String, Integer> outcomes, List<String> reasons) {
		outcomes.merge(outcome.outcome().name(), 1, Integer::sum);
		if (outcome.outcome() != Outcome.SUCCESS && reasons.size() < 5) {
			reasons.add(outcome.attempts() + " attempts: " + outcome.reason());
		}
	}

	/**
	 * When the instances sent each operation's first attempt and when the first of them received a refusal, on the one
	 * clock of this JVM: a filter inside the retry filter (added to the builder after it), so it sees each attempt as
	 * the gate lets it go. A first attempt sent after the fleet's first refusal arrived is one a cooldown that had
	 * reached every instance would have held.
	 */
	private static final class Sends implements ExchangeFilterFunction {

		// per operation id of the measured run, when its first attempt left; at most one per operation
		private final Map<String, Long> firstSent = new ConcurrentHashMap<>();

		private final java.util.concurrent.atomic.AtomicLong firstRefused = new java.util.concurrent.atomic.AtomicLong();

		private volatile boolean refused;

		@Override
		public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
			String operation = request.headers().getFirst(RateLimitedProvider.OPERATION);
			if (operation == null || !operation.startsWith("op-")) {
				return next.exchange(request);
			}
			this.firstSent.putIfAbsent(operation, System.nanoTime());
			return next.exchange(request).doOnNext((response) -> {
				if (response.statusCode().value() >= 400 && !this.refused) {
					this.firstRefused.compareAndSet(0, System.nanoTime());
					this.refused = true;
				}
			});
		}

		/** The first attempts sent after the first refusal arrived, and those of them sent within {@code hint}. */
		String report(Duration hint) {
			if (!this.refused) {
				return "first attempts sent: " + this.firstSent.size() + ", no refusal received";
			}
			long refusedAt = this.firstRefused.get();
			List<Long> after = this.firstSent.values()
				.stream()
				.map((sent) -> sent - refusedAt)
				.filter((delay) -> delay > 0)
				.sorted()
				.toList();
			long within = after.stream().filter((delay) -> delay < hint.toNanos()).count();
			return String.format(Locale.ROOT,
					"first attempts sent after the fleet received its first refusal: %d within its %d s hint, the last "
							+ "of those %.1f ms after it (%d in all, the last %.0f ms after it, released by the gates)",
					within, hint.toSeconds(), within == 0 ? 0.0 : after.get((int) within - 1) / 1e6, after.size(),
					after.isEmpty() ? 0.0 : after.get(after.size() - 1) / 1e6);
		}

	}

}
