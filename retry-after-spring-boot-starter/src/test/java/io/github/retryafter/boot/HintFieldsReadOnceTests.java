package io.github.retryafter.boot;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.support.ClientResponseWrapper;
import reactor.core.scheduler.Schedulers;

import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;
import io.github.retryafter.boot.actuate.RetryAfterActivity;
import io.github.retryafter.boot.restclient.RetryAfterClientHttpRequestInterceptor;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.pacing.PacingSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28: a response is read once. Through a whole retried operation of each Spring adapter (pacing and the
 * provider's rate-limit fields on, the endpoint's listener attached), every hint field of the retried response is read
 * from its headers once: the gate's feed, the operation's planner, the rate-limit reader and the endpoint share one
 * reading. The headers are counted below the adapter, where it reads them.
 */
class HintFieldsReadOnceTests {

	/** Every field a decision reads: the hint, its frame, its age, and the three rate-limit families. */
	static final List<String> HINT_FIELDS = List.of("Retry-After", "Date", "Age", "RateLimit", "RateLimit-Policy",
			"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Limit", "X-RateLimit-Remaining",
			"X-RateLimit-Reset");

	private static final RetryPolicy PACED = RetryPolicy.DEFAULTS.toBuilder().pacing(PacingSettings.DEFAULTS).build();

	private final FlakyProvider provider = new FlakyProvider();

	private final RetryAfterActivity endpoint = new RetryAfterActivity(InstantSource.system(), Ticker.system());

	private final List<CountingHeaders> responses = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopServer() {
		this.provider.close();
	}

	@Test
	void restClientReadsEachHintFieldOfARetriedResponseOnce() {
		this.provider.script("/limited", Reply.status(503).retryAfterDate(Duration.ZERO), Reply.ok());
		ClientHttpRequestInterceptor counting = (request, body, execution) -> {
			ClientHttpResponse response = execution.execute(request, body);
			CountingHeaders headers = counted(response.getHeaders());
			return new CountedResponse(response, headers);
		};
		// the JDK's HttpClient: below an interceptor, HttpURLConnection was seen to resend the 503 itself
		RestClient client = RestClient.builder()
			.requestFactory(new JdkClientHttpRequestFactory())
			.baseUrl(this.provider.baseUrl())
			.requestInterceptor(new RetryAfterClientHttpRequestInterceptor(operations(), Ticker.system(),
					Waiter.system()))
			.requestInterceptor(counting)
			.build();

		assertThat(client.get().uri("/limited").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);

		assertReadOnce();
	}

	@Test
	void webClientReadsEachHintFieldOfARetriedResponseOnce() {
		this.provider.script("/limited", Reply.status(503).retryAfterDate(Duration.ZERO), Reply.ok());
		ExchangeFilterFunction counting = (request, next) -> next.exchange(request).map(this::counted);
		WebClient client = WebClient.builder()
			.baseUrl(this.provider.baseUrl())
			.filter(new RetryAfterExchangeFilterFunction(operations(), Ticker.system(), Schedulers.parallel()))
			.filter(counting)
			.build();

		assertThat(client.get().uri("/limited").retrieve().toBodilessEntity().block(Duration.ofSeconds(10))
			.getStatusCode()
			.value()).isEqualTo(200);

		assertReadOnce();
	}

	private void assertReadOnce() {
		assertThat(this.provider.requests("/limited")).isEqualTo(2);
		assertThat(this.endpoint.snapshot("default").lastRetryAfter()).isPresent();
		Map<String, Integer> retried = this.responses.get(0).reads();
		assertThat(retried).as("reads of the retried response %s", retried)
			.containsOnlyKeys(HINT_FIELDS)
			.allSatisfy((field, reads) -> assertThat(reads).as(field).isOne());
		Map<String, Integer> last = this.responses.get(1).reads();
		assertThat(last).as("reads of the successful response %s", last)
			.allSatisfy((field, reads) -> assertThat(reads).as(field).isOne());
	}

	private RetryAfterOperations operations() {
		BudgetSettings roomy = new BudgetSettings(1_000_000, 0.2, 1_000);
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().global(roomy).providerDefaults(roomy).build();
		RetryAfterProviders providers = new RetryAfterProviders(
				List.of(new ProviderSettings("default", List.of(), PACED, roomy, false, 0)),
				(settings) -> RetryEngine.builder()
					.policy(settings.policy())
					.budget(budget)
					.random(() -> 0.5)
					.listener(this.endpoint)
					.build());
		return new RetryAfterOperations(providers, "test");
	}

	/** The response's headers, counted, with an age and the X-RateLimit trio (its reset in epoch seconds, so Date). */
	private CountingHeaders counted(HttpHeaders received) {
		CountingHeaders headers = new CountingHeaders();
		headers.addAll(received);
		if (this.responses.isEmpty()) {
			headers.set("Age", "0");
			headers.set("X-RateLimit-Limit", "100");
			headers.set("X-RateLimit-Remaining", "50");
			headers.set("X-RateLimit-Reset", String.valueOf(Instant.now().getEpochSecond() + 60));
		}
		this.responses.add(headers);
		return headers;
	}

	private ClientResponse counted(ClientResponse response) {
		CountingHeaders headers = counted(response.headers().asHttpHeaders());
		return new ClientResponseWrapper(response) {

			@Override
			public Headers headers() {
				return new HeadersWrapper(response.headers()) {

					@Override
					public HttpHeaders asHttpHeaders() {
						return headers;
					}

				};
			}

		};
	}

	/** Counts the reads of each hint field by the name as spelled above; the adapters read fields with getOrEmpty. */
	static final class CountingHeaders extends HttpHeaders {

		private final Map<String, Integer> counts = new TreeMap<>();

		@Override
		public List<String> getOrEmpty(String name) {
			String key = HINT_FIELDS.stream().filter(name::equalsIgnoreCase).findFirst().orElse(name);
			synchronized (this.counts) {
				this.counts.merge(key, 1, Integer::sum);
			}
			return super.getOrEmpty(name);
		}

		Map<String, Integer> reads() {
			synchronized (this.counts) {
				return new TreeMap<>(this.counts);
			}
		}

	}

	/** A response whose headers are the counted ones. */
	private record CountedResponse(ClientHttpResponse response, HttpHeaders headers) implements ClientHttpResponse {

		@Override
		public HttpStatusCode getStatusCode() throws IOException {
			return this.response.getStatusCode();
		}

		@Override
		public String getStatusText() throws IOException {
			return this.response.getStatusText();
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() throws IOException {
			return this.response.getBody();
		}

		@Override
		public void close() {
			this.response.close();
		}

	}

}
