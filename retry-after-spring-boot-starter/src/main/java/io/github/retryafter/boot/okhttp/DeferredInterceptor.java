package io.github.retryafter.boot.okhttp;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Supplier;

import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * The starter's retry interceptor, looked up at a client's first request rather than when the client is built: for a
 * client Spring builds while configuration is still being parsed (Spring AI builds its Google GenAI chat model inside
 * a condition), when the starter's providers do not exist yet and must not be created half-configured. The lookup
 * checks that the provider is configured, once. Thread-safe.
 */
final class DeferredInterceptor implements Interceptor {

	private final String provider;

	private final Supplier<RetryAfterOkHttp> okHttp;

	private volatile Interceptor resolved;

	DeferredInterceptor(String provider, Supplier<RetryAfterOkHttp> okHttp) {
		this.provider = Objects.requireNonNull(provider, "provider");
		this.okHttp = Objects.requireNonNull(okHttp, "okHttp");
	}

	@Override
	public Response intercept(Chain chain) throws IOException {
		Interceptor interceptor = this.resolved;
		if (interceptor == null) {
			RetryAfterOkHttp found = Objects.requireNonNull(this.okHttp.get(), "no RetryAfterOkHttp to send through");
			// refuses a provider no configuration names, as an eager pin would
			found.interceptors(this.provider);
			interceptor = found.interceptor();
			this.resolved = interceptor;
		}
		return interceptor.intercept(chain);
	}

}
