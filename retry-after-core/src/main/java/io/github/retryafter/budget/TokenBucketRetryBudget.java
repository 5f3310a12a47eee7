package io.github.retryafter.budget;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.internal.BoundedLru;

/**
 * A {@link RetryBudget} of token buckets: one per provider, plus a global bucket shared by every provider that caps the
 * client as a whole. One provider's outage empties its own bucket and can take from the global one only what that
 * bucket allows, so other providers keep their own tokens.
 * <p>
 * Buckets start full and refill lazily, when read: by the per-second floor times the time elapsed on the injected
 * {@link Ticker}, by a deposit for each successful first attempt, and by the token a successful retry gives back
 * ({@link #refund}), never beyond capacity. So the retries one bucket admits that did not succeed (failed, or still in
 * flight) never exceed {@code capacity + deposits + refillPerSecond × elapsed}: each refund matches one success.
 * <p>
 * Thread-safe without a lock: each bucket holds an immutable level in an {@link AtomicReference} updated by
 * compare-and-set, so threads retrying different providers touch different memory except for the global bucket's one
 * reference. Taking a token takes the provider's first, then the global one, and gives the provider's back if the
 * global bucket is empty. Provider buckets are created on first use from {@link Builder#providerDefaults} unless
 * configured; provider names are expected to come from configuration (a bounded set), never from URLs.
 * <p>
 * A {@link Scope} that names an origin gets a bucket of its own, with its provider's settings, under the same global
 * bucket. Scope: this budget. Bound: at most {@link Builder#maxOrigins} origin buckets (default
 * {@value #DEFAULT_MAX_ORIGINS}); past it the least recently used is forgotten, and an origin forgotten starts again
 * from a full bucket, so a client that meets ever new hosts never holds more than the bound.
 */
public final class TokenBucketRetryBudget implements RetryBudget {

	/** How many origin buckets a budget holds unless told otherwise. */
	public static final int DEFAULT_MAX_ORIGINS = 1000;

	private final Ticker ticker;

	private final BudgetSettings providerDefaults;

	private final Map<String, BudgetSettings> providerSettings;

	private final Bucket global;

	// per configured provider: bounded by configuration
	private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

	// per origin of the providers that keep state per origin: at most maxOrigins, least recently used forgotten
	private final BoundedLru<Scope, Bucket> origins;

	private TokenBucketRetryBudget(Builder builder) {
		this.ticker = builder.ticker;
		this.providerDefaults = builder.providerDefaults;
		this.providerSettings = Map.copyOf(builder.providers);
		this.global = new Bucket(builder.global, this.ticker.read());
		this.origins = new BoundedLru<>(builder.maxOrigins,
				(scope) -> new Bucket(settingsFor(scope.provider()), this.ticker.read()));
	}

	/**
	 * Returns a builder with the documented defaults ({@link BudgetSettings#PROVIDER_DEFAULTS},
	 * {@link BudgetSettings#GLOBAL_DEFAULTS}) and the system ticker.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public boolean tryAcquire(String provider) {
		return take(bucket(provider));
	}

	@Override
	public boolean tryAcquire(Scope scope) {
		return take(bucket(scope));
	}

	private boolean take(Bucket bucket) {
		long now = this.ticker.read();
		if (!bucket.tryTake(now)) {
			return false;
		}
		if (!this.global.tryTake(now)) {
			bucket.deposit(now, 1.0);
			return false;
		}
		bucket.inFlight.incrementAndGet();
		return true;
	}

	@Override
	public void recordSuccess(String provider) {
		deposit(bucket(provider));
	}

	@Override
	public void recordSuccess(Scope scope) {
		deposit(bucket(scope));
	}

	private void deposit(Bucket bucket) {
		if (bucket.full() && this.global.full()) {
			// a healthy provider's success: both full, and a deposit could not raise them, so the ticker is not read
			return;
		}
		long now = this.ticker.read();
		bucket.deposit(now, bucket.settings.depositRatio());
		this.global.deposit(now, this.global.settings.depositRatio());
	}

	/**
	 * Gives back the token a successful retry took, to the provider's bucket and the global one, never beyond
	 * capacity.
	 * @param provider the provider the retry went to
	 */
	@Override
	public void refund(String provider) {
		giveBack(bucket(provider));
	}

