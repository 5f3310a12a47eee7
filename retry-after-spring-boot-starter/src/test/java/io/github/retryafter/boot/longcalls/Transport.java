package io.github.retryafter.boot.longcalls;

import java.io.IOException;
import java.time.Duration;

import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;

/**
 * The three clients the starter retries under, on the real clock, each with a read timeout of its own of
 * {@link #CLIENT_READ_TIMEOUT}: a RestClient on the JDK's {@code HttpClient}, a WebClient on Reactor Netty, and an
 * {@code OkHttpClient.Builder} bean.
 */
enum Transport {

	REST_CLIENT {
		@Override
		String post(ApplicationContext context, String url, String body) {
			return context.getBean(RestClient.Builder.class).build().post().uri(url).body(body).retrieve()
				.body(String.class);
		}

		@Override
		void warmUp(ApplicationContext context, String url) {
			context.getBean(RestClient.Builder.class).build().get().uri(url)
				.attributes(RetryAfterAttributes.disabled())
				.retrieve()
				.toBodilessEntity();
		}
	},

	WEB_CLIENT {
		@Override
		String post(ApplicationContext context, String url, String body) {
			return context.getBean(WebClient.Builder.class).build().post().uri(url).bodyValue(body).retrieve()
				.bodyToMono(String.class)
				.block(Duration.ofSeconds(10));
		}

		@Override
		void warmUp(ApplicationContext context, String url) {
			context.getBean(WebClient.Builder.class).build().get().uri(url)
				.attributes(RetryAfterAttributes.disabled())
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(10));
		}
	},

	OK_HTTP {
		@Override
		String post(ApplicationContext context, String url, String body) throws IOException {
			OkHttpClient client = context.getBean(OkHttpClient.Builder.class).build();
			Request request = new Request.Builder().url(url)
				.post(RequestBody.create(body, MediaType.get("application/json")))
				.build();
			try (Response response = client.newCall(request).execute()) {
				if (!response.isSuccessful()) {
					throw new IOException("status " + response.code());
				}
				return response.body().string();
			}
		}

		@Override
		void warmUp(ApplicationContext context, String url) throws IOException {
			OkHttpClient client = context.getBean(OkHttpClient.Builder.class).build();
			client.newCall(new Request.Builder().url(url).build()).execute().close();
		}
	};

	/** The client's own read timeout, far above what the tests' server takes. */
	static final Duration CLIENT_READ_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * Sends a POST and reads the whole body as a string.
	 * @param context the application
	 * @param url where to
	 * @param body the request body
	 * @return the response body
	 * @throws Exception whatever the client throws
	 */
	abstract String post(ApplicationContext context, String url, String body) throws Exception;

	/**
	 * Sends one GET the starter leaves alone (OkHttp's is quick to start and goes through it), so that what a test
	 * times next is not a cold client loading its classes and resolving the host (seconds for Reactor Netty).
	 * @param context the application
	 * @param url where to; it must answer at once
	 * @throws Exception whatever the client throws
	 */
	abstract void warmUp(ApplicationContext context, String url) throws Exception;

	/** An application with the starter under all three clients, each given its own read timeout. */
	static ApplicationContextRunner application() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
					RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
					RetryAfterOkHttpAutoConfiguration.class, HttpClientAutoConfiguration.class,
					ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
					RestClientAutoConfiguration.class, WebClientAutoConfiguration.class))
			.withBean(OkHttpClient.Builder.class,
					() -> new OkHttpClient.Builder().readTimeout(CLIENT_READ_TIMEOUT))
			.withPropertyValues("spring.http.clients.imperative.factory=jdk",
					"spring.http.clients.read-timeout=" + CLIENT_READ_TIMEOUT.toMillis() + "ms");
	}

}
