package io.github.retryafter.boot.okhttp;

import java.io.IOException;
import java.util.Optional;

import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

import io.github.retryafter.request.OperationOptions;

/**
 * Names one provider on every request that names none, so the retry interceptor after it routes the request there
 * whatever its host: the idempotency key and deadline a request's {@link OperationOptions} tag gives are kept.
 * Immutable and thread-safe.
 */
final class ProviderPin implements Interceptor {

	private final String provider;

	private final OperationOptions pinned;

	ProviderPin(String provider) {
		this.provider = provider;
		this.pinned = OperationOptions.of(Optional.of(provider), Optional.empty(), Optional.empty());
	}

	/** The provider every request is pinned to. */
	String provider() {
		return this.provider;
	}

	@Override
	public Response intercept(Chain chain) throws IOException {
		Request request = chain.request();
		OperationOptions options = request.tag(OperationOptions.class);
		if (options != null && options.provider().isPresent()) {
			return chain.proceed(request);
		}
		OperationOptions pinned = (options == null) ? this.pinned
				: OperationOptions.of(this.pinned.provider(), options.idempotencyKey(), options.deadline());
		return chain.proceed(request.newBuilder().tag(OperationOptions.class, pinned).build());
	}

}
