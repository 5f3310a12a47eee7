package io.github.retryafter.boot;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

import io.github.retryafter.request.OperationOptions;

/**
 * Per-request control of retries through request attributes, for both {@code WebClient} and {@code RestClient}:
 * <pre class="code">
 * webClient.post().uri("/orders")
 *     .attributes(RetryAfterAttributes.provider("payments"))
 *     .attributes(RetryAfterAttributes.idempotencyKey(orderId))
 *     .retrieve()...
 * </pre>
 * The attribute names are compile-time constants, so an {@code @HttpExchange} method can take them as arguments:
 * {@code @RequestAttribute(RetryAfterAttributes.IDEMPOTENCY_KEY) String key},
 * {@code @RequestAttribute(RetryAfterAttributes.DEADLINE) Duration deadline}.
 */
public final class RetryAfterAttributes {

	/**
	 * This class's name and a dot, spelled out so every attribute name is a constant an annotation can hold
	 * ({@code @RequestAttribute(RetryAfterAttributes.DEADLINE)}).
	 */
	private static final String PREFIX = "io.github.retryafter.boot.RetryAfterAttributes.";

	/** Attribute holding the provider name. */
	public static final String PROVIDER = PREFIX + "provider";

	/** Attribute holding the idempotency key. */
	public static final String IDEMPOTENCY_KEY = PREFIX + "idempotencyKey";

	/** Attribute holding the operation's deadline. */
	public static final String DEADLINE = PREFIX + "deadline";

	/** Attribute that turns retries off for the request. */
	public static final String DISABLED = PREFIX + "disabled";

	/** Attribute holding a callback for the operation's outcome. */
	public static final String OUTCOME_LISTENER = PREFIX + "outcomeListener";

	private RetryAfterAttributes() {
	}

	/**
	 * Uses the named provider's settings and budget for this request, whatever its host.
	 * @param name a provider configured under {@code retry.after.providers}
	 * @return a consumer for {@code attributes(...)}
	 */
	public static Consumer<Map<String, Object>> provider(String name) {
		Objects.requireNonNull(name, "name");
		return attributes -> attributes.put(PROVIDER, name);
	}

	/**
	 * Sends this idempotency key on every attempt, which makes a POST or PATCH retryable: the caller takes
	 * responsibility for the provider honouring it.
	 * @param key the key identifying the logical operation
	 * @return a consumer for {@code attributes(...)}
	 * @throws IllegalArgumentException if the key holds a control character (CR and LF among them), which could split
	 * or forge request headers
	 */
	public static Consumer<Map<String, Object>> idempotencyKey(String key) {
		Objects.requireNonNull(key, "key");
		checkIdempotencyKey(key);
		return attributes -> attributes.put(IDEMPOTENCY_KEY, key);
	}

	/**
	 * Gives this operation its own deadline, measured from its start, instead of the provider's.
	 * @param deadline the deadline
	 * @return a consumer for {@code attributes(...)}
	 */
	public static Consumer<Map<String, Object>> deadline(Duration deadline) {
		Objects.requireNonNull(deadline, "deadline");
		return attributes -> attributes.put(DEADLINE, deadline);
	}

	/**
	 * Sends this request once, without retries.
	 * @return a consumer for {@code attributes(...)}
	 */
	public static Consumer<Map<String, Object>> disabled() {
		return attributes -> attributes.put(DISABLED, Boolean.TRUE);
	}

	/**
	 * Calls {@code listener} with the operation's outcome when it ends, on the thread that ends it.
	 * @param listener the callback
	 * @return a consumer for {@code attributes(...)}
	 */
	public static Consumer<Map<String, Object>> onOutcome(Consumer<RetryOutcome> listener) {
		Objects.requireNonNull(listener, "listener");
		return attributes -> attributes.put(OUTCOME_LISTENER, listener);
	}

	/**
	 * Reads the options of one request.
	 * @param attributes the request's attributes
	 * @return the options found
	 * @throws IllegalArgumentException if the {@link #IDEMPOTENCY_KEY} attribute is not a string or holds a control
	 * character (CR and LF among them), or another attribute of this class is not of its type (the provider a
	 * {@code String}, the deadline a {@code Duration}, disabled a {@code Boolean}, the outcome listener a
	 * {@code Consumer}); the request must then not be sent
	 */
	public static RequestOptions read(Map<String, Object> attributes) {
		if (attributes.isEmpty()) {
			return RequestOptions.NONE;
		}
		Object provider = attributes.get(PROVIDER);
		Object key = attributes.get(IDEMPOTENCY_KEY);
		Object deadline = attributes.get(DEADLINE);
		Object disabled = attributes.get(DISABLED);
		Object listener = attributes.get(OUTCOME_LISTENER);
		if (provider == null && key == null && deadline == null && disabled == null && listener == null) {
			// the common case: a client's own attributes (URI template...) and none of ours
			return RequestOptions.NONE;
		}
		if (key != null) {
			checkIdempotencyKey(key);
		}
		return new RequestOptions(Optional.ofNullable(typed(PROVIDER, provider, String.class)),
				Optional.ofNullable((String) key), Optional.ofNullable(typed(DEADLINE, deadline, Duration.class)),
				Boolean.TRUE.equals(typed(DISABLED, disabled, Boolean.class)), outcomeListener(listener));
	}

	/**
	 * Returns an attribute's value as its type, or refuses it naming the attribute and both types: an
	 * {@code @HttpExchange} method's {@code @RequestAttribute} argument is put as it is declared, so a
	 * {@code String} deadline would otherwise fail later as a bare {@code ClassCastException}.
	 */
	private static <T> T typed(String name, Object value, Class<T> type) {
		if (value == null || type.isInstance(value)) {
			return type.cast(value);
		}
		throw new IllegalArgumentException("Request attribute '" + name + "' must be a " + type.getName()
				+ " but was a " + value.getClass().getName() + "; declare the argument that carries it as a "
				+ type.getSimpleName());
	}

	/**
	 * Refuses a key that is not a string, or holds a control character (U+0000 to U+001F, U+007F): CR and LF would
	 * let a key end the header and add others, and no provider expects the rest. The message names the attribute and
	 * the character, never the key itself.
	 */
	private static void checkIdempotencyKey(Object key) {
		if (!(key instanceof String text)) {
			throw new IllegalArgumentException("Request attribute '" + IDEMPOTENCY_KEY + "' must be a String but was a "
					+ key.getClass().getName());
		}
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < 0x20 || c == 0x7F) {
				throw new IllegalArgumentException("Request attribute '" + IDEMPOTENCY_KEY
						+ "' holds the control character U+" + String.format("%04X", (int) c) + " at index " + i
						+ "; an idempotency key is sent as a header value, so use printable characters only");
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static Optional<Consumer<RetryOutcome>> outcomeListener(Object listener) {
		return Optional.ofNullable((Consumer<RetryOutcome>) typed(OUTCOME_LISTENER, listener, Consumer.class));
	}

	/**
	 * The retry options of one request.
	 *
	 * @param provider the provider named by the request
	 * @param idempotencyKey the key given by the request
	 * @param deadline the deadline given by the request
	 * @param disabled whether retries are off for the request
	 * @param outcomeListener the callback for the outcome
	 */
	public record RequestOptions(Optional<String> provider, Optional<String> idempotencyKey,
			Optional<Duration> deadline, boolean disabled, Optional<Consumer<RetryOutcome>> outcomeListener)
			implements OperationOptions {

		/** The options of a request that sets none. */
		public static final RequestOptions NONE = new RequestOptions(Optional.empty(), Optional.empty(),
				Optional.empty(), false, Optional.empty());

	}

}
