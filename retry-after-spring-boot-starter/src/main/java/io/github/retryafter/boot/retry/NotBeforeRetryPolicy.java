package io.github.retryafter.boot.retry;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.engine.NotBefore;

/**
 * A Spring Framework 7 {@link RetryPolicy} for a {@code RetryTemplate} around calls made through retry-after: it
 * retries when its delegate does, and never before the instant the provider named. Spring's {@link BackOffExecution}
 * never sees the exception, so this policy reads the instant from the exception it is asked about
 * ({@link NotBefore#find(Throwable)}: retry-after attaches it to the exception the client throws when it gives up)
 * and its back-off waits {@code max(the delegate's next back-off, what is left of that instant)}; the delegate's
 * back-off is the spread above the provider's floor. Without an instant it is the delegate's back-off unchanged.
 * <p>
 * It never has the template wait for nothing: after the delegate's last retry its back-off stops as the delegate's
 * does, and a wait that would reach the template's timeout is refused by the template before it sleeps. It never has
 * a thread block for an instant beyond the provider's {@code max-wait} (or handed over as {@code WAIT_TOO_LONG}):
 * it declines that retry, and the exception, with the instant on it, reaches the caller.
 * <p>
 * {@code RetryTemplate} asks {@link #shouldRetry} and then the back-off on the same thread, which is how the two
 * meet; a policy shared by many templates and threads is fine. Thread-safe.
 * <pre>{@code
 * RetryTemplate template = new RetryTemplate(NotBeforeRetryPolicy.of(
 *         RetryPolicy.builder().maxRetries(3).delay(Duration.ofSeconds(1)).build(), waits));
 * }</pre>
 */
public final class NotBeforeRetryPolicy implements RetryPolicy {

	// what was left of the instant the last shouldRetry on this thread found, for the back-off asked next
	private static final ThreadLocal<Duration> PENDING = new ThreadLocal<>();

	private final RetryPolicy delegate;

	private final NotBeforeWaits waits;

	private NotBeforeRetryPolicy(RetryPolicy delegate, NotBeforeWaits waits) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.waits = Objects.requireNonNull(waits, "waits");
	}

	/**
	 * Returns a policy that retries as {@code delegate} does, no earlier than the provider's instant on the system
	 * clock, and not for an instant beyond the core's default {@code max-wait} (30 s).
	 * @param delegate what to retry, how many times, and the back-off above the provider's instant
	 * @return the policy
	 */
	public static NotBeforeRetryPolicy of(RetryPolicy delegate) {
		return of(delegate, NotBeforeWaits.system());
	}

	/**
	 * Returns a policy that retries as {@code delegate} does, no earlier than the provider's instant on the clock of
	 * {@code waits}, and not for an instant beyond the provider's {@code max-wait} there: pass the starter's
	 * {@link NotBeforeWaits} bean.
	 * @param delegate what to retry, how many times, and the back-off above the provider's instant
	 * @param waits the wall clock and each provider's {@code max-wait}
	 * @return the policy
	 */
	public static NotBeforeRetryPolicy of(RetryPolicy delegate, NotBeforeWaits waits) {
		return new NotBeforeRetryPolicy(delegate, waits);
	}

	/**
	 * Returns a policy that retries as {@code delegate} does, no earlier than the provider's instant on
	 * {@code clock} (a fixed clock in tests), and not for an instant beyond the core's default {@code max-wait}.
	 * @param delegate what to retry, how many times, and the back-off above the provider's instant
	 * @param clock the wall clock the instant is read against
	 * @return the policy
	 */
	public static NotBeforeRetryPolicy of(RetryPolicy delegate, InstantSource clock) {
		return of(delegate,
				NotBeforeWaits.of(Ticker.system(), clock, Sleeper.system(), NotBeforeWaits.DEFAULT_MAX_WAIT));
	}

	/**
	 * Retries when the delegate does, unless the provider's instant on {@code throwable} lies beyond its
	 * {@code max-wait} or was handed over as {@code WAIT_TOO_LONG}; keeps what is left of the instant for the
	 * back-off the template asks next on this thread.
	 * @param throwable what the call threw
	 * @return whether to retry
	 */
	@Override
	public boolean shouldRetry(Throwable throwable) {
		PENDING.remove();
		if (!this.delegate.shouldRetry(throwable)) {
			return false;
		}
		Optional<NotBeforeWaits.Ahead> ahead = this.waits.ahead(throwable);
		if (ahead.isPresent() && ahead.get().tooLong()) {
			return false;
		}
		ahead.ifPresent((found) -> PENDING.set(found.left()));
		return true;
	}

	@Override
	public Duration getTimeout() {
		return this.delegate.getTimeout();
	}

	@Override
	public BackOff getBackOff() {
		BackOff own = this.delegate.getBackOff();
		return () -> {
			BackOffExecution execution = own.start();
			return () -> {
				long millis = execution.nextBackOff();
				Duration left = PENDING.get();
				PENDING.remove();
				if (millis == BackOffExecution.STOP || left == null) {
					return millis;
				}
				return Math.max(millis, NotBeforeWaits.ceilMillis(left));
			};
		};
	}

	@Override
	public String toString() {
		return "NotBeforeRetryPolicy[" + this.delegate + "]";
	}

}
