package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.resilience.retry.MethodRetryPredicate;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Sleeper;
import io.github.retryafter.engine.NotBefore;

/**
 * A predicate for Spring Framework 7's {@code @Retryable(predicate = NotBeforeRetryPredicate.class)} that keeps a
 * retrying method from calling a provider before the instant it named. {@code @Retryable} builds its own back-off
 * from the annotation, which never sees the exception, and asks this predicate just before it waits; so when the
 * exception carries the provider's instant ({@link NotBefore#find(Throwable)}), the predicate waits out what is left
 * of it, then allows the retry, and the annotation's own delay comes on top (the spread above the provider's floor).
 * An exception without an instant is left to the annotation's {@code includes} and {@code excludes}.
 * <p>
 * The wait blocks the calling thread, as {@code @Retryable}'s own delay does. A method returning a reactive type or
 * a future is retried on another thread, where blocking is wrong: for it a retry before the instant is declined
 * instead, and the exception, with the instant on it, reaches the subscriber. An interrupt during the wait declines
 * the retry and keeps the thread's interrupt flag. With a {@code RetryTemplate}, prefer {@link NotBeforeRetryPolicy},
 * which lengthens the template's own wait. Spring creates it as a bean, with the application's wall clock and
 * retry-after's sleeper; thread-safe.
 */
public final class NotBeforeRetryPredicate implements MethodRetryPredicate {

	private final InstantSource clock;

	private final Sleeper sleeper;

	/**
	 * Creates a predicate on the system clock that really sleeps.
	 */
	public NotBeforeRetryPredicate() {
		this(InstantSource.system(), Sleeper.system());
	}

	/**
	 * Creates a predicate on {@code clock} that waits with {@code sleeper} (a fake clock in tests): what Spring uses
	 * when it creates the predicate as a bean.
	 * @param clock the wall clock the provider's instant is read against
	 * @param sleeper how to wait
	 */
	@Autowired
	public NotBeforeRetryPredicate(InstantSource clock, Sleeper sleeper) {
		this.clock = Objects.requireNonNull(clock, "clock");
		this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
	}

	@Override
	public boolean shouldRetry(Method method, Throwable throwable) {
		Optional<NotBefore> notBefore = NotBefore.find(throwable);
		if (notBefore.isEmpty()) {
			return true;
		}
		Duration left = notBefore.get().remainingAt(this.clock);
		if (left.isZero()) {
			return true;
		}
		if (asynchronous(method)) {
			return false;
		}
		try {
			this.sleeper.sleep(left, Cancellation.never());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static boolean asynchronous(Method method) {
		Class<?> type = method.getReturnType();
		return CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
				|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
	}

}
