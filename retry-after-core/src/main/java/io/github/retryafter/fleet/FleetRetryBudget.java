package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * A {@link RetryBudget} shared by a fleet through a {@link FleetStore}, with the semantics of
 * {@link TokenBucketRetryBudget} fleet-wide: only a retry on a thread that may block makes a round trip; deposits and
 * refunds are batched; a retry on an event loop takes a token leased by demand; while the store is away (or a key is
 * not the fleet's) each bucket is this instance's share of the last level, never a fresh bucket, and what was spent
 * is sent when it rejoins. Per-origin scopes and unconfigured providers use a local budget of this instance. Like
 * every budget it bounds the retries a provider did not ask for: a retry the provider asked for, held by its gate,
 * is not asked (see {@link io.github.retryafter.budget.HintedRetries}), and the fleet's shared cooldown and probe bound
 * those instead. docs/fleet.md states the rules, their bounds and their figures. Thread-safe.
 */
public final class FleetRetryBudget implements RetryBudget, FleetStore.Participant {

	/** The most tokens one exchange leases: a few retries' worth, so no instance sits on the fleet's tokens. */
	public static final long MAX_LEASE = 4;

	/**
	 * How long pooled tokens stay with an instance after one of its retries found none: long enough for the waiting
	 * retries to ask again (at most every 100 ms), short enough that tokens no retry here wants soon go back.
	 */
	public static final Duration KEEP_FOR = Duration.ofMillis(200);

	/**
	 * How long what the fleet's members hold, as the last exchange read it, counts as known: a retry that finds no
	 * token decides on it whether to wait or give up; with an older reading it asks first. Twice the longest interval
	 * a waiting retry asks at, so the answer to one ask is still known at the next.
	 */
	public static final Duration FRESH_FOR = Duration.ofMillis(200);

	/** How long a token a successful retry gave back stays with its instance, for that instance's next retry. */
	public static final Duration REFUND_KEEP_FOR = Duration.ofMillis(20);

	private final FleetStore store;

	// the store's runtime: whether it is shared now, the fleet's size, the store's thread, the key fallbacks
	private final FleetRuntime runtime;

	private final Ticker ticker;

	private final BooleanSupplier mayBlock;

	private final BudgetSettings globalSettings;

	private final SharedBucket global;

	// one per configured provider, fixed at construction
	private final Map<String, SharedBucket> providers;

	// guards every bucket's share, debt and lease bookkeeping; held for a few arithmetic operations, never across I/O
	private final Object lock = new Object();

	private final AtomicBoolean flushRequested = new AtomicBoolean();

	private final Leases leases;

	// per origin and unconfigured providers: never shared, never replaced, at most maxOrigins origins (LRU)
	private final TokenBucketRetryBudget unconfigured;

	FleetRetryBudget(FleetStore store, BudgetSettings global, Map<String, BudgetSettings> providers, Ticker ticker,
			int maxOrigins, BooleanSupplier mayBlock) {
		this.store = store;
		this.runtime = store.runtime();
		this.ticker = ticker;
		this.mayBlock = mayBlock;
		this.globalSettings = global;
		long now = ticker.read();
		this.global = new SharedBucket(FleetBucket.ofGlobal(global), now);
		Map<String, SharedBucket> buckets = new LinkedHashMap<>();
		providers.forEach((name, settings) -> buckets.put(name,
				new SharedBucket(FleetBucket.ofProvider(name, settings), now)));
		this.providers = Map.copyOf(buckets);
		this.leases = new Leases(this, store, ticker, this.lock, this.global);
		TokenBucketRetryBudget.Builder local = TokenBucketRetryBudget.builder()
			.ticker(ticker)
			.global(global)
			.maxOrigins(maxOrigins);
		providers.forEach(local::provider);
		this.unconfigured = local.build();
		this.runtime.register(this);
	}

	/**
	 * Starts a builder.
	 * @param store this instance's link to the fleet's store
	 * @return the builder
	 */
	public static FleetRetryBudgetBuilder builder(FleetStore store) {
		return new FleetRetryBudgetBuilder(store);
	}

	@Override
	public boolean tryAcquire(String provider) {
		SharedBucket bucket = configured(provider);
		if (bucket == null) {
			return this.unconfigured.tryAcquire(provider);
		}
		boolean taken = take(bucket);
		if (taken) {
			bucket.inFlight.incrementAndGet();
		}
		return taken;
	}

	private boolean take(SharedBucket bucket) {
		if (this.leases.takeFromPool(bucket)) {
			// a token leased from the fleet, or given back by a retry here that succeeded: the fleet's count is unchanged
			return true;
		}
		boolean mayBlock = this.mayBlock.getAsBoolean();
		if (shared(bucket) && !mayBlock && this.runtime.instances() > 1) {
			// no round trip on an event loop, and other instances share the bucket: ask the fleet for a token and let
			// the retry wait for it (alone, an instance's share is the whole bucket, and it decides on it at once)
			this.leases.want(bucket);
			return false;
		}
		if (shared(bucket) && mayBlock) {
			Optional<FleetStore.Acquired> reply = this.store.acquire(bucket.id, this.global.id);
			if (reply.isPresent()) {
				long now = this.ticker.read();
				boolean providerRead = read(bucket, reply.get().provider(), now);
				boolean globalRead = read(this.global, reply.get().global(), now);
				if (providerRead && globalRead) {
					return reply.get().taken();
				}
			}
		}
		boolean taken = takeLocally(bucket);
		if (taken && this.runtime.shared()) {
			requestFlush();
		}
		return taken;
	}

	@Override
	public void recordSuccess(String provider) {
		SharedBucket bucket = configured(provider);
		if (bucket == null) {
			this.unconfigured.recordSuccess(provider);
		}
		else if (shared(bucket)) {
			bucket.successes.increment();
			if (tokensShort(bucket)) {
				// the fleet is short of tokens: the deposit goes out with the next round trip, not the next interval
				requestFlush();
			}
		}
		else {
			gainLocally(bucket, bucket.settings.depositRatio(), this.globalSettings.depositRatio());
		}
	}

	/**
	 * Gives back the token a retry took, once its attempt succeeded: to this instance's pool at once (for its next
	 * retry), and to the fleet with the next exchange unless a retry here wants it.
	 * @param provider the provider the retry went to
	 */
	@Override
	public void refund(String provider) {
		SharedBucket bucket = configured(provider);
		if (bucket == null) {
			this.unconfigured.refund(provider);
			return;
		}
		bucket.landed();
		if (shared(bucket)) {
			this.leases.refunded(bucket);
		}
		else {
			gainLocally(bucket, 1, 1);
		}
	}

	@Override
	public double availableTokens(String provider) {
		SharedBucket bucket = configured(provider);
		if (bucket == null) {
			return this.unconfigured.availableTokens(provider);
		}
		long now = this.ticker.read();
		// a volatile read: every request reads what a retry could take, and takes no lock for it
		long pooled = bucket.pool;
		if (shared(bucket)) {
			// tokens in this instance's pool are this instance's: a retry takes one of them first
			return Math.min(Math.min(bucket.settings.capacity(), bucket.estimate(now) + pooled),
					this.global.estimate(now) + pooled);
		}
		synchronized (this.lock) {
			int instances = this.runtime.instances();
			return Math.min(bucket.share(now, instances), this.global.share(now, instances)) + pooled;
		}
	}

	@Override
	public boolean tryAcquire(Scope scope) {
		return scope.perOrigin() ? this.unconfigured.tryAcquire(scope) : tryAcquire(scope.provider());
	}

	@Override
	public void recordSuccess(Scope scope) {
		if (scope.perOrigin()) {
			this.unconfigured.recordSuccess(scope);
		}
		else {
			recordSuccess(scope.provider());
		}
	}

	@Override
	public void refund(Scope scope) {
		if (scope.perOrigin()) {
			this.unconfigured.refund(scope);
		}
		else {
			refund(scope.provider());
		}
	}

	@Override
	public void settle(Scope scope) {
		SharedBucket bucket = scope.perOrigin() ? null : configured(scope.provider());
		if (bucket == null) {
			this.unconfigured.settle(scope);
		}
		else {
			bucket.landed();
		}
	}

	/**
	 * Returns how many tokens may still come to a retry to {@code scope} that finds none: this instance's retries in
	 * flight, plus one while a lease is on its way, the fleet's buckets had tokens at the last reading, or the fleet's
	 * members hold some (decided on a reading no older than {@link #FRESH_FOR}; an older one is refreshed first).
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the count
	 */
	@Override
	public int pendingTokens(Scope scope) {
		SharedBucket bucket = scope.perOrigin() ? null : configured(scope.provider());
		if (bucket == null) {
			return this.unconfigured.pendingTokens(scope);
		}
		int inFlight = bucket.inFlight.get();
		if (!shared(bucket)) {
			return inFlight;
		}
		return inFlight + this.leases.pending(bucket);
	}

	@Override
	public double availableTokens(Scope scope) {
		return scope.perOrigin() ? this.unconfigured.availableTokens(scope) : availableTokens(scope.provider());
	}

	@Override
	public double globalTokens() {
		long now = this.ticker.read();
		if (this.runtime.shared() && !this.global.bad.get()) {
			return this.global.estimate(now);
		}
		synchronized (this.lock) {
			return this.global.share(now, this.runtime.instances());
		}
	}

	/**
	 * Returns the tokens in {@code provider}'s own bucket, as last read from the store plus the floor's refill since,
	 * or this instance's share of it while it decides locally.
	 * @param provider the provider
	 * @return the tokens
	 */
	@Override
	public double providerTokens(String provider) {
		SharedBucket bucket = configured(provider);
		if (bucket == null) {
			return this.unconfigured.providerTokens(provider);
		}
		long now = this.ticker.read();
		if (this.runtime.shared() && !bucket.bad.get()) {
			return bucket.estimate(now);
		}
		synchronized (this.lock) {
			return bucket.share(now, this.runtime.instances());
		}
	}

	/**
	 * Returns the global bucket's settings.
	 * @return the settings, always present
	 */
	@Override
	public Optional<BudgetSettings> globalSettings() {
		return Optional.of(this.globalSettings);
	}

	/**
	 * Returns the store this budget is shared through.
	 * @return the store
	 */
	public FleetStore store() {
		return this.store;
	}

	/**
	 * Sends the batched deposits and refunds, less this instance's debts, and reads every bucket back; then gives back
	 * pooled tokens no retry here wanted lately. A bucket whose key is not valid is not written: what was meant for it
	 * stays with this instance.
	 */
	@Override
	public void sync() {
		List<SharedBucket> order = new ArrayList<>(this.providers.size() + 1);
		order.add(this.global);
		order.addAll(this.providers.values());
		double[] gained = new double[order.size()];
		for (int i = 1; i < order.size(); i++) {
			long successes = order.get(i).successes.sumThenReset();
			gained[i] = successes * order.get(i).settings.depositRatio();
			gained[0] += successes * this.globalSettings.depositRatio();
		}
		double[] debts = new double[order.size()];
		synchronized (this.lock) {
			for (int i = 0; i < order.size(); i++) {
				debts[i] = order.get(i).debt;
				order.get(i).debt = 0;
			}
		}
		List<FleetStore.Deposit> deposits = new ArrayList<>(order.size());
		for (int i = 0; i < order.size(); i++) {
			// on their way: a retry that finds no token counts them until the reading below includes them
			order.get(i).sending = gained[i];
			deposits.add(new FleetStore.Deposit(order.get(i).id, gained[i] - debts[i]));
		}
		Optional<List<OptionalDouble>> reply = this.store.deposit(deposits);
		long now = this.ticker.read();
		for (int i = 0; i < order.size(); i++) {
			SharedBucket bucket = order.get(i);
			boolean applied = reply.isPresent() && reply.get().size() > i && read(bucket, reply.get().get(i), now);
			bucket.sending = 0;
			if (!applied) {
				// not sent, or not applied to a key that is not valid: this instance keeps what it gained and owes
				synchronized (this.lock) {
					int instances = this.runtime.instances();
					bucket.share(now, instances);
					bucket.debt += debts[i];
					bucket.gain(gained[i], instances);
				}
			}
		}
		this.leases.returnUnwanted(this.providers.values());
	}

	@Override
	public void onFallback() {
		// each bucket's share carries on from the last reading: nothing is refilled by falling back; tokens leased
		// before stay in this instance's pool, for its retries, and go back to the fleet once it is back
	}

	@Override
	public void onRejoin() {
		this.global.forget();
		for (SharedBucket bucket : this.providers.values()) {
			bucket.forget();
		}
		sync();
	}

	/** Whether the fleet was short of tokens for {@code bucket} at the last reading: it, or the global bucket, under one. */
	private boolean tokensShort(SharedBucket bucket) {
		long now = this.ticker.read();
		return Math.min(bucket.estimate(now), this.global.estimate(now)) < 1;
	}

	private SharedBucket configured(String provider) {
		return this.providers.get(Objects.requireNonNull(provider, "provider"));
	}

	/** Whether decisions for {@code bucket} go to the store: it is shared and both keys are valid. */
	boolean shared(SharedBucket bucket) {
		return this.runtime.shared() && !bucket.bad.get() && !this.global.bad.get();
	}

	/**
	 * Records a bucket's level read from the store, or that its key is not valid (reported once per episode).
	 * @return whether the level was a valid reading
	 */
	boolean read(SharedBucket bucket, OptionalDouble tokens, long now) {
		if (tokens.isEmpty()) {
			if (bucket.bad.compareAndSet(false, true)) {
				this.runtime.keys().bucketInvalid(bucket.id);
			}
			return false;
		}
		if (bucket.bad.compareAndSet(true, false)) {
			this.runtime.keys().bucketValid(bucket.id);
		}
		synchronized (this.lock) {
			bucket.read(tokens.getAsDouble(), now, this.runtime.instances());
		}
		return true;
	}

	private boolean takeLocally(SharedBucket bucket) {
		long now = this.ticker.read();
		synchronized (this.lock) {
			int instances = this.runtime.instances();
			if (bucket.share(now, instances) < 1 || this.global.share(now, instances) < 1) {
				return false;
			}
			bucket.share -= 1;
			bucket.debt += 1;
			this.global.share -= 1;
			this.global.debt += 1;
			return true;
		}
	}

	private void gainLocally(SharedBucket bucket, double providerAmount, double globalAmount) {
		long now = this.ticker.read();
		synchronized (this.lock) {
			int instances = this.runtime.instances();
			bucket.share(now, instances);
			this.global.share(now, instances);
			bucket.gain(providerAmount, instances);
			this.global.gain(globalAmount, instances);
		}
	}

	void requestFlush() {
		if (this.flushRequested.compareAndSet(false, true)) {
			this.runtime.submit(() -> {
				this.flushRequested.set(false);
				if (this.runtime.shared()) {
					sync();
				}
			});
		}
	}

	@Override
	public String toString() {
		return "FleetRetryBudget[store=" + this.store + ", global=" + this.globalSettings + ", providers="
				+ this.providers.keySet() + ", shared=" + this.runtime.shared() + "]";
	}

}
