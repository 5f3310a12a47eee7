package io.github.retryafter.boot;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * When a provider is cooling down: it named, in a {@code Retry-After}, an instant before which it wants no request,
 * and every request to it, fresh or retried, waits for that instant (RFC 9110 §10.2.3). The WebClient filter and the
 * RestClient interceptor consult it before every attempt through {@link RetryAfterOperations#holdUntil}; a request
 * whose deadline cannot accommodate the wait ends at once as
 * {@link io.github.retryafter.engine.Outcome#WAIT_EXCEEDS_DEADLINE} instead of waiting.
 * <p>
 * A cooldown is extended by a later, longer hint and never shortened by a shorter one. Instants are readings of the
 * engines' monotonic {@link io.github.retryafter.Ticker}, never wall-clock times. Implementations must be thread-safe
 * and must answer {@link #until} without blocking: it is on every request's path.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public interface ProviderCooldown {

	/**
	 * Records that {@code provider} wants no request before {@code floor} from now; a cooldown that already lasts
	 * longer is kept.
	 * @param provider the provider's configured name
	 * @param floor how long from now the provider asked to be left alone
	 */
	void extend(String provider, Duration floor);

	/**
	 * Returns the ticker reading before which requests to {@code provider} are held.
	 * @param provider the provider's configured name
	 * @return the reading, or empty when the provider is not cooling down now
	 */
	OptionalLong until(String provider);

}
