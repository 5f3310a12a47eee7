package io.github.retryafter.bench;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * Benchmark-only: {@link TokenBucketRetryBudget}'s behaviour with each bucket guarded by its own monitor instead of a
 * compare-and-set on an immutable level, so {@link ContentionBenchmark} can compare the two designs under contention.
 * Same buckets (one per provider plus the global one), same order (provider first, then global, giving the provider's
 * token back if the global bucket is empty), same lazy refill and cap; never two monitors held at once. Provider
 * settings are the defaults only: the benchmark configures nothing per provider.
 */
final class LockedRetryBudget implements RetryBudget {

	private final Ticker ticker;

	private final BudgetSettings providerDefaults;

	private final Bucket global;

	private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

	LockedRetryBudget(BudgetSettings providerDefaults, BudgetSettings global, Ticker ticker) {
		this.ticker = ticker;
		this.providerDefaults = providerDefaults;
		this.global = new Bucket(global, ticker.read());
	}

	@Override
	public boolean tryAcquire(String provider) {
		Bucket bucket = bucket(provider);
		long now = this.ticker.read();
		if (!bucket.tryTake(now)) {
			return false;
		}
		if (!this.global.tryTake(now)) {
			bucket.deposit(now, 1.0);
			return false;
		}
		return true;
	}

	@Override
	public void recordSuccess(String provider) {
		long now = this.ticker.read();
		Bucket bucket = bucket(provider);
		bucket.deposit(now, bucket.settings.depositRatio());
		this.global.deposit(now, this.global.settings.depositRatio());
	}

	@Override
	public void refund(String provider) {
		long now = this.ticker.read();
		bucket(provider).deposit(now, 1.0);
		this.global.deposit(now, 1.0);
	}

	@Override
	public double availableTokens(String provider) {
		long now = this.ticker.read();
		return Math.min(bucket(provider).tokens(now), this.global.tokens(now));
	}

	@Override
	public double globalTokens() {
		return this.global.tokens(this.ticker.read());
	}

	private Bucket bucket(String provider) {
		Objects.requireNonNull(provider, "provider");
		Bucket bucket = this.buckets.get(provider);
		if (bucket != null) {
			return bucket;
		}
		return this.buckets.computeIfAbsent(provider, (name) -> new Bucket(this.providerDefaults, this.ticker.read()));
	}

	/** One bucket: a mutable level guarded by the bucket's own monitor. */
	private static final class Bucket {

		private static final double NANOS_PER_SECOND = 1_000_000_000.0;

		final BudgetSettings settings;

		private double tokens;

		private long atNanos;

		Bucket(BudgetSettings settings, long nowNanos) {
			this.settings = settings;
			this.tokens = settings.capacity();
			this.atNanos = nowNanos;
		}

		/** Brings the level to {@code now}: refilled by the floor, capped; never moves its reading backwards. */
		private void refill(long now) {
			this.tokens = tokensAt(now);
			this.atNanos = (now - this.atNanos > 0) ? now : this.atNanos;
		}

		synchronized double tokens(long now) {
			return tokensAt(now);
		}

		private double tokensAt(long now) {
			long elapsed = now - this.atNanos;
			if (elapsed <= 0 || this.settings.refillPerSecond() == 0) {
				return this.tokens;
			}
			return Math.min(this.settings.capacity(),
					this.tokens + this.settings.refillPerSecond() * (elapsed / NANOS_PER_SECOND));
		}

		synchronized boolean tryTake(long now) {
			double available = tokensAt(now);
			if (available < 1.0) {
				return false; // like the lock-free bucket, a refusal writes nothing
			}
			this.tokens = available - 1.0;
			this.atNanos = (now - this.atNanos > 0) ? now : this.atNanos;
			return true;
		}

		synchronized void deposit(long now, double amount) {
			if (amount == 0) {
				return;
			}
			refill(now);
			this.tokens = Math.min(this.settings.capacity(), this.tokens + amount);
		}

	}

}
