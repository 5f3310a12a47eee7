package io.github.retryafter.boot.restclient;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequestInitializer;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.observation.ClientRequestObservationConvention;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.util.MultiValueMap;
import org.springframework.web.client.ApiVersionInserter;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.util.UriBuilderFactory;

/**
 * A {@link RestClient.Builder} under which a call retry-after gives up on ends with exactly what the client throws
 * without retry-after, with the hand-over attached: every default status handler added to it (by a customizer, by the
 * application, by a library such as Spring AI, also on a {@link #clone()} or after {@link RestClient#mutate()}) still
 * decides, and what it throws for a response retry-after ended an operation on carries the operation's
 * {@link io.github.retryafter.boot.RetryAfterOutcomeException} as a suppressed exception. {@link #build()} adds
 * {@link OutcomeStatusHandler} after every handler of the builder, so it acts only where none of them matched, and
 * throws what Spring's default handling throws, with the hand-over attached. A request's own {@code onStatus}
 * handlers run first and decide as always, but what they throw carries no hand-over (a {@code RestClient} gives
 * them to no builder). Everything else is the wrapped builder's. Not thread-safe, like any builder.
 */
public final class HandOverRestClientBuilder implements RestClient.Builder {

	private static final OutcomeStatusHandler FALLBACK = new OutcomeStatusHandler();

	private final RestClient.Builder builder;

	private HandOverRestClientBuilder(RestClient.Builder builder) {
		this.builder = builder;
	}

	/**
	 * Returns a builder that attaches the hand-over, over {@code builder}; {@code builder} itself when it is one.
	 * @param builder the builder to configure through it
	 * @return the builder that attaches
	 */
	public static RestClient.Builder of(RestClient.Builder builder) {
		Objects.requireNonNull(builder, "builder");
		return (builder instanceof HandOverRestClientBuilder) ? builder : new HandOverRestClientBuilder(builder);
	}

	@Override
	public RestClient.Builder defaultStatusHandler(Predicate<HttpStatusCode> statusPredicate,
			RestClient.ResponseSpec.ErrorHandler errorHandler) {
		this.builder.defaultStatusHandler(statusPredicate, HandOver.attaching(errorHandler));
		return this;
	}

	@Override
	public RestClient.Builder defaultStatusHandler(ResponseErrorHandler errorHandler) {
		this.builder.defaultStatusHandler(HandOver.attaching(errorHandler));
		return this;
	}

	@Override
	public RestClient.Builder apply(Consumer<RestClient.Builder> builderConsumer) {
		builderConsumer.accept(this);
		return this;
	}

	@Override
	public RestClient.Builder clone() {
		return new HandOverRestClientBuilder(this.builder.clone());
	}

	/**
	 * Builds the client with {@link OutcomeStatusHandler} after every status handler added so far, leaving this
	 * builder as it was, so that handlers added to it later still come before the fallback of the clients it builds.
	 */
	@Override
	public RestClient build() {
		RestClient.Builder configured = this.builder.clone();
		RestClient client = configured.defaultStatusHandler(FALLBACK).build();
		return new HandOverRestClient(client, this.builder.clone());
	}

	@Override
	public RestClient.Builder baseUrl(String baseUrl) {
		this.builder.baseUrl(baseUrl);
		return this;
	}

	@Override
	public RestClient.Builder baseUrl(URI baseUrl) {
		this.builder.baseUrl(baseUrl);
		return this;
	}

	@Override
	public RestClient.Builder defaultUriVariables(Map<String, ?> defaultUriVariables) {
		this.builder.defaultUriVariables(defaultUriVariables);
		return this;
	}

	@Override
	public RestClient.Builder uriBuilderFactory(UriBuilderFactory uriBuilderFactory) {
		this.builder.uriBuilderFactory(uriBuilderFactory);
		return this;
	}

	@Override
	public RestClient.Builder defaultHeader(String header, String... values) {
		this.builder.defaultHeader(header, values);
		return this;
	}

	@Override
	public RestClient.Builder defaultHeaders(Consumer<HttpHeaders> headersConsumer) {
		this.builder.defaultHeaders(headersConsumer);
		return this;
	}

