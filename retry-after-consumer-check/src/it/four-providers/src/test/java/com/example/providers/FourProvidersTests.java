package com.example.providers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.example.providers.ApiMock.Gap;
import com.example.providers.ApiMock.Reply;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import io.github.retryafter.RandomSource;
import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The app with its four providers, each against a loopback mock of its API that refuses a call once, called at once:
 * <ul>
 * <li>{@code github} (the HTTP service group {@code repos}, profile {@code github}): {@code 403} with
 * {@code x-ratelimit-remaining: 0} and {@code x-ratelimit-reset} 2 s after its {@code Date}, no {@code Retry-After};
 * then {@code 200}. The wait is the gate's hold until the reset: {@code window-reset}.</li>
 * <li>{@code stripe} (a {@code RestClient} by host): {@code 503} with {@code Retry-After: 1}, then {@code 200}:
 * {@code retry-after}.</li>
 * <li>{@code anthropic} (Spring AI's chat model), two calls. The first is refused {@code 429} with
 * {@code retry-after: 1} and a requests window with nothing left until 2 s after its {@code Date} (the
 * {@code retry-after} names the next request's slot, the reset the whole window's): the window closes the
 * provider's gate for 2 s, and the refused call's retry goes at its {@code retry-after}, as the one probe the gate
 * lets through at the earliest instant a refusal named: {@code retry-after}. The second is refused {@code 429} with
 * its windows alone, the tokens one exhausted until 2 s after its {@code Date}: {@code window-reset}.</li>
 * <li>{@code weather} (an OkHttp client): {@code 503} with no hint, then {@code 200}: a 1 s backoff
 * ({@code backoff.delay=2s}, the app's random draw fixed at 0.5), {@code backoff}.</li>
 * </ul>
 * The waits are real (2 s at most each; the providers run in parallel). A gap is measured by the API from its answer
 * to one attempt to the arrival of the next (its arrival-to-arrival gap also holds the API's own time on the first
 * attempt, some 40 ms on a cold JVM). The tests then read what an operator reads:
 * the {@code retry.after.wait} timer, the window gauges, {@code /actuator/retryafter},
 * {@code /actuator/retryafterevents} and {@code /actuator/prometheus}, over HTTP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class FourProvidersTests {

	private static final List<String> PROVIDERS = List.of("github", "stripe", "anthropic", "weather");

	/** Where {@code /actuator/retryafter} tells a provider's wiring (its profile, groups and clients). */
	private static final String WIRING = "$.providers.%s.wiring";

	private final HttpClient http = HttpClient.newHttpClient();

	private ApiMock github;

	private ApiMock stripe;

	private ApiMock anthropic;

	private ApiMock weather;

	private ApiMock warmUp;

	private ConfigurableApplicationContext context;

	private String log;

	@BeforeAll
	void startTheAppAndCallEachProvider(CapturedOutput output) throws Exception {
		this.github = new ApiMock(FourProvidersTests::github);
		this.stripe = new ApiMock(FourProvidersTests::stripe);
		this.anthropic = new ApiMock(FourProvidersTests::anthropic);
		this.weather = new ApiMock(FourProvidersTests::weather);
		this.warmUp = new ApiMock((call, before, now) -> (before == 0)
				? new Reply(429, Map.of("Retry-After", "0"), "{}") : new Reply(200, Map.of(), "{}"));
		this.context = new SpringApplicationBuilder(FourProvidersApplication.class, FixedDraw.class).run(
				"--server.port=0", "--server.address=127.0.0.1",
				"--github.base-url=http://127.0.0.1:" + this.github.port(),
				"--stripe.base-url=http://localhost:" + this.stripe.port(), "--stripe.host=localhost",
				"--spring.ai.anthropic.base-url=http://127.0.0.1:" + this.anthropic.port(),
				"--logging.level.io.github.retryafter=debug");
		warmUp();
		ExecutorService callers = Executors.newFixedThreadPool(PROVIDERS.size());
		try {
			List<Future<String>> answers = List.of(
					callers.submit(() -> this.context.getBean(GitHubApi.class).repository("octo", "hello")),
					callers.submit(() -> this.context.getBean("stripeClient", RestClient.class)
						.get()
						.uri("/v1/charges/ch_1")
						.retrieve()
						.body(String.class)),
					callers.submit(() -> {
						AnthropicChatModel model = this.context.getBean(AnthropicChatModel.class);
						return model.call("call-1") + " / " + model.call("call-2");
					}), callers.submit(this::weatherForecast));
			for (Future<String> answer : answers) {
				assertThat(answer.get(30, TimeUnit.SECONDS)).isNotBlank();
			}
		}
		finally {
			callers.shutdownNow();
		}
		this.log = output.getAll();
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		for (ApiMock mock : new ApiMock[] { this.github, this.stripe, this.anthropic, this.weather, this.warmUp }) {
			if (mock != null) {
				mock.close();
			}
		}
	}

	@Test
	void eachProvidersRecordedWaitsCoverAtLeast90PercentOfTheGapsItsApiSawEachWithItsCause() {
		assertThat(this.github.seen()).hasSize(2);
		assertThat(this.stripe.seen()).hasSize(2);
		assertThat(this.anthropic.seen()).hasSize(4);
		assertThat(this.weather.seen()).hasSize(2);
		Map<String, ApiMock> mocks = Map.of("github", this.github, "stripe", this.stripe, "anthropic", this.anthropic,
				"weather", this.weather);
		MeterRegistry registry = this.context.getBean(MeterRegistry.class);
		for (String provider : PROVIDERS) {
			List<Gap> gaps = mocks.get(provider).gaps();
			long afterAnswers = gaps.stream().mapToLong(Gap::afterAnswerNanos).sum();
			long betweenArrivals = gaps.stream().mapToLong(Gap::betweenArrivalsNanos).sum();
			long recorded = (long) waits(registry, provider).stream()
				.mapToDouble((timer) -> timer.totalTime(TimeUnit.NANOSECONDS))
				.sum();
			System.out.printf("waits of %-9s: its API saw %s ms from an answer to the next attempt (%s ms between"
					+ " arrivals), retry.after.wait recorded %d ms: %.1f%% (%.1f%% of the arrivals' gaps), by cause %s%n",
					provider, gaps.stream().map((gap) -> gap.afterAnswerNanos() / 1_000_000).toList(),
					gaps.stream().map((gap) -> gap.betweenArrivalsNanos() / 1_000_000).toList(), recorded / 1_000_000,
					100.0 * recorded / afterAnswers, 100.0 * recorded / betweenArrivals,
					countsByCause(registry, provider));
			assertThat(recorded).as("%s: waits recorded (ns) against the gaps its API saw after its answers", provider)
				.isGreaterThanOrEqualTo((long) (0.9 * afterAnswers))
				.as("%s: waits recorded (ns) against the gaps between the arrivals", provider)
				.isLessThanOrEqualTo(betweenArrivals);
		}
		assertThat(countsByCause(registry, "github")).containsExactly(Map.entry("window-reset", 1L));
		assertThat(countsByCause(registry, "stripe")).containsExactly(Map.entry("retry-after", 1L));
		assertThat(countsByCause(registry, "anthropic")).containsExactly(Map.entry("retry-after", 1L),
				Map.entry("window-reset", 1L));
		assertThat(countsByCause(registry, "weather")).containsExactly(Map.entry("backoff", 1L));
		assertThat(this.log)
			.containsPattern("provider 'github' .* attempt 2 sent after waiting \\d+ ms \\(window-reset\\): "
					+ "\\d+ ms backoff, then \\d+ ms window-reset")
			.as("the first Anthropic call: its retry-after let it probe before the window's reset")
			.containsPattern("provider 'anthropic' .* attempt 2 sent after waiting \\d+ ms \\(retry-after\\)")
			.as("the second: its tokens window alone")
			.containsPattern("provider 'anthropic' .* attempt 2 sent after waiting \\d+ ms \\(window-reset\\): "
					+ "\\d+ ms backoff, then \\d+ ms window-reset");
	}

	@Test
	void theGateClosingIsAnEventForEachProviderWhoseApiNamedTheWaitAndNotForTheBackoff() throws Exception {
		String events = get("/actuator/retryafterevents");
		List<Map<String, Object>> cooldowns = JsonPath.read(events, "$.events[?(@.type == 'COOLDOWN')]");
		Map<String, List<String>> fields = new TreeMap<>();
		cooldowns.stream()
			.filter((event) -> PROVIDERS.contains(event.get("provider")))
			.forEach((event) -> fields.computeIfAbsent((String) event.get("provider"), (name) -> new ArrayList<>())
			.add(event.get("outcome") + " "
					+ ((event.get("asked") instanceof Map<?, ?> asked) ? asked.get("field") : "(nothing asked)")));
		System.out.println("COOLDOWN events of the four providers (outcome, field): " + fields);
		assertThat(fields).containsOnlyKeys("github", "stripe", "anthropic");
		assertThat(fields.get("github")).singleElement().asString().isEqualToIgnoringCase("STATUS_403 X-RateLimit-Reset");
		assertThat(fields.get("stripe")).singleElement().asString().isEqualToIgnoringCase("STATUS_503 Retry-After");
		assertThat(fields.get("anthropic")).hasSize(2).allSatisfy((event) -> assertThat(event).startsWith("STATUS_429 "));
		assertThat(fields.get("anthropic")).anySatisfy((event) -> assertThat(event)
			.isEqualToIgnoringCase("STATUS_429 anthropic-ratelimit-tokens-reset"));
	}

	@Test
	void theWindowGaugesAndTheEndpointShowTheLastWindowEachApiAnnounced() throws Exception {
		MeterRegistry registry = this.context.getBean(MeterRegistry.class);
		String endpoint = get("/actuator/retryafter");
		Map<String, String> anthropic = this.anthropic.lastSent();
		for (String unit : List.of("requests", "tokens")) {
			double remaining = Double.parseDouble(anthropic.get("anthropic-ratelimit-" + unit + "-remaining"));
			double limit = Double.parseDouble(anthropic.get("anthropic-ratelimit-" + unit + "-limit"));
			double reset = ApiMock.secondsAfterDate(anthropic,
					Instant.parse(anthropic.get("anthropic-ratelimit-" + unit + "-reset")).getEpochSecond());
			assertWindow(registry, endpoint, "anthropic", unit, remaining, limit, reset);
		}
		Map<String, String> github = this.github.lastSent();
		assertWindow(registry, endpoint, "github", "requests",
				Double.parseDouble(github.get("x-ratelimit-remaining")), Double.parseDouble(github.get("x-ratelimit-limit")),
				ApiMock.secondsAfterDate(github, Long.parseLong(github.get("x-ratelimit-reset"))));
		assertThat(registry.find("retry.after.window.remaining").tag("provider", "github").tag("unit", "tokens").gauge())
			.as("GitHub announced no token window").isNull();
		assertThat(registry.find("retry.after.window.remaining").tag("provider", "stripe").gauges())
			.as("Stripe's mock announced no window").isEmpty();
	}

	@Test
	void thePrometheusScrapeHoldsAtMostFortyRetryAfterLinesPerProvider() throws Exception {
		assertThat(scrapeLinesPerProvider()).containsKeys(PROVIDERS.toArray(String[]::new))
			.allSatisfy((provider, count) -> assertThat(count).as(provider).isLessThanOrEqualTo(40));
	}

	/** Counts the {@code retry_after_*} lines of {@code /actuator/prometheus} by their {@code provider} tag. */
	private Map<String, Long> scrapeLinesPerProvider() throws Exception {
		Map<String, Long> lines = new TreeMap<>();
		Map<String, Map<String, Long>> families = new TreeMap<>();
		get("/actuator/prometheus").lines().filter((line) -> line.startsWith("retry_after_")).forEach((line) -> {
			int at = line.indexOf("provider=\"");
			if (at >= 0) {
				int from = at + "provider=\"".length();
				String provider = line.substring(from, line.indexOf('"', from));
				lines.merge(provider, 1L, Long::sum);
				families.computeIfAbsent(provider, (name) -> new TreeMap<>())
					.merge(line.substring(0, line.indexOf('{')), 1L, Long::sum);
			}
		});
		System.out.println("retry_after_* lines per provider in /actuator/prometheus: " + lines);
		PROVIDERS.forEach((provider) -> System.out.println("  " + provider + " by family: " + families.get(provider)));
		return lines;
	}

	@Test
	void theStartupLogNamesEachProvidersProfileAndClients() {
		assertThat(this.log).contains("retry-after provider 'github': profile github")
			.containsPattern("retry-after provider 'github': .*HTTP service groups \\[repos\\]")
			.contains("retry-after provider 'stripe': profile stripe, hosts [localhost]")
			.containsPattern("retry-after provider 'anthropic': profile anthropic.*Spring AI's anthropic model")
			.contains("retry-after provider 'weather': profile standard");
	}

	/**
	 * What {@code /actuator/retryafter} says of each provider's wiring, in the shape being added beside the startup
	 * line ({@code providers.<name>.wiring.profile}, {@code .serviceGroups}, {@code .clients}); if it lands flat on
	 * the provider instead, {@link #WIRING} is the one place to change.
	 */
	@Test
	void theEndpointNamesEachProvidersProfileAndGroups() throws Exception {
		String endpoint = get("/actuator/retryafter");
		Map<String, String> profiles = Map.of("github", "github", "stripe", "stripe", "anthropic", "anthropic",
				"weather", "standard");
		for (String provider : PROVIDERS) {
			String wiring = String.format(WIRING, provider);
			assertThat((String) JsonPath.read(endpoint, wiring + ".profile")).as(provider).isEqualTo(profiles.get(provider));
			List<String> groups = JsonPath.read(endpoint, wiring + ".serviceGroups");
			if (provider.equals("github")) {
				assertThat(groups).as(provider).containsExactly("repos");
			}
			else {
				assertThat(groups).as(provider).isEmpty();
			}
		}
		List<String> clients = JsonPath.read(endpoint, String.format(WIRING, "anthropic") + ".clients");
		assertThat(clients).anySatisfy((client) -> assertThat(client).startsWith("Spring AI's anthropic model"));
	}

	private static void assertWindow(MeterRegistry registry, String endpoint, String provider, String unit,
			double remaining, double limit, double reset) {
		System.out.printf("window of %-9s %-8s: the API's last fields say remaining %s, limit %s, reset %s s;"
				+ " gauges %s, %s, %s%n", provider, unit, remaining, limit, reset,
				gauge(registry, "retry.after.window.remaining", provider, unit),
				gauge(registry, "retry.after.window.limit", provider, unit),
				gauge(registry, "retry.after.window.reset", provider, unit));
		assertThat(gauge(registry, "retry.after.window.remaining", provider, unit)).as("%s %s remaining", provider, unit)
			.isEqualTo(remaining);
		if (Double.isNaN(limit)) {
			assertThat(gauge(registry, "retry.after.window.limit", provider, unit)).as("%s %s limit", provider, unit)
				.isNaN();
		}
		else {
			assertThat(gauge(registry, "retry.after.window.limit", provider, unit)).as("%s %s limit", provider, unit)
				.isEqualTo(limit);
		}
		assertThat(gauge(registry, "retry.after.window.reset", provider, unit)).as("%s %s reset", provider, unit)
			.isCloseTo(reset, within(0.001));
		String window = "$.providers." + provider + ".windows." + unit;
		assertThat(((Number) JsonPath.read(endpoint, window + ".remaining")).doubleValue()).isEqualTo(remaining);
		if (Double.isNaN(limit)) {
			// a limit the profile does not keep: null in the endpoint's value, left out of its JSON
			Object json = JsonPath
				.using(com.jayway.jsonpath.Configuration.defaultConfiguration()
					.addOptions(Option.DEFAULT_PATH_LEAF_TO_NULL))
				.parse(endpoint)
				.read(window + ".limit");
			assertThat(json).isNull();
		}
		else {
			assertThat(((Number) JsonPath.read(endpoint, window + ".limit")).doubleValue()).isEqualTo(limit);
		}
		assertThat(((Number) JsonPath.read(endpoint, window + ".resetSeconds")).doubleValue()).isCloseTo(reset,
				within(0.001));
	}

	private static double gauge(MeterRegistry registry, String name, String provider, String unit) {
		Gauge gauge = registry.find(name).tag("provider", provider).tag("unit", unit).gauge();
		assertThat(gauge).as("%s{provider=%s,unit=%s}", name, provider, unit).isNotNull();
		return gauge.value();
	}

	private static List<Timer> waits(MeterRegistry registry, String provider) {
		return List.copyOf(registry.find("retry.after.wait").tag("provider", provider).timers());
	}

	/** The number of waits recorded per cause, causes with none left out. */
	private static Map<String, Long> countsByCause(MeterRegistry registry, String provider) {
		Map<String, Long> counts = new TreeMap<>();
		waits(registry, provider).stream()
			.filter((timer) -> timer.count() > 0)
			.forEach((timer) -> counts.put(timer.getId().getTag("cause"), timer.count()));
		return counts;
	}

	/**
	 * One retried call through a {@code RestClient} and one through OkHttp, on provider {@code default} (the warm-up
	 * API's host is no provider's), before the measured calls: a JVM's first retry loads classes for some 100 ms on a
	 * busy two-core machine, time the API sees between two attempts that is no wait.
	 */
	private void warmUp() throws IOException {
		String url = "http://127.0.0.1:" + this.warmUp.port();
		assertThat(this.context.getBean(RestClient.Builder.class).build().get().uri(url + "/rest").retrieve()
			.body(String.class)).isEqualTo("{}");
		OkHttpClient client = this.context.getBean(RetryAfterOkHttp.class).apply(new OkHttpClient.Builder()).build();
		try (Response response = client.newCall(new Request.Builder().url(url + "/okhttp").build()).execute()) {
			assertThat(response.code()).isEqualTo(200);
		}
		assertThat(this.warmUp.seen()).hasSize(4);
	}

	private String get(String path) throws IOException, InterruptedException {
		String port = this.context.getEnvironment().getProperty("local.server.port");
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path).isEqualTo(200);
		return response.body();
	}

	private String weatherForecast() throws IOException {
		OkHttpClient client = this.context.getBean("weatherClient", OkHttpClient.class);
		Request request = new Request.Builder().url("http://127.0.0.1:" + this.weather.port() + "/v1/forecast").build();
		try (Response response = client.newCall(request).execute()) {
			assertThat(response.code()).isEqualTo(200);
			return response.body().string();
		}
	}

	/** GitHub's primary rate limit: the hour's requests used up until 2 s after the refusal's Date. */
	private static Reply github(String call, int before, long now) {
		if (before == 0) {
			return new Reply(403,
					Map.of("x-ratelimit-limit", "60", "x-ratelimit-remaining", "0", "x-ratelimit-used", "60",
							"x-ratelimit-reset", Long.toString(now + 2), "x-ratelimit-resource", "core"),
					"{\"message\":\"API rate limit exceeded\",\"documentation_url\":\"https://docs.github.com/rest\"}");
		}
		return new Reply(200, Map.of("x-ratelimit-limit", "60", "x-ratelimit-remaining", "59", "x-ratelimit-used", "1",
				"x-ratelimit-reset", Long.toString(now + 3600), "x-ratelimit-resource", "core"),
				"{\"id\":1,\"full_name\":\"octo/hello\"}");
	}

	private static Reply stripe(String call, int before, long now) {
		if (before == 0) {
			return new Reply(503, Map.of("Retry-After", "1"),
					"{\"error\":{\"type\":\"api_error\",\"message\":\"temporarily unavailable\"}}");
		}
		return new Reply(200, Map.of(), "{\"id\":\"ch_1\",\"object\":\"charge\"}");
	}

	/**
	 * Anthropic's messages API: {@code call-1} refused with a {@code retry-after} and its requests window, the other
	 * refused with its windows alone, the tokens one exhausted; then answered, with both windows.
	 */
	private static Reply anthropic(String call, int before, long now) {
		boolean first = call.endsWith("call-1");
		if (before == 0) {
			return new Reply(429, first ? Map.of("retry-after", "1", "anthropic-ratelimit-requests-limit", "50",
					"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset",
					rfc3339(now + 2), "anthropic-ratelimit-tokens-limit", "80000",
					"anthropic-ratelimit-tokens-remaining", "79000", "anthropic-ratelimit-tokens-reset", rfc3339(now + 1))
					: Map.of("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "48",
							"anthropic-ratelimit-requests-reset", rfc3339(now + 1), "anthropic-ratelimit-tokens-limit",
							"80000", "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
							rfc3339(now + 2)),
					"{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited\"}}");
		}
		return new Reply(200, Map.of("anthropic-ratelimit-requests-limit", "50",
				"anthropic-ratelimit-requests-remaining", first ? "49" : "47", "anthropic-ratelimit-requests-reset",
				rfc3339(now + 1), "anthropic-ratelimit-tokens-limit", "80000", "anthropic-ratelimit-tokens-remaining",
				first ? "78000" : "60000", "anthropic-ratelimit-tokens-reset", rfc3339(now + 2), "request-id",
				"req_" + call.substring(call.indexOf("call-"))),
				"{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
						+ "\"content\":[{\"type\":\"text\",\"text\":\"answer\",\"citations\":null}],"
						+ "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"container\":null,\"usage\":{"
						+ "\"input_tokens\":3,\"output_tokens\":4,\"cache_creation_input_tokens\":null,"
						+ "\"cache_read_input_tokens\":null,\"cache_creation\":null,\"server_tool_use\":null,"
						+ "\"service_tier\":null}}");
	}

	private static String rfc3339(long epochSeconds) {
		return Instant.ofEpochSecond(epochSeconds).toString();
	}

	/** A weather API that is busy once and says nothing of when to come back. */
	private static Reply weather(String call, int before, long now) {
		return (before == 0) ? new Reply(503, Map.of(), "{\"error\":\"busy\"}")
				: new Reply(200, Map.of(), "{\"forecast\":\"sunny\"}");
	}

	/** The app's random draws fixed at 0.5, so its backoff and jitter are known: half their spread. */
	@Configuration(proxyBeanMethods = false)
	static class FixedDraw {

		@Bean
		RandomSource retryRandom() {
			return () -> 0.5;
		}

	}

}
