package io.github.retryafter.okhttp;

import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.request.ProviderRoute;
import io.github.retryafter.request.ProviderRoutes;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code of docs/okhttp.md, which the starter's {@code DocsSnippetsTests} cannot compile (its classpath has no
 * OkHttp): kept here, line for line, so the page does not drift from the API.
 */
class DocsSnippetTests {

	@Test
	void oneBuilderCall() {
		RetryEngine engine = RetryEngine.builder().policy(RetryPolicy.DEFAULTS).build();
		OkHttpClient client = new OkHttpClient.Builder()
			.addInterceptor(RetryAfterInterceptor.of(engine))
			.build();
		assertThat(client.interceptors()).singleElement().isInstanceOf(RetryAfterInterceptor.class);
	}

	@Test
	void routesByHost() {
		RetryEngine engine = RetryEngine.builder().policy(RetryPolicy.DEFAULTS).build();
		RetryEngine openAiEngine = RetryEngine.builder().policy(RetryPolicy.DEFAULTS).build();
		ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
				ProviderRoute.of("default", engine),
				ProviderRoute.of("openai", openAiEngine, "api.openai.com").withIdempotencyKeys(true));
		OkHttpClient client = new OkHttpClient.Builder()
			.addInterceptor(RetryAfterInterceptor.builder().routes(routes).maxReplayBody(256 * 1024).build())
			.build();
		assertThat(client.interceptors()).singleElement().isInstanceOf(RetryAfterInterceptor.class);
	}

}
