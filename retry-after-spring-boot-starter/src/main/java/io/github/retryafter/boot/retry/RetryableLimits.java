package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * What a method's {@code @Retryable} allows, read as Spring Framework 7 reads it (the merged annotation on the method,
 * else on its class; the {@code ...String} attributes resolved, in the annotation's {@code timeUnit}), so a predicate
 * can tell whether a retry follows a wait: Spring asks the predicate before it checks its retry count and timeout.
 * Immutable.
 *
 * @param maxRetries the retries after the first attempt
 * @param timeout the time allowed for every attempt and delay, zero for none
 * @param delay the first back-off
 * @param jitter the spread of a back-off
 * @param multiplier the growth of each back-off
 * @param maxDelay the longest back-off, and the longest pause before a retry a predicate may add
 */
record RetryableLimits(long maxRetries, Duration timeout, Duration delay, Duration jitter, double multiplier,
		Duration maxDelay) {

	/**
	 * Reads a method's {@code @Retryable}.
	 * @param method the annotated method
	 * @param resolver resolves the {@code ...String} attributes, or {@code null} to take them literally
	 * @return the limits, empty when neither the method nor its class carries {@code @Retryable}
	 */
	static Optional<RetryableLimits> of(Method method, @Nullable StringValueResolver resolver) {
		Retryable retryable = AnnotatedElementUtils.findMergedAnnotation(method, Retryable.class);
		if (retryable == null) {
			retryable = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Retryable.class);
		}
		if (retryable == null) {
			return Optional.empty();
		}
		TimeUnit unit = retryable.timeUnit();
		String maxRetries = resolve(retryable.maxRetriesString(), resolver);
		String multiplier = resolve(retryable.multiplierString(), resolver);
		return Optional.of(new RetryableLimits(
				(maxRetries != null) ? Long.parseLong(maxRetries) : retryable.maxRetries(),
				duration(retryable.timeout(), retryable.timeoutString(), unit, resolver),
				duration(retryable.delay(), retryable.delayString(), unit, resolver),
				duration(retryable.jitter(), retryable.jitterString(), unit, resolver),
				(multiplier != null) ? Double.parseDouble(multiplier) : retryable.multiplier(),
				duration(retryable.maxDelay(), retryable.maxDelayString(), unit, resolver)));
	}

	/**
	 * Returns the longest back-off Spring's {@code ExponentialBackOff} built from these limits can wait before
	 * {@code retry}, jitter included, in milliseconds as it counts them.
	 * @param retry the retry, 1 for the first
	 * @return the milliseconds
	 */
	long longestBackOffMillis(long retry) {
		long initial = millis(this.delay);
		long max = millis(this.maxDelay);
		long interval = Math.min(initial, max);
		for (long i = 1; i < retry && interval < max && this.multiplier > 1.0; i++) {
			// a double cast to long saturates: no overflow
			interval = Math.min((long) (interval * this.multiplier), max);
		}
		long jitter = millis(this.jitter);
		if (jitter > 0 && initial > 0) {
			double spread = (double) jitter * (interval / initial);
			interval = Math.min((long) (interval + spread), max);
		}
		return interval;
	}

	/**
	 * Returns a duration in milliseconds, {@link Long#MAX_VALUE} when it has more (an unbounded {@code maxDelay} in
	 * seconds).
	 * @param duration the duration
	 * @return the milliseconds
	 */
	static long millis(Duration duration) {
		try {
			return duration.toMillis();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private static @Nullable String resolve(String value, @Nullable StringValueResolver resolver) {
		String resolved = (StringUtils.hasText(value) && resolver != null) ? resolver.resolveStringValue(value)
				: value;
		return StringUtils.hasText(resolved) ? resolved : null;
	}

	private static Duration duration(long value, String text, TimeUnit unit, @Nullable StringValueResolver resolver) {
		String resolved = resolve(text, resolver);
		if (resolved != null) {
			return DurationFormatterUtils.detectAndParse(resolved,
					DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
		}
		return Duration.of(value, unit.toChronoUnit());
	}

}
