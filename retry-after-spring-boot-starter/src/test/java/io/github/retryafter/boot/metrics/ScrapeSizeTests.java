package io.github.retryafter.boot.metrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterMetricsAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.VendorServer;
import io.github.retryafter.boot.testing.VendorServer.Answer;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Prometheus scrape after traffic on four providers, with Boot's observations on, holds at most 40
 * {@code retry_after_*} series per provider: a series for an operation's outcome, a hint's error, a wait's cause
 * other than {@code retry-after} and {@code backoff}, or a unit's window exists once that happened on that provider.
 * With every outcome and error registered from startup the first traffic made 64 a provider, most of them zeros that
 * never moved (16 hint-refusal codes alone); 32 or 33 now. The second traffic is the four providers of a typical app with
 * their rate-limit windows (GitHub, Anthropic, Stripe, a weather API): 44 a provider with the skew magnitudes'
 * summary and the attempts' long-task timer, 38 without them.
 */
class ScrapeSizeTests {

	private static final List<String> PROVIDERS = List.of("openai", "anthropic", "payments", "search");

	private static final int MOST_LINES_PER_PROVIDER = 40;

	/** The providers of the windowed traffic and their profiles, in order. */
	private static final Map<String, String> WINDOWED = new LinkedHashMap<>();

	static {
		WINDOWED.put("github", "github");
		WINDOWED.put("anthropic", "anthropic");
		WINDOWED.put("stripe", "stripe");
		WINDOWED.put("weather", "standard");
	}

