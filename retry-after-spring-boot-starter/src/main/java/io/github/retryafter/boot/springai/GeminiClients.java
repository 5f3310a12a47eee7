package io.github.retryafter.boot.springai;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import com.google.genai.Client;
import com.google.genai.types.ClientOptions;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import okhttp3.Dispatcher;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;

import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;

/**
 * Puts a Google GenAI {@link Client} (the {@code com.google.genai} SDK Spring AI's Gemini models send through) under
 * the starter, as its one retry layer: every request of the client goes to the provider {@value #PROVIDER} whatever
 * its base URL, through the starter's interceptors on the SDK's own OkHttp client, and the SDK's own retry is off
 * ({@link #SDK_RETRIES_OFF}: one attempt and no status it retries, since its loop otherwise sleeps after its last
 * attempt too). The starter builds Spring AI's {@code Client} this way; an application that builds its own passes its
 * builder through {@link #apply(Client.Builder)}.
 * <p>
 * The starter is looked up at a client's first request ({@link RetryAfterOkHttp#deferred}), not when it is built:
 * Spring AI builds its chat model while the application's configuration is still being parsed. Thread-safe.
 */
public final class GeminiClients {

	/** The provider a Gemini client's requests belong to. */
	public static final String PROVIDER = "gemini";

	/** The SDK's retry options that leave one layer: one attempt, and no status the SDK retries or sleeps after. */
	public static final HttpRetryOptions SDK_RETRIES_OFF = HttpRetryOptions.builder()
		.attempts(1)
		.httpStatusCodes(List.of())
		.build();

	private final List<Interceptor> interceptors;

	private final ModelClients clients;

	/**
	 * Creates the support over the starter's OkHttp interceptors, found at the first request.
	 * @param okHttp where the starter's interceptors are found (a bean lookup), called at the first request
	 * @param clients where each client built is recorded, for the endpoint and the startup line; may be {@code null}
	 */
	public GeminiClients(Supplier<RetryAfterOkHttp> okHttp, ModelClients clients) {
		this.interceptors = RetryAfterOkHttp.deferred(PROVIDER, Objects.requireNonNull(okHttp, "okHttp"));
		this.clients = clients;
		if (clients != null) {
			clients.present(ModelVendor.GEMINI);
		}
	}

	/**
	 * Sets {@code builder}'s HTTP and client options to {@link #httpOptions(HttpOptions)} and
	 * {@link #clientOptions(HttpOptions, ClientOptions)} of none: call it before setting any options of your own, or
	 * pass yours through those two methods.
	 * @param builder the SDK client's builder
	 * @return {@code builder}
	 */
	public Client.Builder apply(Client.Builder builder) {
		HttpOptions httpOptions = httpOptions(null);
		return builder.httpOptions(httpOptions).clientOptions(clientOptions(httpOptions, null));
	}

	/**
	 * Returns {@code options} with the SDK's retries off ({@link #SDK_RETRIES_OFF}), everything else as given.
	 * @param options the application's HTTP options, or {@code null} for none
	 * @return the options to build the client with
	 */
	public HttpOptions httpOptions(HttpOptions options) {
		HttpOptions.Builder builder = (options != null) ? options.toBuilder() : HttpOptions.builder();
		return builder.retryOptions(SDK_RETRIES_OFF).build();
	}

	/**
	 * Returns {@code options} with an OkHttp client the SDK sends through, the starter's interceptors first. The
	 * SDK applies none of its own OkHttp settings to a custom client, so they are applied here as the SDK would: no
	 * connect, read or write timeout, the call timeout of {@code httpOptions.timeout()}, the dispatcher's
	 * connection limits. The application's own {@code customHttpClient}, if any, is the base instead.
	 * @param httpOptions the HTTP options the client is built with, or {@code null}
	 * @param options the application's client options, or {@code null} for none
	 * @return the options to build the client with
	 * @throws IllegalArgumentException if {@code options} set proxy options, which the SDK ignores beside a custom
	 * client: set the proxy on an OkHttp client of your own and pass it as {@code customHttpClient}
	 */
	public ClientOptions clientOptions(HttpOptions httpOptions, ClientOptions options) {
		if (options != null && options.proxyOptions().isPresent() && options.customHttpClient().isEmpty()) {
			throw new IllegalArgumentException("ClientOptions.proxyOptions is ignored by the SDK beside a custom HTTP"
					+ " client; set the proxy on an OkHttpClient of your own and pass it as customHttpClient");
		}
		OkHttpClient.Builder http = (options != null && options.customHttpClient().isPresent())
				? options.customHttpClient().get().newBuilder() : sdkDefaults(httpOptions, options);
		http.interceptors().addAll(0, this.interceptors);
		if (this.clients != null) {
			this.clients.wrapped(ModelVendor.GEMINI);
		}
		ClientOptions.Builder builder = (options != null) ? options.toBuilder() : ClientOptions.builder();
		return builder.customHttpClient(http.build()).build();
	}

	/** The OkHttp settings the SDK gives its own client: no socket timeouts, the call timeout, connection limits. */
	private static OkHttpClient.Builder sdkDefaults(HttpOptions httpOptions, ClientOptions options) {
		OkHttpClient.Builder builder = new OkHttpClient.Builder().connectTimeout(Duration.ZERO)
			.readTimeout(Duration.ZERO)
			.writeTimeout(Duration.ZERO);
		if (httpOptions != null) {
			httpOptions.timeout().ifPresent((millis) -> builder.callTimeout(Duration.ofMillis(millis)));
		}
		if (options != null && (options.maxConnections().isPresent() || options.maxConnectionsPerHost().isPresent())) {
			Dispatcher dispatcher = new Dispatcher();
			options.maxConnections().ifPresent(dispatcher::setMaxRequests);
			options.maxConnectionsPerHost().ifPresent(dispatcher::setMaxRequestsPerHost);
			builder.dispatcher(dispatcher);
		}
		return builder;
	}

}
