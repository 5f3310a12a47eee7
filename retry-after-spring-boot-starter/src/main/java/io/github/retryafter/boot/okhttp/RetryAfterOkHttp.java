package io.github.retryafter.boot.okhttp;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import okhttp3.Interceptor;
import okhttp3.OkHttpClient;

import io.github.retryafter.Cancellation;
import io.github.retryafter.NearestName;
import io.github.retryafter.Sleeper;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.observation.RetryAfterObservations;
import io.github.retryafter.boot.RetryAfterProviders.Provider;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.okhttp.RetryAfterInterceptor;
import io.github.retryafter.okhttp.WaitTracker;

/**
 * Puts the starter's engine under OkHttp clients: one {@link RetryAfterInterceptor} over the starter's providers (the
 * same engines, budgets, gates, fleet, listeners and meters as the {@code RestClient} and {@code WebClient} adapters),
 * added as an application interceptor. {@link #apply(OkHttpClient.Builder)} routes each request by its host, as the
 * Spring adapters do; {@link #apply(OkHttpClient.Builder, String)} sends every request of the client to one provider
 * whatever its base URL, unless a request names its own ({@code Request.Builder.tag(OperationOptions.class, ...)}).
 * <p>
 * One retry layer: a builder that already holds a {@link RetryAfterInterceptor} is left as it is. Thread-safe.
 */
public final class RetryAfterOkHttp {

	private final RetryAfterProviders providers;

	private final RetryAfterInterceptor interceptor;

	// one pin per configured provider asked for (pin(...) refuses a name no provider has): bounded by configuration
	private final Map<String, ProviderPin> pins = new ConcurrentHashMap<>();

	/**
	 * Creates the interceptors over {@code providers}. A request body above the largest of the providers'
	 * {@code max-replay-body} is sent once (a provider's own bound still applies to its requests), and a failed
	 * response's body is drained up to the {@code default} provider's {@code max-drain}.
	 * @param providers the configured providers and their engines
	 * @param sleeper how a call blocks between attempts (a fake clock's in tests)
	 */
	public RetryAfterOkHttp(RetryAfterProviders providers, Sleeper sleeper) {
		this(providers, sleeper, RetryAfterObservations.NOOP, null);
	}

	/**
	 * Creates the interceptors over {@code providers} as the Spring adapters' {@code operations} run theirs:
	 * observing each call's operation and attempts ({@code retry.after.operation} and {@code retry.after.attempt},
	 * an attempt's trace context in its request's headers), with the same instance key for keyed jitter
	 * ({@code retry.after.jitter-key}), telling the same listener of hosts no provider names, and registering each
	 * call that waits so that the context's shutdown cancels its wait.
	 * @param providers the configured providers and their engines
	 * @param sleeper how a call blocks between attempts (a fake clock's in tests)
	 * @param operations the Spring adapters' operations
	 */
	public RetryAfterOkHttp(RetryAfterProviders providers, Sleeper sleeper, RetryAfterOperations operations) {
		this(providers, sleeper, operations.observations(), operations);
	}

	private RetryAfterOkHttp(RetryAfterProviders providers, Sleeper sleeper, RetryAfterObservations observations,
			RetryAfterOperations operations) {
		this.providers = Objects.requireNonNull(providers, "providers");
		long maxReplayBody = providers.all().stream().mapToLong((p) -> p.settings().maxReplayBodyBytes()).max().orElse(0);
		Provider fallback = providers.get(OperationSpec.DEFAULT_PROVIDER).orElseThrow();
		RetryAfterInterceptor.Builder builder = RetryAfterInterceptor.builder()
			.routes(providers.routes())
			.sleeper(Objects.requireNonNull(sleeper, "sleeper"))
			.maxReplayBody(maxReplayBody)
			.maxDrain(fallback.settings().maxDrainBytes())
			.observer(new ObservedCalls(Objects.requireNonNull(observations, "observations")));
		if (operations != null) {
			builder.instanceKey(operations.instanceKey())
				.unmatchedHosts(operations.unmatchedHosts())
				.waits(new WaitTracker() {

					@Override
					public void waiting(Cancellation cancellation) {
						operations.waiting(cancellation);
					}

					@Override
					public void ended(Cancellation cancellation) {
						operations.ended(cancellation);
					}

				});
		}
		this.interceptor = builder.build();
	}

