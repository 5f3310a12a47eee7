package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * What a {@link FleetSimulation} runs: {@code clients} clients, each running one operation, against a provider. With
 * {@code isolated} every client has its own provider with its own outage (independent episodes, aligned on a common
 * start the way seed 000's harness measured them); otherwise the whole fleet shares one provider and one outage.
 * <p>
 * Immutable and thread-safe.
 *
 * @param name the workload's name, as the command line spells it
 * @param clients how many clients, one operation each
 * @param isolated whether each client has a provider of its own
 * @param provider how the provider behaves
 * @param client how the clients behave
 */
public record Workload(String name, int clients, boolean isolated, ProviderModel provider, ClientModel client) {

	/** The hint cap of seed 000's harness: no provider asks for more than 5 s. */
	public static final Duration SEED_HINT_CAP = Duration.ofSeconds(5);

	/**
	 * The OpenAI-style provider's windows in {@link #openAi}: 100 requests and 40,000 tokens a second, each request
	 * costing 500 tokens, so the token window admits 80 requests a window and is the scarcer.
	 */
	public static final RequestTokenWindows OPENAI_WINDOWS = new RequestTokenWindows(100, Duration.ofSeconds(1), 40_000,
			Duration.ofSeconds(1), 500);

	/**
	 * The sliding window of {@link #slidingWindow}: 5 requests in any second, every refusal a {@code 429} with
	 * {@code Retry-After: 2}.
	 */
	public static final SlidingWindow FIVE_A_SECOND = new SlidingWindow(5, Duration.ofSeconds(1), Duration.ofSeconds(2));

	/** The workloads by name, for {@link #named}: fixed, six entries. */
	private static final Map<String, IntFunction<Workload>> NAMED = Map.of("episodes", Workload::episodes, "shared",
			Workload::shared, "outage-rate-limit", Workload::outageThenRateLimit, "announced-quota",
			Workload::announcedQuota, "openai", Workload::openAi, "sliding-window", Workload::slidingWindow);

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param name the workload's name, as the command line spells it
	 * @param clients how many clients, one operation each
	 * @param isolated whether each client has a provider of its own
	 * @param provider how the provider behaves
	 * @param client how the clients behave
	 */
	public Workload {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(provider, "provider");
		Objects.requireNonNull(client, "client");
		if (clients < 1) {
			throw new IllegalArgumentException("clients must be at least 1 but was " + clients);
		}
	}

	/**
	 * Returns seed 000's "canonical workload" as independent episodes: each client meets its own outage, lasting
	 * 1 to 25 s uniformly, so that about 83% of them (the seed: 835 of 1,000) outlast the provider's 5 s hint cap.
	 * All episodes start at once, so equal hints land together, as they did in the seed's harness.
	 * @param clients the number of episodes (the seed's: 1,000)
	 * @return the workload
	 */
	public static Workload episodes(int clients) {
		return new Workload("episodes", clients, true,
				ProviderModel.outage(Duration.ofSeconds(1), Duration.ofSeconds(25), SEED_HINT_CAP),
				ClientModel.defaults());
	}

	/**
	 * Returns the production case the seed says its number understates: a fleet whose requests all reach one provider
	 * within the same 10 ms when a 20 s outage begins, so every client is told the same thing at the same time.
	 * @param clients the fleet's size
	 * @return the workload
	 */
	public static Workload shared(int clients) {
		return new Workload("shared", clients, false,
				ProviderModel.outage(Duration.ofSeconds(20), Duration.ofSeconds(20), SEED_HINT_CAP),
				ClientModel.defaults().withStartSpread(Duration.ofMillis(10)));
	}

	/**
	 * Returns an outage, then a rate limit: {@code clients} operations of one application started together, a 2 s outage
	 * answered with {@code 503} and {@code Retry-After: 2}, then a provider admitting 250 requests a second (burst 25)
	 * and answering {@code 429} with {@code Retry-After: 1} to the excess; 6 attempts and a 20 s deadline, clocks
	 * exact on the client (one application has one clock), latency 1 to 5 ms each way.
	 * @param clients the number of operations (docs/pacing.md measures 1,000)
	 * @return the workload
	 */
	public static Workload outageThenRateLimit(int clients) {
		ProviderModel provider = new ProviderModel(Duration.ofSeconds(2), Duration.ofSeconds(2), SEED_HINT_CAP,
				ProviderModel.HintForm.DELAY_SECONDS, Optional.of(new ProviderModel.RateLimit(250, 25)), Duration.ZERO);
		ClientModel client = new ClientModel(6, Duration.ofSeconds(20), Duration.ZERO,
				List.of(ClientModel.SkewBand.exactly(Duration.ZERO)), Duration.ofMillis(1), Duration.ofMillis(5));
		return new Workload("outage-rate-limit", clients, false, provider, client);
	}

	/**
	 * Returns an announced quota: {@code clients} operations of one application arriving uniformly at 500 a second
	 * (over 6 s for 3,000) at a provider with no outage that admits 250 requests a second (burst 25), answers
	 * {@code 429} with {@code Retry-After: 1} to the excess, and announces its quota on every answer
	 * ({@code RateLimit-Policy: "default";q=250;w=1}, {@code RateLimit: "default";r=…;t=…}); 6 attempts, a 20 s
	 * deadline, latency 1 to 5 ms each way. {@link #withProvider} with an unannounced rate limit gives the same
	 * provider keeping its quota to itself.
	 * @param clients the number of operations (docs/pacing.md measures 3,000)
	 * @return the workload
	 */
	public static Workload announcedQuota(int clients) {
		ProviderModel provider = new ProviderModel(Duration.ZERO, Duration.ZERO, SEED_HINT_CAP,
				ProviderModel.HintForm.DELAY_SECONDS, Optional.of(new ProviderModel.RateLimit(250, 25, true)),
				Duration.ZERO);
		ClientModel client = new ClientModel(6, Duration.ofSeconds(20), Duration.ofMillis(2L * clients),
				List.of(ClientModel.SkewBand.exactly(Duration.ZERO)), Duration.ofMillis(1), Duration.ofMillis(5));
		return new Workload("announced-quota", clients, false, provider, client);
	}

	/**
	 * Returns an OpenAI-style backlog: a backlog of {@code clients} operations of one application started together
	 * against an OpenAI-style provider with {@link #OPENAI_WINDOWS} (fixed one-second windows from the start), which
	 * sends {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}} with Go-duration resets on every answer and
	 * refuses with {@code 429}, {@code retry-after-ms} and {@code Retry-After}; the clients read the OpenAI fields
	 * ({@link ProviderModel#OPENAI_FIELDS}); 6 attempts, a 60 s deadline, latency 1 to 5 ms each way, one clock.
	 * @param clients the backlog (docs/simulation.md measures 1,000)
	 * @return the workload
	 */
	public static Workload openAi(int clients) {
		ClientModel client = new ClientModel(6, Duration.ofSeconds(60), Duration.ZERO,
				List.of(ClientModel.SkewBand.exactly(Duration.ZERO)), Duration.ofMillis(1), Duration.ofMillis(5));
		return new Workload("openai", clients, false, ProviderModel.openAi(OPENAI_WINDOWS, SEED_HINT_CAP), client);
	}

	/**
	 * Returns a model provider's windowed burst: {@code clients} calls of one application started together (the
	 * starter's defaults: 4 attempts, a 30 s deadline) against a provider that admits {@link #FIVE_A_SECOND} and
	 * refuses the rest with {@code 429} and {@code Retry-After: 2}, no field describing its window; the clients read
	 * the {@code openai} profile's fields, latency 1 to 5 ms each way, one clock. 50 calls need 10 windows: 10 s.
	 * @param clients the calls (the measure's: 50)
	 * @return the workload
	 */
	public static Workload slidingWindow(int clients) {
		ClientModel client = new ClientModel(4, Duration.ofSeconds(30), Duration.ZERO,
				List.of(ClientModel.SkewBand.exactly(Duration.ZERO)), Duration.ofMillis(1), Duration.ofMillis(5));
		return new Workload("sliding-window", clients, false, ProviderModel.slidingWindow(FIVE_A_SECOND), client);
	}

	/**
	 * Returns the named workload with the given number of clients.
	 * @param name {@code episodes}, {@code shared}, {@code outage-rate-limit}, {@code announced-quota},
	 * {@code openai} or {@code sliding-window}
	 * @param clients the number of clients
	 * @return the workload
	 * @throws IllegalArgumentException for any other name
	 */
	public static Workload named(String name, int clients) {
		IntFunction<Workload> workload = NAMED.get(name.toLowerCase(Locale.ROOT));
		if (workload == null) {
			throw new IllegalArgumentException(
					"workload must be episodes, shared, outage-rate-limit, announced-quota, openai or sliding-window, not \""
							+ name + "\"");
		}
		return workload.apply(clients);
	}

	/**
	 * Returns the names {@link #named} knows, in lower case as the command line spells them.
	 * @return {@code episodes}, {@code shared}, {@code outage-rate-limit}, {@code announced-quota}, {@code openai} and
	 * {@code sliding-window}
	 */
	public static Set<String> names() {
		return NAMED.keySet();
	}

	/**
	 * Returns a copy with another number of clients.
	 * @param count the number of clients
	 * @return a new workload
	 */
	public Workload withClients(int count) {
		return new Workload(this.name, count, this.isolated, this.provider, this.client);
	}

	/**
	 * Returns a copy with another provider.
	 * @param model the provider
	 * @return a new workload
	 */
	public Workload withProvider(ProviderModel model) {
		return new Workload(this.name, this.clients, this.isolated, model, this.client);
	}

	/**
	 * Returns a copy with other clients.
	 * @param model the clients
	 * @return a new workload
	 */
	public Workload withClient(ClientModel model) {
		return new Workload(this.name, this.clients, this.isolated, this.provider, model);
	}

	/**
	 * Returns one line describing the workload, for reports.
	 * @return the description
	 */
	public String describe() {
		ProviderModel p = this.provider;
		ClientModel c = this.client;
		String outage = p.outageMin().equals(p.outageMax()) ? "one " + seconds(p.outageMin()) + " outage"
				: "outages of " + seconds(p.outageMin()) + " to " + seconds(p.outageMax());
		if (p.slidingWindow().isPresent()) {
			SlidingWindow w = p.slidingWindow().get();
			return this.clients + " calls of one application started together against a provider admitting " + w.requests()
					+ " requests in any " + seconds(w.window()) + " (429 with Retry-After " + seconds(w.retryAfter())
					+ " to the rest, no field describing the window; bound " + seconds(w.bound(this.clients))
					+ "); clients: " + c.maxAttempts() + " attempts, " + seconds(c.deadline()) + " deadline, latency "
					+ c.latencyMin().toMillis() + "-" + c.latencyMax().toMillis() + " ms each way";
		}
		if (p.windows().isPresent()) {
			RequestTokenWindows w = p.windows().get();
			return "a backlog of " + this.clients + " requests started together against one OpenAI-style provider ("
					+ w.requests() + " requests a " + seconds(w.requestWindow()) + " window, " + w.tokens()
					+ " tokens a " + seconds(w.tokenWindow()) + " window, " + w.tokenCost()
					+ " tokens a request; 429 with retry-after-ms and Retry-After; bound " + seconds(w.bound(this.clients))
					+ "); clients: " + c.maxAttempts() + " attempts, " + seconds(c.deadline()) + " deadline, latency "
					+ c.latencyMin().toMillis() + "-" + c.latencyMax().toMillis() + " ms each way";
		}
		return this.clients + " clients, " + (this.isolated ? "each against its own provider (" + outage + ")"
				: "sharing one provider (" + outage + ")") + "; 503 with Retry-After as "
				+ ((p.hintForm() == ProviderModel.HintForm.HTTP_DATE) ? "an HTTP-date with Date" : "delay-seconds")
				+ ", capped at " + seconds(p.hintCap()) + p.rateLimit()
					.map(r -> ", then " + r.perSecond() + " req/s (burst " + r.burst() + ")"
							+ (r.announced() ? " announced in RateLimit fields" : ""))
					.orElse("")
				+ "; clients: " + c.maxAttempts() + " attempts, " + seconds(c.deadline()) + " deadline, started within "
				+ c.startSpread().toMillis() + " ms, latency " + c.latencyMin().toMillis() + "-" + c.latencyMax().toMillis()
				+ " ms each way, skewed clocks (up to days)";
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + " s"
				: String.format(Locale.ROOT, "%.3f s", duration.toMillis() / 1000.0);
	}

}