	@Override
	public void refund(Scope scope) {
		giveBack(bucket(scope));
	}

	private void giveBack(Bucket bucket) {
		long now = this.ticker.read();
		bucket.giveBack(now);
		this.global.giveBack(now);
	}

	/**
	 * Records that a retry to {@code scope} ended without success: its token stays spent and it is no longer in
	 * flight.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 */
	@Override
	public void settle(Scope scope) {
		bucket(scope).landed();
	}

	/**
	 * Returns how many retries to {@code scope} hold a token while their attempts are in flight (an origin bucket
	 * forgotten meanwhile starts again from zero).
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the count
	 */
	@Override
	public int pendingTokens(Scope scope) {
		return bucket(scope).inFlight.get();
	}

	@Override
	public double availableTokens(String provider) {
		return available(bucket(provider));
	}

	@Override
	public double availableTokens(Scope scope) {
		return available(bucket(scope));
	}

	private double available(Bucket bucket) {
		Level own = bucket.level.get();
		Level shared = this.global.level.get();
		if (bucket.full(own) && this.global.full(shared)) {
			// a full level reads the same at any instant (refills stop at capacity), so the ticker is not read
			return Math.min(own.tokens(), shared.tokens());
		}
		long now = this.ticker.read();
		return Math.min(bucket.tokensAt(own, now), this.global.tokensAt(shared, now));
	}

	/**
	 * Returns how many origin buckets are held now.
	 * @return the count, at most {@link Builder#maxOrigins}
	 */
	public int originBuckets() {
		return this.origins.size();
	}

	@Override
	public double globalTokens() {
		return this.global.tokens(this.ticker.read());
	}

	@Override
	public double providerTokens(String provider) {
		return bucket(provider).tokens(this.ticker.read());
	}

	/**
	 * Returns the settings of {@code provider}'s bucket.
	 * @param provider the provider
	 * @return its settings, or the provider defaults when it has none of its own
	 */
	public BudgetSettings settingsFor(String provider) {
		return this.providerSettings.getOrDefault(provider, this.providerDefaults);
	}

	/**
	 * Returns the global bucket's settings.
	 * @return the settings, always present
	 */
	@Override
	public Optional<BudgetSettings> globalSettings() {
		return Optional.of(this.global.settings);
	}

	private Bucket bucket(Scope scope) {
		return scope.perOrigin() ? this.origins.get(scope) : bucket(scope.provider());
	}

	private Bucket bucket(String provider) {
		Objects.requireNonNull(provider, "provider");
		Bucket bucket = this.buckets.get(provider);
		if (bucket != null) {
			return bucket;
		}
		return this.buckets.computeIfAbsent(provider, (name) -> new Bucket(settingsFor(name), this.ticker.read()));
	}

	@Override
	public String toString() {
		return "TokenBucketRetryBudget[global=" + this.global.settings + ", providerDefaults=" + this.providerDefaults
				+ ", providers=" + this.providerSettings.keySet() + "]";
	}

	/** An immutable bucket level at a ticker reading. */
	private record Level(double tokens, long atNanos) {
	}

	/** One bucket: lock-free, compare-and-set on an immutable level. */
	private static final class Bucket {

		private static final double NANOS_PER_SECOND = 1_000_000_000.0;

		private final BudgetSettings settings;

		private final AtomicReference<Level> level;

		// retries that took a token and have no answer yet: the ones whose success would give it back
		private final AtomicInteger inFlight = new AtomicInteger();

		Bucket(BudgetSettings settings, long nowNanos) {
			this.settings = settings;
			this.level = new AtomicReference<>(new Level(settings.capacity(), nowNanos));
		}

		/**
		 * The tokens at {@code now}: refilled by the floor, capped. Computed without allocating, so a read (every
		 * request's) costs nothing; only a write allocates the next level.
		 */
		private double tokensAt(Level current, long now) {
			long elapsed = now - current.atNanos();
			if (elapsed <= 0 || this.settings.refillPerSecond() == 0) {
				return current.tokens();
			}
			return Math.min(this.settings.capacity(),
					current.tokens() + this.settings.refillPerSecond() * (elapsed / NANOS_PER_SECOND));
		}

