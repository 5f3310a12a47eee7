package io.github.retryafter.boot.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.Waiter;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.restclient.RetryAfterClientHttpRequestInterceptor;
import io.github.retryafter.boot.webclient.RetryAfterExchangeFilterFunction;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * What the starter adds to a request that succeeds at once, over a stub exchange (no network): the WebClient filter
 * against calling the exchange function directly, and the RestClient interceptor against calling the execution
 * directly. Each pair runs in the same JMH run, so the difference is the starter's cost per request. The starter is
 * wired the way its auto-configuration wires it: a default provider with the default policy, a token-bucket budget,
 * the system clocks, the thread-local random source, no listener. Run with {@code java -jar
 * retry-after-spring-boot-starter/target/retry-after-spring-boot-starter-benchmarks.jar StarterOverheadBenchmark -prof gc}
 * to see bytes per request.
 * <p>
 * JMH creates and confines the state; benchmarks are not meant to be called from other code.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StarterOverheadBenchmark {

	private static final byte[] EMPTY = new byte[0];

	private static final URI URL = URI.create("http://api.example.com/items/42");

	private final RetryAfterOperations operations = operations(RetryAfterObservations.NOOP);

	/** The starter as an application with an ObservationRegistry but no tracer or meter handler sees it. */
	private final RetryAfterOperations observedOperations = operations(
			new RetryAfterObservations(ObservationRegistry.create(), null, null));

	private final RetryAfterExchangeFilterFunction observedFilter = new RetryAfterExchangeFilterFunction(
			this.observedOperations, Ticker.system(), Schedulers.parallel());

	private final RetryAfterClientHttpRequestInterceptor observedInterceptor = new RetryAfterClientHttpRequestInterceptor(
			this.observedOperations, Ticker.system(), Waiter.system());

	private final RetryAfterExchangeFilterFunction filter = new RetryAfterExchangeFilterFunction(this.operations,
			Ticker.system(), Schedulers.parallel());

	private final RetryAfterClientHttpRequestInterceptor interceptor = new RetryAfterClientHttpRequestInterceptor(
			this.operations, Ticker.system(), Waiter.system());

	private final ClientRequest clientRequest = ClientRequest.create(HttpMethod.GET, URL).build();

	/**
	 * A new 200 per subscription, as a connector's exchange makes it. Not a {@code Mono.just} or
	 * {@code Mono.fromSupplier}: their {@code block()} returns the value without subscribing, which no real
	 * exchange does, and would leave out of the baseline the subscriber every real call makes.
	 */
	private final ExchangeFunction exchange = (request) -> StubExchange.INSTANCE;

	private final StubRequest httpRequest = new StubRequest();

	/** A new 200 per call, as a real execution would make. */
	private final ClientHttpRequestExecution execution = (request, body) -> new StubResponse();

	private static RetryAfterOperations operations(RetryAfterObservations observations) {
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().build();
		RetryAfterProviders providers = new RetryAfterProviders(
				List.of(new ProviderSettings("default", List.of(), RetryPolicy.DEFAULTS,
						BudgetSettings.PROVIDER_DEFAULTS, true, 64 * 1024)),
				(settings) -> RetryEngine.builder()
					.policy(settings.policy())
					.budget(budget)
					.ticker(Ticker.system())
					.wallClock(InstantSource.system())
					.random(RandomSource.threadLocal())
					.build());
		return new RetryAfterOperations(providers, "bench-instance", observations);
	}

	/**
	 * The WebClient exchange without the starter.
	 * @return the response
	 */
	@Benchmark
	public ClientResponse webClientWithout() {
		return this.exchange.exchange(this.clientRequest).block();
	}

	/**
	 * The WebClient exchange through the starter's filter.
	 * @return the response
	 */
	@Benchmark
	public ClientResponse webClientWithStarter() {
		return this.filter.filter(this.clientRequest, this.exchange).block();
	}

	/**
	 * The WebClient exchange through the starter's filter, with an observation registry that has no handler.
	 * @return the response
	 */
	@Benchmark
	public ClientResponse webClientWithStarterAndRegistry() {
		return this.observedFilter.filter(this.clientRequest, this.exchange).block();
	}

	/**
	 * The RestClient execution through the starter's interceptor, with an observation registry that has no handler.
	 * @return the response
	 * @throws IOException never, the execution is a stub
	 */
	@Benchmark
	public ClientHttpResponse restClientWithStarterAndRegistry() throws IOException {
		// closed, as RestClient closes every response: the interceptor's attempt guard ends with it
		ClientHttpResponse response = this.observedInterceptor.intercept(this.httpRequest, EMPTY, this.execution);
		response.close();
		return response;
	}

	/**
	 * The RestClient execution without the starter.
	 * @return the response
	 * @throws IOException never, the execution is a stub
	 */
	@Benchmark
	public ClientHttpResponse restClientWithout() throws IOException {
		// closed, as RestClient closes every response: the interceptor's attempt guard ends with it
		ClientHttpResponse response = this.execution.execute(this.httpRequest, EMPTY);
		response.close();
		return response;
	}

	/**
	 * The RestClient execution through the starter's interceptor.
	 * @return the response
	 * @throws IOException never, the execution is a stub
	 */
	@Benchmark
	public ClientHttpResponse restClientWithStarter() throws IOException {
		// closed, as RestClient closes every response: the interceptor's attempt guard ends with it
		ClientHttpResponse response = this.interceptor.intercept(this.httpRequest, EMPTY, this.execution);
		response.close();
		return response;
	}

	/** Emits a new 200 to each subscriber, synchronously, as a connector would once the server answered. */
	private static final class StubExchange extends Mono<ClientResponse> {

		static final StubExchange INSTANCE = new StubExchange();

		@Override
		public void subscribe(CoreSubscriber<? super ClientResponse> actual) {
			actual.onSubscribe(Operators.scalarSubscription(actual, ClientResponse.create(HttpStatus.OK).build()));
		}

	}

	/** A GET with no headers, reused across calls. */
	private static final class StubRequest implements HttpRequest {

		private final HttpHeaders headers = new HttpHeaders();

		private final Map<String, Object> attributes = new ConcurrentHashMap<>();

		@Override
		public HttpMethod getMethod() {
			return HttpMethod.GET;
		}

		@Override
		public URI getURI() {
			return URL;
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public Map<String, Object> getAttributes() {
			return this.attributes;
		}

	}

	/** A 200 with no headers and an empty body. */
	private static final class StubResponse implements ClientHttpResponse {

		private final HttpHeaders headers = new HttpHeaders();

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatus.OK;
		}

		@Override
		public String getStatusText() {
			return "OK";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(EMPTY);
		}

		@Override
		public void close() {
		}

	}

}