	/**
	 * Returns the interceptor that routes each request to its provider by host (or by the provider its
	 * {@code OperationOptions} tag names).
	 * @return the interceptor, one for every client
	 */
	public RetryAfterInterceptor interceptor() {
		return this.interceptor;
	}

	/**
	 * Returns the interceptors that send every request to {@code provider}, in the order to add them: one that names
	 * the provider on each request that names none, then {@link #interceptor()}.
	 * @param provider a configured provider's name
	 * @return the two interceptors
	 * @throws IllegalArgumentException if no provider of that name is configured (the message names the nearest)
	 */
	public List<Interceptor> interceptors(String provider) {
		return List.of(pin(provider), this.interceptor);
	}

	/**
	 * Returns the interceptors that send every request to {@code provider}, as {@link #interceptors(String)} does, but
	 * look the starter up at the client's first request: for a client built while the application context is still
	 * parsing its configuration (Spring AI builds its Google GenAI chat model inside a condition), when the starter's
	 * providers must not be created yet. An unknown provider fails the first request instead of the build.
	 * @param provider a provider's name
	 * @param okHttp where the starter's interceptors are found at the first request (a bean lookup)
	 * @return the two interceptors, in the order to add them
	 */
	public static List<Interceptor> deferred(String provider, Supplier<RetryAfterOkHttp> okHttp) {
		return List.of(new ProviderPin(provider), new DeferredInterceptor(provider, okHttp));
	}

	/**
	 * Adds {@link #interceptor()} to {@code builder}, unless it already holds a {@link RetryAfterInterceptor}.
	 * @param builder the client's builder
	 * @return {@code builder}
	 */
	public OkHttpClient.Builder apply(OkHttpClient.Builder builder) {
		if (!holdsRetryInterceptor(builder)) {
			builder.addInterceptor(this.interceptor);
		}
		return builder;
	}

	/**
	 * Adds {@link #interceptors(String) the interceptors} that send every request of the client to {@code provider},
	 * unless {@code builder} already holds a {@link RetryAfterInterceptor}.
	 * @param builder the client's builder
	 * @param provider a configured provider's name
	 * @return {@code builder}
	 * @throws IllegalArgumentException if no provider of that name is configured (the message names the nearest)
	 */
	public OkHttpClient.Builder apply(OkHttpClient.Builder builder, String provider) {
		List<Interceptor> interceptors = interceptors(provider);
		if (!holdsRetryInterceptor(builder)) {
			interceptors.forEach(builder::addInterceptor);
		}
		return builder;
	}

	private ProviderPin pin(String provider) {
		Objects.requireNonNull(provider, "provider");
		return this.pins.computeIfAbsent(provider, (name) -> {
			if (this.providers.get(name).isEmpty()) {
				List<String> configured = this.providers.all().stream().map(Provider::name).sorted().toList();
				throw new IllegalArgumentException("no provider '" + name + "' is configured; did you mean '"
						+ NearestName.of(name, configured).orElseThrow() + "'? Configure retry.after.providers."
						+ name + ".* or pin the client to one of " + configured);
			}
			return new ProviderPin(name);
		});
	}

	private static boolean holdsRetryInterceptor(OkHttpClient.Builder builder) {
		return builder.interceptors().stream().anyMatch(RetryAfterInterceptor.class::isInstance)
				|| builder.networkInterceptors().stream().anyMatch(RetryAfterInterceptor.class::isInstance);
	}

}
