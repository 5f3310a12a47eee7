package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryPredicate;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.retryafter.engine.NotBefore;

/**
 * A predicate for Spring Framework 7's {@code @Retryable(predicate = NotBeforeRetryPredicate.class)} that keeps a
 * retrying method from calling a provider before the instant it named. {@code @Retryable} waits its own delay and
 * cannot be told a longer one, so this predicate decides instead: when the exception carries the provider's instant
 * ({@link NotBefore#find(Throwable)}), it allows the retry only if the method's shortest next wait
 * ({@code delay - jitter}) already reaches it, and otherwise declines, so the exception (with the instant on it) goes
 * to the caller rather than a retry going early. An exception without an instant is left to the annotation's
 * {@code includes} and {@code excludes}. For a wait as long as the provider asks, use {@link NotBeforeRetryPolicy}
 * with a {@code RetryTemplate}. Spring creates it as a bean; thread-safe.
 */
public final class NotBeforeRetryPredicate implements MethodRetryPredicate, EmbeddedValueResolverAware {

	private final InstantSource clock;

	private @Nullable StringValueResolver resolver;

	/**
	 * Creates a predicate on the system clock: what {@code @Retryable} instantiates.
	 */
	public NotBeforeRetryPredicate() {
		this(InstantSource.system());
	}

	/**
	 * Creates a predicate on {@code clock} (a fixed clock in tests).
	 * @param clock the wall clock the provider's instant is read against
	 */
	public NotBeforeRetryPredicate(InstantSource clock) {
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.resolver = resolver;
	}

	@Override
	public boolean shouldRetry(Method method, Throwable throwable) {
		Optional<NotBefore> notBefore = NotBefore.find(throwable);
		if (notBefore.isEmpty()) {
			return true;
		}
		return shortestWait(method).compareTo(notBefore.get().remainingAt(this.clock)) >= 0;
	}

	/** The method's first delay less its jitter: the least {@code @Retryable} may wait before the next call. */
	private Duration shortestWait(Method method) {
		Retryable retryable = AnnotatedElementUtils.findMergedAnnotation(method, Retryable.class);
		if (retryable == null) {
			retryable = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Retryable.class);
		}
		if (retryable == null) {
			return Duration.ZERO;
		}
		TimeUnit unit = retryable.timeUnit();
		Duration delay = duration(retryable.delay(), retryable.delayString(), unit);
		Duration jitter = duration(retryable.jitter(), retryable.jitterString(), unit);
		Duration shortest = delay.minus(jitter);
		return shortest.isNegative() ? Duration.ZERO : shortest;
	}

	private Duration duration(long value, String text, TimeUnit unit) {
		String resolved = (StringUtils.hasText(text) && this.resolver != null) ? this.resolver.resolveStringValue(text)
				: text;
		if (StringUtils.hasText(resolved)) {
			return DurationFormatterUtils.detectAndParse(resolved,
					DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
		}
		return Duration.of(value, unit.toChronoUnit());
	}

}
