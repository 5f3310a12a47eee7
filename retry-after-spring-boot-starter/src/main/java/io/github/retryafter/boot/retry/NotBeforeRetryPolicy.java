package io.github.retryafter.boot.retry;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

import io.github.retryafter.engine.NotBefore;

/**
 * A Spring Framework 7 {@link RetryPolicy} for a {@code RetryTemplate} around calls made through retry-after: it
 * retries when its delegate does, and never before the instant the provider named. Spring's {@link BackOffExecution}
 * never sees the exception, so this policy reads the instant from the exception it is asked about
 * ({@link NotBefore#find(Throwable)}: retry-after attaches it to the exception the client throws when it gives up)
 * and its back-off waits {@code max(the delegate's next back-off, what is left of that instant)}; the delegate's
 * back-off is the spread above the provider's floor. Without an instant it is the delegate's back-off unchanged.
 * <p>
 * {@code RetryTemplate} asks {@link #shouldRetry} and then the back-off on the same thread, which is how the two
 * meet; a policy shared by many templates and threads is fine. Thread-safe.
 * <pre>{@code
 * RetryTemplate template = new RetryTemplate(NotBeforeRetryPolicy.of(
 *         RetryPolicy.builder().maxRetries(3).delay(Duration.ofSeconds(1)).build()));
 * }</pre>
 */
public final class NotBeforeRetryPolicy implements RetryPolicy {

	// what the last shouldRetry on this thread found, for the back-off asked next
	private static final ThreadLocal<NotBefore> PENDING = new ThreadLocal<>();

	private final RetryPolicy delegate;

	private final InstantSource clock;

	private NotBeforeRetryPolicy(RetryPolicy delegate, InstantSource clock) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	/**
	 * Returns a policy that retries as {@code delegate} does, no earlier than the provider's instant on the system
	 * clock.
	 * @param delegate what to retry, how many times, and the back-off above the provider's instant
	 * @return the policy
	 */
	public static NotBeforeRetryPolicy of(RetryPolicy delegate) {
		return of(delegate, InstantSource.system());
	}

	/**
	 * Returns a policy that retries as {@code delegate} does, no earlier than the provider's instant on
	 * {@code clock} (a fixed clock in tests).
	 * @param delegate what to retry, how many times, and the back-off above the provider's instant
	 * @param clock the wall clock the instant is read against
	 * @return the policy
	 */
	public static NotBeforeRetryPolicy of(RetryPolicy delegate, InstantSource clock) {
		return new NotBeforeRetryPolicy(delegate, clock);
	}

	@Override
	public boolean shouldRetry(Throwable throwable) {
		boolean retry = this.delegate.shouldRetry(throwable);
		Optional<NotBefore> notBefore = retry ? NotBefore.find(throwable) : Optional.empty();
		if (notBefore.isPresent()) {
			PENDING.set(notBefore.get());
		}
		else {
			PENDING.remove();
		}
		return retry;
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
				NotBefore notBefore = PENDING.get();
				PENDING.remove();
				if (millis == BackOffExecution.STOP || notBefore == null) {
					return millis;
				}
				Duration left = notBefore.remainingAt(this.clock);
				// rounded up: a wait a millisecond short of the provider's instant is a retry too early
				long leftMillis = left.toMillis() + ((left.toNanos() % 1_000_000 == 0) ? 0 : 1);
				return Math.max(millis, leftMillis);
			};
		};
	}

	@Override
	public String toString() {
		return "NotBeforeRetryPolicy[" + this.delegate + "]";
	}

}
