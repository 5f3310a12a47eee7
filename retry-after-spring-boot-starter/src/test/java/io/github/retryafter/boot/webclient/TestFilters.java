package io.github.retryafter.boot.webclient;

import java.time.InstantSource;
import java.util.List;

import reactor.core.scheduler.Schedulers;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryPolicy;

/**
 * The filter wired by hand, on the real clock and Reactor's parallel scheduler, for tests that need no application
 * context: one {@code default} provider with the given policy, a budget large enough not to interfere, and a fixed
 * random draw of 0.5.
 */
final class TestFilters {

	private TestFilters() {
	}

	static RetryAfterExchangeFilterFunction realTime(RetryPolicy policy, long maxReplayBody, RetryListener listener) {
		BudgetSettings roomy = new BudgetSettings(1_000_000, 0.2, 1_000);
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder()
			.global(roomy)
			.providerDefaults(roomy)
			.build();
		RetryAfterProviders providers = new RetryAfterProviders(
				List.of(new ProviderSettings("default", List.of(), policy, roomy, false, maxReplayBody)),
				(settings) -> RetryEngine.builder()
					.policy(settings.policy())
					.budget(budget)
					.ticker(Ticker.system())
					.wallClock(InstantSource.system())
					.random(() -> 0.5)
					.listener(listener)
					.build());
		return new RetryAfterExchangeFilterFunction(new RetryAfterOperations(providers, "test"), Ticker.system(),
				Schedulers.parallel());
	}

}
