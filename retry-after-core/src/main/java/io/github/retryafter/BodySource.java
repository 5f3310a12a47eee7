package io.github.retryafter;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The first bytes of a failed response's body, for the hint fields a provider writes there instead of in a header
 * (Google's {@code google.rpc.RetryInfo}, {@link HintField#GOOGLE_RETRY_INFO}). The hint room asks at most once per
 * response, and only when the provider's {@link HintFields} read a body field and the status is a refusal
 * ({@link HintFields#readsBodyOf(int)}); a transport hands over a copy (OkHttp's {@code peekBody}), so whoever receives
 * the response still reads its whole body.
 * <p>
 * An implementation is called on the thread that hands the response to the engine; it need not be thread-safe.
 */
@FunctionalInterface
public interface BodySource {

	/** The most bytes of a body the hint room reads: a refusal's JSON is a few hundred bytes, 16 KiB is plenty. */
	int MAX_BYTES = 16 * 1024;

	/**
	 * Returns the body's first bytes, at most {@code maxBytes}, without taking them from the response's receiver.
	 * @param maxBytes the most bytes to return
	 * @return the bytes, fewer than {@code maxBytes} only when the body is shorter; empty without a body
	 * @throws IOException when the body cannot be read; the field is then refused, never guessed
	 */
	byte[] prefix(int maxBytes) throws IOException;

	/**
	 * Returns a source with no body: what a transport gives when it reads none.
	 * @return the empty source
	 */
	static BodySource none() {
		return (maxBytes) -> new byte[0];
	}

	/**
	 * Returns a source over bytes already read (tests, a transport that buffered the body); the array is copied.
	 * @param body the body
	 * @return a source returning at most {@code maxBytes} of a copy of {@code body}
	 */
	static BodySource of(byte[] body) {
		byte[] copy = Objects.requireNonNull(body, "body").clone();
		return (maxBytes) -> Arrays.copyOf(copy, Math.min(copy.length, Math.max(0, maxBytes)));
	}

}