	private final FlakyProvider provider = new FlakyProvider();

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterMetricsAutoConfiguration.class, RetryAfterRestClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestClientObservationAutoConfiguration.class,
				ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class))
		.withBean("prometheus", PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
		.withBean(Ticker.class, () -> this.clock)
		.withBean(Sleeper.class, () -> this.clock::sleep)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues(PROVIDERS.stream()
			.map((name) -> "retry.after.providers." + name + ".hosts=" + name + ".example")
			.toArray(String[]::new));

	private final VendorServer vendors = new VendorServer();

	@AfterEach
	void stopServer() {
		this.provider.close();
		this.vendors.close();
	}

	@Test
	void aScrapeAfterTrafficOnFourProvidersHoldsAtMostFortySeriesPerProvider() {
		this.provider.script("/garbled", Reply.status(503).retryAfter("soon"), Reply.ok());
		this.contextRunner.run((context) -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.provider.baseUrl()).build();
			for (String name : PROVIDERS) {
				for (String path : List.of("/ok", "/hinted", "/limited", "/ok")) {
					// each provider's operations: a success, a Retry-After obeyed, a 429 retried twice (hinted, then
					// after a backoff), another success
					this.provider.script(path, replies(path));
					assertThat(client.get()
						.uri(path)
						.attributes(RetryAfterAttributes.provider(name))
						.retrieve()
						.toBodilessEntity()
						.getStatusCode()
						.value()).isEqualTo(200);
				}
			}
			// one unusable Retry-After, on one provider
			assertThat(client.get()
				.uri("/garbled")
				.attributes(RetryAfterAttributes.provider("payments"))
				.retrieve()
				.toBodilessEntity()
				.getStatusCode()
				.value()).isEqualTo(200);
			String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
			Map<String, Long> lines = linesPerProvider(scrape);
			assertThat(lines).as("retry_after_* lines per provider").containsKeys(PROVIDERS.toArray(String[]::new));
			assertThat(lines).as("retry_after_* lines per provider: %s", lines)
				.allSatisfy((name, count) -> assertThat(count).as(name).isLessThanOrEqualTo(MOST_LINES_PER_PROVIDER));
			assertThat(scrape.lines().filter((line) -> line.startsWith("retry_after_hint_refusals_total{")))
				.as("hint refusals: only the code that happened, where it happened")
				.containsExactly("retry_after_hint_refusals_total{error=\"INVALID_DELAY\",provider=\"payments\"} 1.0");
		});
	}

	@Test
	void aScrapeAfterTrafficWithRateLimitWindowsHoldsAtMostFortySeriesPerProvider() {
		this.contextRunner.withPropertyValues(WINDOWED.keySet()
			.stream()
			.flatMap((name) -> Stream.of("retry.after.providers." + name + ".hosts=" + name + ".example",
					"retry.after.providers." + name + ".profile=" + WINDOWED.get(name)))
			.toArray(String[]::new)).run((context) -> {
				RestClient client = context.getBean(RestClient.Builder.class).build();
				for (String name : WINDOWED.keySet()) {
					for (String kind : List.of("ok", "refused", "failed", "ok")) {
						String path = "/" + name + "/" + kind;
						this.vendors.script(path, windowed(name, kind));
						assertThat(client.get()
							.uri(this.vendors.url(path))
							.attributes(RetryAfterAttributes.provider(name))
							.retrieve()
							.toBodilessEntity()
							.getStatusCode()
							.value()).as(path).isEqualTo(200);
					}
				}
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				Map<String, Long> lines = linesPerProvider(scrape);
				assertThat(lines).as("retry_after_* lines per provider")
					.containsKeys(WINDOWED.keySet().toArray(String[]::new));
				assertThat(lines).as("retry_after_* lines per provider: %s", lines)
					.allSatisfy((name, count) -> assertThat(count).as(name).isLessThanOrEqualTo(MOST_LINES_PER_PROVIDER));
				assertThat(scrape).as("the windows, the standard families' limit included, and the waits they caused")
					.contains("retry_after_window_limit{provider=\"github\",unit=\"requests\"} 100.0",
							"retry_after_window_limit{provider=\"weather\",unit=\"requests\"} 100.0",
							"retry_after_window_remaining{provider=\"anthropic\",unit=\"tokens\"} 10000.0",
							"retry_after_wait_seconds_count{cause=\"window-reset\",provider=\"github\"} 1",
							"retry_after_wait_seconds_count{cause=\"retry-after\",provider=\"stripe\"} 1")
					.doesNotContain("retry_after_window_remaining{provider=\"stripe\"",
							"retry_after_clock_skew_magnitude", "retry_after_attempt_active");
			});
	}

	/**
	 * One operation's answers on a provider: {@code ok} a success; {@code refused} the provider's refusal (GitHub's
	 * {@code 403} with its window spent, Anthropic's {@code 429} with its request window spent and a
	 * {@code retry-after}, Stripe's {@code 429 Retry-After: 1}, a weather API's {@code 429} with its window spent) then
	 * a success; {@code failed} a {@code 503} (Anthropic's {@code 529}) without a hint, retried after a backoff, then
	 * a success. Every answer carries the provider's window fields, as these APIs send them.
	 */
	private static Answer[] windowed(String provider, String kind) {
		return switch (kind) {
			case "refused" -> new Answer[] { switch (provider) {
				case "github" -> answer(provider, 403, 0, 2);
				case "anthropic" -> answer(provider, 429, 0, 2, "retry-after", "2");
				case "stripe" -> answer(provider, 429, 0, 0, "Retry-After", "1");
				default -> answer(provider, 429, 0, 2);
			}, answer(provider, 200, 99, 60) };
			case "failed" -> new Answer[] { answer(provider, provider.equals("anthropic") ? 529 : 503, 98, 59),
					answer(provider, 200, 97, 58) };
			default -> new Answer[] { answer(provider, 200, 100, 60) };
		};
	}

	/** An answer with the provider's window fields: {@code remaining} of 100 requests, resetting in {@code reset} s. */
	private static Answer answer(String provider, int status, int remaining, int reset, String... more) {
		List<String> fields = new ArrayList<>(List.of(more));
		switch (provider) {
			case "anthropic" -> {
				String at = Instant.now().plusSeconds(reset + 1).toString();
				fields.addAll(List.of("anthropic-ratelimit-requests-limit", "100",
						"anthropic-ratelimit-requests-remaining", String.valueOf(remaining),
						"anthropic-ratelimit-requests-reset", at, "anthropic-ratelimit-tokens-limit", "10000",
						"anthropic-ratelimit-tokens-remaining", String.valueOf(remaining * 100),
						"anthropic-ratelimit-tokens-reset", at));
			}
			case "github" -> fields.addAll(List.of("X-RateLimit-Limit", "100", "X-RateLimit-Remaining",
					String.valueOf(remaining), "X-RateLimit-Reset",
					String.valueOf(Instant.now().getEpochSecond() + reset + 1)));
			case "weather" -> fields.addAll(List.of("X-RateLimit-Limit", "100", "X-RateLimit-Remaining",
					String.valueOf(remaining), "X-RateLimit-Reset", String.valueOf(reset)));
			default -> {
				// Stripe sends no rate-limit fields
			}
		}
		return Answer.of(status, fields.toArray(String[]::new));
	}

	private static Reply[] replies(String path) {
		return switch (path) {
			case "/hinted" -> new Reply[] { Reply.status(503).retryAfter("1"), Reply.ok() };
			case "/limited" -> new Reply[] { Reply.status(429).retryAfter("2"), Reply.status(429), Reply.ok() };
			default -> new Reply[] { Reply.ok() };
		};
	}

	/** Counts the scrape's {@code retry_after_*} series by their {@code provider} tag. */
	private static Map<String, Long> linesPerProvider(String scrape) {
		Map<String, Long> lines = new TreeMap<>();
		scrape.lines().filter((line) -> line.startsWith("retry_after_")).forEach((line) -> {
			int at = line.indexOf("provider=\"");
			if (at >= 0) {
				int from = at + "provider=\"".length();
				lines.merge(line.substring(from, line.indexOf('"', from)), 1L, Long::sum);
			}
		});
		return lines;
	}

}