		/** The reading a new level is stamped with: never moves backwards. */
		private static long readingAt(Level current, long now) {
			return (now - current.atNanos() > 0) ? now : current.atNanos();
		}

		double tokens(long now) {
			return tokensAt(this.level.get(), now);
		}

		/** Whether the bucket is at capacity now: then it holds its capacity whatever the ticker reads. */
		boolean full() {
			return full(this.level.get());
		}

		boolean full(Level current) {
			return current.tokens() >= this.settings.capacity();
		}

		boolean tryTake(long now) {
			while (true) {
				Level current = this.level.get();
				double tokens = tokensAt(current, now);
				if (tokens < 1.0) {
					return false;
				}
				if (this.level.compareAndSet(current, new Level(tokens - 1.0, readingAt(current, now)))) {
					return true;
				}
			}
		}

		/** A retry's token back: its attempt succeeded, so it is no longer in flight. */
		void giveBack(long now) {
			deposit(now, 1.0);
			landed();
		}

		/** A retry that held a token is no longer in flight; never below zero. */
		void landed() {
			this.inFlight.updateAndGet((count) -> (count > 0) ? count - 1 : 0);
		}

		void deposit(long now, double amount) {
			if (amount == 0) {
				return;
			}
			while (true) {
				Level current = this.level.get();
				if (full(current)) {
					// full: the level stays full whatever its stamp (time only moves it on), so nothing is written and
					// the success path of a healthy provider allocates nothing and contends on nothing
					return;
				}
				Level next = new Level(Math.min(this.settings.capacity(), tokensAt(current, now) + amount),
						readingAt(current, now));
				if (this.level.compareAndSet(current, next)) {
					return;
				}
			}
		}

	}

	/**
	 * Builds a {@link TokenBucketRetryBudget}. Not thread-safe.
	 */
	public static final class Builder {

		private BudgetSettings providerDefaults = BudgetSettings.PROVIDER_DEFAULTS;

		private BudgetSettings global = BudgetSettings.GLOBAL_DEFAULTS;

		private final Map<String, BudgetSettings> providers = new ConcurrentHashMap<>();

		private Ticker ticker = Ticker.system();

		private int maxOrigins = DEFAULT_MAX_ORIGINS;

		private Builder() {
		}

		/**
		 * Sets how many origin buckets the budget holds at most; past it the least recently used is forgotten.
		 * @param maxOrigins the bound, at least 1
		 * @return this builder
		 * @throws IllegalArgumentException if {@code maxOrigins} is below 1
		 */
		public Builder maxOrigins(int maxOrigins) {
			this.maxOrigins = BoundedLru.checkCapacity(maxOrigins, "maxOrigins");
			return this;
		}

		/**
		 * Sets the bucket every provider without settings of its own gets.
		 * @param settings the settings
		 * @return this builder
		 */
		public Builder providerDefaults(BudgetSettings settings) {
			this.providerDefaults = Objects.requireNonNull(settings, "providerDefaults");
			return this;
		}

		/**
		 * Sets one provider's bucket.
		 * @param provider the provider name
		 * @param settings its settings
		 * @return this builder
		 */
		public Builder provider(String provider, BudgetSettings settings) {
			Objects.requireNonNull(provider, "provider");
			this.providers.put(provider, Objects.requireNonNull(settings, "settings"));
			return this;
		}

		/**
		 * Sets the global bucket shared by all providers.
		 * @param settings the settings
		 * @return this builder
		 */
		public Builder global(BudgetSettings settings) {
			this.global = Objects.requireNonNull(settings, "global");
			return this;
		}

		/**
		 * Sets the monotonic clock refills are measured on.
		 * @param ticker the ticker
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Builds the budget; every bucket starts full.
		 * @return the budget
		 */
		public TokenBucketRetryBudget build() {
			return new TokenBucketRetryBudget(this);
		}

	}

}
