package io.github.retryafter.budget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class TokenBucketRetryBudgetTests {

	private final FakeClock clock = FakeClock.create();

	@Test
	void documentedDefaults() {
		assertThat(BudgetSettings.PROVIDER_DEFAULTS).isEqualTo(new BudgetSettings(20, 0.2, 1));
		assertThat(BudgetSettings.GLOBAL_DEFAULTS).isEqualTo(new BudgetSettings(100, 0.2, 5));
		TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().ticker(this.clock).build();
		assertThat(budget.availableTokens("any")).isEqualTo(20);
		assertThat(budget.globalTokens()).isEqualTo(100);
	}

	@Test
	void settingsRejectBadValuesByName() {
		assertThatIllegalArgumentException().isThrownBy(() -> new BudgetSettings(-1, 0.2, 1))
			.withMessageContaining("capacity")
			.withMessageContaining("-1.0");
		assertThatIllegalArgumentException().isThrownBy(() -> new BudgetSettings(10, Double.NaN, 1))
			.withMessageContaining("depositRatio");
		assertThatIllegalArgumentException().isThrownBy(() -> new BudgetSettings(10, 0.2, Double.POSITIVE_INFINITY))
			.withMessageContaining("refillPerSecond");
	}

	@Test
	void aRetryTakesOneTokenFromTheProviderAndOneFromTheGlobalBucket() {
		TokenBucketRetryBudget budget = budget(new BudgetSettings(3, 0.2, 0), new BudgetSettings(10, 0.2, 0));
		assertThat(budget.tryAcquire("a")).isTrue();
		assertThat(budget.providerTokens("a")).isEqualTo(2);
		assertThat(budget.globalTokens()).isEqualTo(9);
		assertThat(budget.tryAcquire("a")).isTrue();
		assertThat(budget.tryAcquire("a")).isTrue();
		assertThat(budget.tryAcquire("a")).isFalse();
		assertThat(budget.globalTokens()).isEqualTo(7);
	}

	@Test
	void anEmptyGlobalBucketRefusesAndTakesNothingFromTheProvider() {
		TokenBucketRetryBudget budget = budget(new BudgetSettings(5, 0.2, 0), new BudgetSettings(2, 0.2, 0));
		assertThat(budget.tryAcquire("a")).isTrue();
		assertThat(budget.tryAcquire("b")).isTrue();
		assertThat(budget.tryAcquire("c")).isFalse();
		assertThat(budget.providerTokens("c")).isEqualTo(5);
		assertThat(budget.availableTokens("c")).isEqualTo(0);
	}

	@Test
	void oneProvidersOutageCannotSpendAnotherProvidersBucket() {
		TokenBucketRetryBudget budget = budget(new BudgetSettings(20, 0.2, 0), new BudgetSettings(100, 0.2, 0));
		int taken = 0;
		while (budget.tryAcquire("down")) {
			taken++;
		}
		assertThat(taken).isEqualTo(20);
		assertThat(budget.availableTokens("healthy")).isEqualTo(20);
		assertThat(budget.tryAcquire("healthy")).isTrue();
	}

	@Test
	void successfulFirstAttemptsDepositTheRatioInBothBucketsUpToCapacity() {
		TokenBucketRetryBudget budget = budget(new BudgetSettings(2, 0.25, 0), new BudgetSettings(10, 0.5, 0));
		budget.tryAcquire("a");
		budget.tryAcquire("a");
		budget.recordSuccess("a");
		assertThat(budget.providerTokens("a")).isEqualTo(0.25);
		assertThat(budget.globalTokens()).isEqualTo(8.5);
		for (int i = 0; i < 100; i++) {
			budget.recordSuccess("a");
		}
		assertThat(budget.providerTokens("a")).isEqualTo(2);
		assertThat(budget.globalTokens()).isEqualTo(10);
	}

	@Test
	void refillsLazilyByTheFloorPerSecondOfTickerTime() {
		TokenBucketRetryBudget budget = budget(new BudgetSettings(2, 0.2, 1), new BudgetSettings(100, 0.2, 0));
		budget.tryAcquire("a");
		budget.tryAcquire("a");
		assertThat(budget.tryAcquire("a")).isFalse();
		this.clock.advance(Duration.ofMillis(500));
		assertThat(budget.providerTokens("a")).isCloseTo(0.5, within(1e-9));
		assertThat(budget.tryAcquire("a")).isFalse();
		this.clock.advance(Duration.ofMillis(500));
		assertThat(budget.tryAcquire("a")).isTrue();
		this.clock.advance(Duration.ofHours(1));
		assertThat(budget.providerTokens("a")).isEqualTo(2);
	}

	@Test
	void concurrentRetriesNeverExceedInitialTokensPlusDepositsPlusFloorTimesElapsed() throws Exception {
		BudgetSettings provider = new BudgetSettings(20, 0.2, 1);
		BudgetSettings global = new BudgetSettings(60, 0.2, 2);
		TokenBucketRetryBudget budget = budget(provider, global);
		int threads = 16;
		AtomicInteger[] granted = new AtomicInteger[4];
		AtomicInteger[] deposits = new AtomicInteger[4];
		for (int i = 0; i < 4; i++) {
			granted[i] = new AtomicInteger();
			deposits[i] = new AtomicInteger();
		}
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				futures.add(pool.submit(() -> {
					for (int i = 0; i < 2_000; i++) {
						int p = (thread + i) % 4;
						if (i % 7 == 0) {
							budget.recordSuccess("p" + p);
							deposits[p].incrementAndGet();
						}
						if (budget.tryAcquire("p" + p)) {
							granted[p].incrementAndGet();
						}
						if (i % 50 == 0) {
							this.clock.advance(Duration.ofMillis(1));
						}
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		double elapsed = this.clock.elapsed().toNanos() / 1e9;
		int totalGranted = 0;
		int totalDeposits = 0;
		for (int p = 0; p < 4; p++) {
			assertThat((double) granted[p].get()).as("provider p%d", p)
				.isLessThanOrEqualTo(provider.capacity() + provider.depositRatio() * deposits[p].get()
						+ provider.refillPerSecond() * elapsed + 1e-9);
			totalGranted += granted[p].get();
			totalDeposits += deposits[p].get();
		}
		assertThat((double) totalGranted).isLessThanOrEqualTo(
				global.capacity() + global.depositRatio() * totalDeposits + global.refillPerSecond() * elapsed + 1e-9);
		assertThat(totalGranted).isPositive();
	}

	@Test
	void unlimitedAdmitsEverything() {
		RetryBudget unlimited = RetryBudget.unlimited();
		for (int i = 0; i < 1_000; i++) {
			assertThat(unlimited.tryAcquire("a")).isTrue();
		}
		assertThat(unlimited.availableTokens("a")).isInfinite();
		assertThat(unlimited.globalTokens()).isInfinite();
	}

	@Test
	void reportsWhatItsBucketsHoldThroughTheInterfaceAlone() {
		RetryBudget budget = budget(new BudgetSettings(5, 0.2, 0), new BudgetSettings(3, 0.5, 1));
		budget.tryAcquire("a");
		budget.tryAcquire("b");
		budget.tryAcquire("b");
		assertThat(budget.providerTokens("a")).isEqualTo(4);
		assertThat(budget.availableTokens("a")).isEqualTo(0);
		assertThat(budget.globalSettings()).contains(new BudgetSettings(3, 0.5, 1));
	}

	@Test
	void unlimitedReportsNoGlobalBucketAndInfiniteProviderTokens() {
		RetryBudget unlimited = RetryBudget.unlimited();
		assertThat(unlimited.providerTokens("a")).isInfinite();
		assertThat(unlimited.globalSettings()).isEmpty();
	}

	private TokenBucketRetryBudget budget(BudgetSettings provider, BudgetSettings global) {
		return TokenBucketRetryBudget.builder().providerDefaults(provider).global(global).ticker(this.clock).build();
	}

}
