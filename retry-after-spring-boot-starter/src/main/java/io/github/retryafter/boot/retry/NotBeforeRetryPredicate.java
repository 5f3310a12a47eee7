package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.resilience.retry.MethodRetryPredicate;
import org.springframework.util.StringValueResolver;

import io.github.retryafter.engine.NotBefore;

/**
 * A predicate for Spring Framework 7's {@code @Retryable(predicate = NotBeforeRetryPredicate.class)} that keeps a
 * retrying method from calling a provider before the instant it named ({@link NotBefore#find(Throwable)}): it waits
 * out what is left of it, then allows the retry, and the annotation's own delay comes on top. It waits only when a
 * retry follows within the annotation's limits and the provider's {@code max-wait}; otherwise it declines, and the
 * exception, with the instant on it, reaches the caller. It declines a retry before the instant when:
 * <ul>
 * <li>the annotation's {@code maxRetries} are spent (Spring asks the predicate before it counts them);</li>
 * <li>the wait, and the longest back-off the annotation adds after it, would reach the annotation's {@code timeout},
 * counted from the start of the call (Spring checks its timeout only after the predicate);</li>
 * <li>the wait is longer than the annotation's {@code maxDelay}, the longest pause before a retry the method
 * accepts;</li>
 * <li>the wait is longer than the provider's {@code max-wait}, or the hand-over ended {@code WAIT_TOO_LONG};</li>
 * <li>the method returns a reactive type or a future, whose retries must not block a thread;</li>
 * <li>it cannot tell which retry of which call it decides: asked through {@link #shouldRetry(Method, Throwable)} (as
 * Spring's reactive retry asks) rather than through the {@link #forMethod(Method) predicate of one call}, or for a
 * method without {@code @Retryable}.</li>
 * </ul>
 * An exception without an instant still ahead is left to the annotation's {@code includes} and {@code excludes}. An
 * interrupt during the wait declines the retry and keeps the thread's interrupt flag; so does the application
 * context closing ({@link NotBeforeWaits#close()}). Spring creates it as a bean,
 * with the starter's {@link NotBeforeWaits}; thread-safe.
 */
public final class NotBeforeRetryPredicate implements MethodRetryPredicate, EmbeddedValueResolverAware {

	private final NotBeforeWaits waits;

	// per method this predicate serves (Spring creates one per annotated method), at most that many
	private final Map<Method, Optional<RetryableLimits>> limits = new ConcurrentHashMap<>();

	private volatile @Nullable StringValueResolver resolver;

	/**
	 * Creates a predicate on the system clocks that really sleeps, with the core's default {@code max-wait} (30 s).
	 */
	public NotBeforeRetryPredicate() {
		this(NotBeforeWaits.system());
	}

	/**
	 * Creates a predicate that waits as {@code waits} says: what Spring uses when it creates the predicate as a bean.
	 * @param waits the clocks, the sleeper and each provider's {@code max-wait}
	 */
	@Autowired
	public NotBeforeRetryPredicate(NotBeforeWaits waits) {
		this.waits = Objects.requireNonNull(waits, "waits");
	}

	/**
	 * Resolves placeholders in the annotation's {@code ...String} attributes, as Spring does.
	 * @param resolver the application's resolver
	 */
	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.resolver = resolver;
	}

	/**
	 * Returns the predicate of one call of {@code method}: Spring asks for it as the call starts, and asks it after
	 * each failure of that call, so it counts the retries and the time since the start.
	 * @param method the method being called
	 * @return a predicate for this call only, not thread-safe (one call runs on one thread)
	 */
	@Override
	public Predicate<Throwable> forMethod(Method method) {
		Optional<RetryableLimits> limits = this.limits.computeIfAbsent(method,
				(key) -> RetryableLimits.of(key, this.resolver));
		if (limits.isEmpty() || asynchronous(method)) {
			return (throwable) -> shouldRetry(method, throwable);
		}
		return new Call(limits.get(), this.waits.now());
	}

	/**
	 * Decides without knowing the call: allows a retry unless the provider's instant is still ahead.
	 * @param method the method
	 * @param throwable what it threw
	 * @return {@code false} when the provider's instant is still ahead
	 */
	@Override
	public boolean shouldRetry(Method method, Throwable throwable) {
		return this.waits.ahead(throwable).isEmpty();
	}

	private static boolean asynchronous(Method method) {
		Class<?> type = method.getReturnType();
		return CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
				|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
	}

	@Override
	public String toString() {
		return "NotBeforeRetryPredicate[" + this.waits + "]";
	}

	/** One call: Spring asks it after each failure, on the calling thread. */
	private final class Call implements Predicate<Throwable> {

		private final RetryableLimits limits;

		private final long startNanos;

		// the retry the next question decides: 1 after the first attempt failed
		private long retry;

		Call(RetryableLimits limits, long startNanos) {
			this.limits = limits;
			this.startNanos = startNanos;
		}

		@Override
		public boolean test(Throwable throwable) {
			this.retry++;
			Optional<NotBeforeWaits.Ahead> ahead = NotBeforeRetryPredicate.this.waits.ahead(throwable);
			if (ahead.isEmpty()) {
				return true;
			}
			Duration left = ahead.get().left();
			if (ahead.get().tooLong() || !retryFollows(left)) {
				return false;
			}
			try {
				return NotBeforeRetryPredicate.this.waits.sleep(left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		private boolean retryFollows(Duration left) {
			if (this.retry > this.limits.maxRetries() || left.compareTo(this.limits.maxDelay()) > 0) {
				return false;
			}
			long timeout = RetryableLimits.millis(this.limits.timeout());
			if (timeout == 0) {
				return true;
			}
			// elapsed rounded up and the back-off's jitter at its longest: a wait that might not be followed by a
			// retry is not waited
			long elapsed = NotBeforeWaits.ceilMillis(
					Duration.ofNanos(NotBeforeRetryPredicate.this.waits.now() - this.startNanos));
			long after = elapsed + NotBeforeWaits.ceilMillis(left);
			return after < timeout && this.limits.longestBackOffMillis(this.retry) < timeout - after;
		}

	}

}