	@Override
	public RestClient.Builder defaultCookie(String cookie, String... values) {
		this.builder.defaultCookie(cookie, values);
		return this;
	}

	@Override
	public RestClient.Builder defaultCookies(Consumer<MultiValueMap<String, String>> cookiesConsumer) {
		this.builder.defaultCookies(cookiesConsumer);
		return this;
	}

	@Override
	public RestClient.Builder defaultApiVersion(Object version) {
		this.builder.defaultApiVersion(version);
		return this;
	}

	@Override
	public RestClient.Builder apiVersionInserter(ApiVersionInserter apiVersionInserter) {
		this.builder.apiVersionInserter(apiVersionInserter);
		return this;
	}

	@Override
	public RestClient.Builder defaultRequest(Consumer<RestClient.RequestHeadersSpec<?>> defaultRequest) {
		this.builder.defaultRequest(defaultRequest);
		return this;
	}

	@Override
	public RestClient.Builder requestInterceptor(ClientHttpRequestInterceptor interceptor) {
		this.builder.requestInterceptor(interceptor);
		return this;
	}

	@Override
	public RestClient.Builder requestInterceptors(Consumer<List<ClientHttpRequestInterceptor>> interceptorsConsumer) {
		this.builder.requestInterceptors(interceptorsConsumer);
		return this;
	}

	@Override
	public RestClient.Builder bufferContent(BiPredicate<URI, HttpMethod> predicate) {
		this.builder.bufferContent(predicate);
		return this;
	}

	@Override
	public RestClient.Builder requestInitializer(ClientHttpRequestInitializer initializer) {
		this.builder.requestInitializer(initializer);
		return this;
	}

	@Override
	public RestClient.Builder requestInitializers(Consumer<List<ClientHttpRequestInitializer>> initializersConsumer) {
		this.builder.requestInitializers(initializersConsumer);
		return this;
	}

	@Override
	public RestClient.Builder requestFactory(ClientHttpRequestFactory requestFactory) {
		this.builder.requestFactory(requestFactory);
		return this;
	}

	@Override
	public RestClient.Builder configureMessageConverters(Consumer<HttpMessageConverters.ClientBuilder> configurer) {
		this.builder.configureMessageConverters(configurer);
		return this;
	}

	@Override
	public RestClient.Builder messageConverters(Iterable<HttpMessageConverter<?>> messageConverters) {
		this.builder.messageConverters(messageConverters);
		return this;
	}

	@Override
	public RestClient.Builder messageConverters(Consumer<List<HttpMessageConverter<?>>> configurer) {
		this.builder.messageConverters(configurer);
		return this;
	}

	@Override
	public RestClient.Builder observationRegistry(ObservationRegistry observationRegistry) {
		this.builder.observationRegistry(observationRegistry);
		return this;
	}

	@Override
	public RestClient.Builder observationConvention(ClientRequestObservationConvention observationConvention) {
		this.builder.observationConvention(observationConvention);
		return this;
	}

	/**
	 * A client built under the hand-over: it sends as the client Spring built, and {@link #mutate()} gives a builder
	 * that attaches the hand-over too, without the fallback of this client (each build adds its own). Thread-safe.
	 */
	private record HandOverRestClient(RestClient client, RestClient.Builder source) implements RestClient {

		@Override
		public RequestHeadersUriSpec<?> get() {
			return this.client.get();
		}

		@Override
		public RequestHeadersUriSpec<?> head() {
			return this.client.head();
		}

		@Override
		public RequestBodyUriSpec post() {
			return this.client.post();
		}

		@Override
		public RequestBodyUriSpec put() {
			return this.client.put();
		}

		@Override
		public RequestBodyUriSpec patch() {
			return this.client.patch();
		}

		@Override
		public RequestHeadersUriSpec<?> delete() {
			return this.client.delete();
		}

		@Override
		public RequestHeadersUriSpec<?> options() {
			return this.client.options();
		}

		@Override
		public RequestBodyUriSpec method(HttpMethod method) {
			return this.client.method(method);
		}

		@Override
		public RestClient.Builder mutate() {
			return new HandOverRestClientBuilder(this.source.clone());
		}

		@Override
		public String toString() {
			return this.client.toString();
		}

	}

}
