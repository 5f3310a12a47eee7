package io.github.retryafter.boot.autoconfigure;

import java.time.InstantSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.retry.NotBeforeRetryPolicy;
import io.github.retryafter.boot.retry.NotBeforeRetryPredicate;
import io.github.retryafter.boot.retry.NotBeforeWaits;

/**
 * Auto-configuration of what outer retry layers ({@link NotBeforeRetryPredicate} for {@code @Retryable},
 * {@link NotBeforeRetryPolicy} for a {@code RetryTemplate}) need to wait for a provider's instant: the
 * {@link NotBeforeWaits}, on the clocks and sleeper the engines use (the application's own beans when it has them)
 * and each provider's {@code max-wait}. It stays on when {@code retry.after.enabled=false}, so a {@code @Retryable}
 * method naming the predicate still starts; the waits then use the system clocks and the core's default
 * {@code max-wait}.
 */
@AutoConfiguration(after = RetryAfterAutoConfiguration.class)
public final class RetryAfterOuterRetryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	NotBeforeWaits retryAfterNotBeforeWaits(ObjectProvider<Ticker> tickers, ObjectProvider<InstantSource> wallClocks,
			ObjectProvider<Sleeper> sleepers, ObjectProvider<RetryAfterProviders> providers) {
		Ticker ticker = tickers.getIfUnique(Ticker::system);
		InstantSource wallClock = RetryAfterAutoConfiguration.wallClock(ticker, wallClocks);
		Sleeper sleeper = sleepers.getIfUnique(Sleeper::system);
		RetryAfterProviders configured = providers.getIfUnique();
		return (configured != null) ? NotBeforeWaits.of(ticker, wallClock, sleeper, configured)
				: NotBeforeWaits.of(ticker, wallClock, sleeper, NotBeforeWaits.DEFAULT_MAX_WAIT);
	}

}
