package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * A {@link RetryBudget} shared by a fleet through Redis, with the semantics of {@link TokenBucketRetryBudget}: one
 * bucket per configured provider under a global bucket, buckets start full, a successful first attempt deposits its
 * provider's deposit ratio, a retry takes one token from its provider's bucket and one from the global bucket or
 * neither, a retry whose attempt succeeds gives both back ({@link #refund}), and every bucket regains its per-second
 * floor of tokens as time passes, never beyond capacity. The arithmetic runs atomically on Redis, on Redis's clock
 * ({@link FleetScript#ACQUIRE}, {@link FleetScript#SYNC}).
 * <p>
 * Only a retry decision makes a round trip ({@link #tryAcquire}), and only on a thread that may block. Deposits from
 * original requests, and refunds of retries that succeeded, are counted locally and sent by the fleet's background
 * thread every flush interval, which also reads every bucket back: {@link #availableTokens} answers from those
 * readings plus the floor's refill since, without a round trip, so it may be one flush interval stale.
 * <p>
 * <b>Local decisions spend this instance's share, and Redis is told.</b> A decision is made locally when the fleet is
 * not on Redis ({@link RedisFleet.State}), when a bucket's key holds a value that is not the fleet's, or when the
 * caller is on a thread that must not block (a Reactor event loop or parallel thread: see
 * {@link RedisFleet#mayBlock()}). Each bucket then has a local <em>share</em>: the last level read from Redis divided
 * by the fleet's instances ({@link RedisFleet#instances()}), refilled at the floor divided likewise, never above the
 * capacity divided likewise. It is never a fresh, full bucket: a fallback continues from the last reading, so a link
 * that flaps hands out nothing new, and N instances deciding locally at once spend together at most what the shared
 * bucket held. What an instance takes locally (less what its successes and refunds gave back) is its debt, sent to
 * Redis by the next flush (at once after a non-blocking decision, at the rejoin after a fallback), which the shared
 * bucket pays, never below zero. Before the first reading (Redis unreachable at startup) the share is the full
 * capacity, as a local budget's would be.
 * <p>
 * <b>Tokens go where the retries are.</b> With other instances in the fleet, a retry decided on an event loop takes a
 * token this instance holds on lease: leased from the shared buckets by demand ({@link FleetScript#LEASE}, at most
 * {@link #MAX_LEASE} per round trip, on the background thread), or given back by a retry here that succeeded. Pooled
 * tokens stay {@link #KEEP_FOR} after a retry here last wanted one ({@link #REFUND_KEEP_FOR} after a refund), then go
 * back. What each instance holds (pooled or in flight) is recorded in {@code {prefix}:leases:<provider>}, one field
 * per instance, dropped once the instance stops counting as a member (its tokens then stay spent); a retry that finds
 * no token waits while a lease is on its way, its instance's own retries hold tokens in flight, or the fleet's members
 * hold some ({@link #pendingTokens}). Tokens on lease are taken from the buckets, so the fleet never spends more than
 * the buckets held.
 * <p>
 * Providers that are not configured (never the case for requests routed by the starter), and scopes that name an
 * origin (the {@code default} provider's, or a provider's that keeps its state per origin), always use a local
 * {@link TokenBucketRetryBudget} of this instance (at most {@code maxOrigins} origin buckets, least recently used
 * forgotten), so a key never holds a name that did not come from configuration and the fleet's keys are fixed by
 * configuration.
 * <p>
 * Thread-safe.
 */
public final class RedisRetryBudget implements RetryBudget, RedisFleet.Participant {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	/** The most tokens one exchange leases: a few retries' worth, so no instance sits on the fleet's tokens. */
	static final long MAX_LEASE = 4;

	/**
	 * How long pooled tokens stay with an instance after one of its retries found none: long enough for the waiting
	 * retries to ask again (at most every 100 ms), short enough that tokens no retry here wants soon go back.
	 */
	static final Duration KEEP_FOR = Duration.ofMillis(200);

	/**
	 * How long what the fleet's members hold, as the last exchange read it, counts as known. A retry that finds no token
	 * decides on it whether to wait (the others hold tokens that may come back) or to give up; with an older reading it
	 * asks the fleet first (one round trip on the fleet's thread) and waits for the answer, so it neither gives up
	 * while the others' tokens are on their way back nor waits for tokens the others no longer hold. Twice the longest
	 * interval a waiting retry asks at, so the answer to one ask is still known at the next.
	 */
	static final Duration FRESH_FOR = Duration.ofMillis(200);

	/** How long a token a successful retry gave back stays with its instance, for that instance's next retry. */
	static final Duration REFUND_KEEP_FOR = Duration.ofMillis(20);

	private final RedisFleet fleet;

	private final Ticker ticker;

	private final BudgetSettings globalSettings;

	private final Map<String, BudgetSettings> providerSettings;

	private final Bucket global;

	// one per configured provider, fixed at construction
	private final Map<String, Bucket> providers;

	// guards every bucket's share and debt; held for a few arithmetic operations, never across I/O
	private final Object lock = new Object();

	private final byte[] ttlMillis;

	private final AtomicBoolean flushRequested = new AtomicBoolean();

	// providers that are not configured: never shared, and never replaced, so a fallback refills nothing
	private final TokenBucketRetryBudget unconfigured;

	/**
	 * Creates the budget and registers it with the fleet.
	 * @param fleet the fleet's link to Redis
	 * @param global the global bucket's settings
	 * @param providers every configured provider's bucket settings
	 * @param ticker the monotonic clock of the local shares and of the local estimates
	 */
	public RedisRetryBudget(RedisFleet fleet, BudgetSettings global, Map<String, BudgetSettings> providers,
			Ticker ticker) {
		this(fleet, global, providers, ticker, TokenBucketRetryBudget.DEFAULT_MAX_ORIGINS);
	}

	/**
	 * Creates the budget and registers it with the fleet.
	 * @param fleet the fleet's link to Redis
	 * @param global the global bucket's settings
	 * @param providers every configured provider's bucket settings
	 * @param ticker the monotonic clock of the local shares and of the local estimates
	 * @param maxOrigins how many origin buckets this instance keeps at most (they are never shared)
	 */
	public RedisRetryBudget(RedisFleet fleet, BudgetSettings global, Map<String, BudgetSettings> providers,
			Ticker ticker, int maxOrigins) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.globalSettings = Objects.requireNonNull(global, "global");
		this.providerSettings = Map.copyOf(providers);
		long now = ticker.read();
		// the global bucket is leased together with a provider's, under that provider's leases key: it has none
		this.global = new Bucket(global, fleet.key("budget", "global"), null, now);
		Map<String, Bucket> buckets = new LinkedHashMap<>();
		// the global bucket's key is "prefix:budget:global"; a provider of that name gets a distinct key
		providers.forEach((name, settings) -> {
			String key = "global".equals(name) ? "provider-global" : name;
			buckets.put(name, new Bucket(settings, fleet.key("budget", key), fleet.key("leases", key), now));
		});
		this.providers = Map.copyOf(buckets);
		this.ttlMillis = number(fleet.settings().keyTtl().toMillis());
		TokenBucketRetryBudget.Builder builder = TokenBucketRetryBudget.builder()
			.ticker(ticker)
			.global(global)
			.maxOrigins(maxOrigins);
		providers.forEach(builder::provider);
		this.unconfigured = builder.build();
		fleet.register(this);
	}

	@Override
	public boolean tryAcquire(String provider) {
		Bucket bucket = configured(provider);
		if (bucket == null) {
			return this.unconfigured.tryAcquire(provider);
		}
		boolean taken = take(bucket);
		if (taken) {
			bucket.inFlight.incrementAndGet();
		}
		return taken;
	}

	private boolean take(Bucket bucket) {
		if (takeFromPool(bucket)) {
			// a token leased from the fleet, or given back by a retry here that succeeded, not yet returned: this
			// retry takes it, and the fleet's count is unchanged
			return true;
		}
		if (shared(bucket) && !RedisFleet.mayBlock() && this.fleet.instances() > 1) {
			// no round trip on an event loop, and other instances share the bucket: ask the fleet for a token and let
			// the retry wait for it (alone, an instance's share is the whole bucket, and it decides on it at once)
			wantToken(bucket);
			return false;
		}
		if (shared(bucket)) {
			Optional<List<Object>> reply = this.fleet.execute(FleetScript.ACQUIRE,
					new byte[][] { bucket.key, this.global.key }, this.ttlMillis, number(bucket.settings.capacity()),
					number(bucket.settings.refillPerSecond()), number(this.globalSettings.capacity()),
					number(this.globalSettings.refillPerSecond()));
			if (reply.isPresent()) {
				long now = this.ticker.read();
				boolean providerRead = read(bucket, Replies.decimal(reply.get(), 1), now);
				boolean globalRead = read(this.global, Replies.decimal(reply.get(), 2), now);
				if (providerRead && globalRead) {
					return Replies.text(reply.get(), 0).filter("1"::equals).isPresent();
				}
			}
		}
		boolean taken = takeLocally(bucket);
		if (taken && this.fleet.onRedis()) {
			requestFlush();
		}
		return taken;
	}

	@Override
	public void recordSuccess(String provider) {
		Bucket bucket = configured(provider);
		if (bucket == null) {
			this.unconfigured.recordSuccess(provider);
		}
		else if (shared(bucket)) {
			bucket.successes.increment();
			if (tokensShort(bucket)) {
				// the fleet is short of tokens: the deposit goes out with the next round trip, not the next interval,
				// so retries waiting anywhere in the fleet see it
				requestFlush();
			}
		}
		else {
			gainLocally(bucket, bucket.settings.depositRatio(), this.globalSettings.depositRatio());
		}
	}

	/**
	 * Gives back the token a retry took, once its attempt succeeded: one to its provider's bucket and one to the
	 * global bucket, batched like deposits.
	 * @param provider the provider the retry went to
	 */
	@Override
	public void refund(String provider) {
		Bucket bucket = configured(provider);
		if (bucket == null) {
			this.unconfigured.refund(provider);
			return;
		}
		bucket.landed();
		if (shared(bucket)) {
			// the token goes back to this instance's pool at once, for its next retry, and to the fleet with the next
			// exchange unless a retry here has wanted one lately
			synchronized (this.lock) {
				bucket.pool = bucket.pool + 1;
				// a retry here just succeeded: the token stays a moment for this instance's next retry
				bucket.lastRefundAt = this.ticker.read();
			}
			requestExchange(bucket);
		}
		else {
			gainLocally(bucket, 1, 1);
		}
	}

	@Override
	public double availableTokens(String provider) {
		Bucket bucket = configured(provider);
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
			return Math.min(share(bucket, now), share(this.global, now)) + pooled;
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
		Bucket bucket = scope.perOrigin() ? null : configured(scope.provider());
		if (bucket == null) {
			this.unconfigured.settle(scope);
		}
		else {
			bucket.landed();
		}
	}

	/**
	 * Returns how many of this instance's retries to {@code scope} hold a token while in flight: a retry that finds
	 * this instance's share empty waits for their answers, which give tokens back (see {@link RetryBudget}).
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the count
	 */
	@Override
	public int pendingTokens(Scope scope) {
		Bucket bucket = scope.perOrigin() ? null : configured(scope.provider());
		if (bucket == null) {
			return this.unconfigured.pendingTokens(scope);
		}
		int inFlight = bucket.inFlight.get();
		if (!shared(bucket)) {
			return inFlight;
		}
		// a lease on its way, a fleet bucket that had tokens at the last reading, or tokens the fleet's other
		// instances hold (pooled or in flight) may each still give this retry a token
		boolean mayGive = bucket.exchangePending.get() || fleetMayGive(bucket);
		if (mayGive && !holdingsKnown(bucket, this.ticker.read())) {
			// the retry waits for a fresh reading of what the others hold, and decides on it at its next ask
			bucket.refresh.set(true);
			requestExchange(bucket);
		}
		return inFlight + (mayGive ? 1 : 0);
	}

	@Override
	public double availableTokens(Scope scope) {
		return scope.perOrigin() ? this.unconfigured.availableTokens(scope) : availableTokens(scope.provider());
	}

	@Override
	public double globalTokens() {
		long now = this.ticker.read();
		if (this.fleet.onRedis() && !this.global.bad.get()) {
			return this.global.estimate(now);
		}
		synchronized (this.lock) {
			return share(this.global, now);
		}
	}

	/**
	 * Returns the tokens in {@code provider}'s own bucket, as last read from Redis plus the floor's refill since, or
	 * this instance's share of it while it decides locally.
	 * @param provider the provider
	 * @return the tokens
	 */
	@Override
	public double providerTokens(String provider) {
		Bucket bucket = configured(provider);
		if (bucket == null) {
			return this.unconfigured.providerTokens(provider);
		}
		long now = this.ticker.read();
		if (this.fleet.onRedis() && !bucket.bad.get()) {
			return bucket.estimate(now);
		}
		synchronized (this.lock) {
			return share(bucket, now);
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
	 * Returns the fleet this budget is shared through.
	 * @return the fleet
	 */
	public RedisFleet fleet() {
		return this.fleet;
	}

	/**
	 * Sends the batched deposits and refunds, less this instance's debts, and reads every bucket back. A bucket whose
	 * key is not valid is not written: what was meant for it stays with this instance.
	 */
	@Override
	public void sync() {
		List<Bucket> order = new ArrayList<>(this.providers.size() + 1);
		order.add(this.global);
		order.addAll(this.providers.values());
		double[] gained = new double[order.size()];
		double[] debts = new double[order.size()];
		for (int i = 1; i < order.size(); i++) {
			Bucket bucket = order.get(i);
			long successes = bucket.successes.sumThenReset();
			gained[i] = successes * bucket.settings.depositRatio();
			gained[0] += successes * this.globalSettings.depositRatio();
		}
		synchronized (this.lock) {
			for (int i = 0; i < order.size(); i++) {
				debts[i] = order.get(i).debt;
				order.get(i).debt = 0;
			}
		}
		for (int i = 0; i < order.size(); i++) {
			// on their way: a retry that finds no token counts them until the reading below includes them
			order.get(i).sending = gained[i];
		}
		byte[][] keys = new byte[order.size()][];
		List<byte[]> args = new ArrayList<>();
		args.add(this.ttlMillis);
		for (int i = 0; i < order.size(); i++) {
			Bucket bucket = order.get(i);
			keys[i] = bucket.key;
			args.add(number(bucket.settings.capacity()));
			args.add(number(bucket.settings.refillPerSecond()));
			args.add(number(gained[i] - debts[i]));
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.SYNC, keys, args.toArray(new byte[0][]));
		long now = this.ticker.read();
		for (int i = 0; i < order.size(); i++) {
			Bucket bucket = order.get(i);
			boolean applied = reply.isPresent() && read(bucket, Replies.decimal(reply.get(), i), now);
			bucket.sending = 0;
			if (!applied) {
				// not sent, or not applied to a key that is not valid: this instance keeps what it gained and owes
				synchronized (this.lock) {
					share(bucket, now);
					bucket.debt += debts[i];
					gain(bucket, gained[i]);
				}
			}
		}
		// pooled tokens that no retry here wanted lately go back to the fleet, and the fleet learns what this instance
		// holds once it changed (a retry here failed or ended)
		for (Bucket bucket : this.providers.values()) {
			boolean changed;
			synchronized (this.lock) {
				changed = bucket.pool > 0 || bucket.pool + bucket.inFlight.get() != bucket.lastHeld;
			}
			if (changed && shared(bucket) && bucket.exchangePending.compareAndSet(false, true)) {
				exchangeNow(bucket);
			}
		}
	}

	@Override
	public void onFallback() {
		// each bucket's share carries on from the last reading: nothing is refilled by falling back; tokens leased
		// before stay in this instance's pool, for its retries, and go back to the fleet once it is back
	}

	@Override
	public void onRejoin() {
		this.global.forget();
		for (Bucket bucket : this.providers.values()) {
			bucket.forget();
		}
		sync();
	}

	/** Takes one token from this instance's pool (leased from the fleet, or given back here), if there is one. */
	private boolean takeFromPool(Bucket bucket) {
		synchronized (this.lock) {
			if (bucket.pool < 1) {
				return false;
			}
			bucket.pool = bucket.pool - 1;
			return true;
		}
	}

	/**
	 * A retry on an event loop found no token here: the next exchange asks the fleet for one, if the fleet may have
	 * one to give (otherwise the retry gives up rather than ask again and again).
	 */
	private void wantToken(Bucket bucket) {
		synchronized (this.lock) {
			bucket.wanted++;
			bucket.lastWantedAt = this.ticker.read();
		}
		if (fleetMayGive(bucket)) {
			requestExchange(bucket);
		}
	}

	/**
	 * Whether the fleet may give this instance a token: the bucket (and the global bucket) had one at the last reading,
	 * with the refill since, or other instances hold tokens (pooled or in flight) that they may give back, or what
	 * they hold is not known ({@link #holdingsKnown}).
	 */
	private boolean fleetMayGive(Bucket bucket) {
		long now = this.ticker.read();
		if (Math.min(bucket.estimate(now), this.global.estimate(now)) >= 1 || bucket.fleetHeld > bucket.lastHeld
				|| !holdingsKnown(bucket, now)) {
			return true;
		}
		// deposits from successes here, not yet flushed or on their way: the retry waits for them, and they go now
		long unflushed = bucket.successes.sum();
		if (Math.min(bucket.estimate(now) + unflushed * bucket.settings.depositRatio() + bucket.sending,
				this.global.estimate(now) + unflushed * this.globalSettings.depositRatio() + this.global.sending) < 1) {
			return false;
		}
		if (unflushed > 0) {
			requestFlush();
		}
		return true;
	}

	/** Whether the fleet was short of tokens for {@code bucket} at the last reading: it, or the global bucket, under one. */
	private boolean tokensShort(Bucket bucket) {
		long now = this.ticker.read();
		return Math.min(bucket.estimate(now), this.global.estimate(now)) < 1;
	}

	/** Whether what the fleet's members hold was read by an exchange that started within {@link #FRESH_FOR}. */
	private static boolean holdingsKnown(Bucket bucket, long now) {
		return now - bucket.exchangedAt <= FRESH_FOR.toNanos();
	}

	/** Asks the background thread for an exchange of {@code bucket}'s tokens with the fleet; at most one at a time. */
	private void requestExchange(Bucket bucket) {
		if (this.fleet.onRedis() && bucket.exchangePending.compareAndSet(false, true)) {
			this.fleet.submit(() -> exchangeNow(bucket));
		}
	}

	/** Runs an exchange on the background thread, then another if retries here still want tokens the fleet has. */
	private void exchangeNow(Bucket bucket) {
		try {
			exchange(bucket);
		}
		finally {
			bucket.exchangePending.set(false);
		}
		boolean again;
		synchronized (this.lock) {
			again = bucket.wanted > 0;
		}
		if (again && fleetMayGive(bucket)) {
			requestExchange(bucket);
		}
	}

	/**
	 * One round trip ({@link FleetScript#LEASE}): gives back the pooled tokens no retry here wanted within
	 * {@link #KEEP_FOR}, asks for a token per retry that found none (at most {@link #MAX_LEASE}), and records what this
	 * instance holds. What could not be given back (Redis away, a key that is not the fleet's) stays in the pool.
	 */
	private void exchange(Bucket bucket) {
		long now = this.ticker.read();
		long give;
		long want;
		long held;
		synchronized (this.lock) {
			boolean demand = bucket.wanted > 0 || now - bucket.lastWantedAt <= KEEP_FOR.toNanos()
					|| now - bucket.lastRefundAt <= REFUND_KEEP_FOR.toNanos();
			long keep = demand ? bucket.pool : 0;
			give = bucket.pool - keep;
			want = Math.min(MAX_LEASE, Math.max(0, bucket.wanted - keep));
			bucket.pool = keep;
			bucket.wanted = 0;
			held = bucket.pool + bucket.inFlight.get();
		}
		boolean refresh = bucket.refresh.getAndSet(false);
		if (give == 0 && want == 0 && held == bucket.lastHeld && !refresh) {
			return;
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.LEASE,
				new byte[][] { bucket.key, this.global.key, bucket.leasesKey, this.fleet.membersKey() }, this.ttlMillis,
				number(bucket.settings.capacity()), number(bucket.settings.refillPerSecond()),
				number(this.globalSettings.capacity()), number(this.globalSettings.refillPerSecond()), number(give),
				number(want), this.fleet.instanceId(), number(held));
		long received = this.ticker.read();
		boolean applied = reply.isPresent() && read(bucket, Replies.decimal(reply.get(), 1), received)
				& read(this.global, Replies.decimal(reply.get(), 2), received);
		// never more than was asked (a grant that is not a whole number, negative or NaN reads as 0): a larger grant
		// would pool tokens the buckets never held
		long granted = applied ? Math.min(want, Replies.whole(reply.get(), 0).orElse(0)) : 0;
		synchronized (this.lock) {
			bucket.pool += (applied ? 0 : give) + granted;
		}
		if (applied) {
			bucket.lastHeld = held + granted;
			bucket.fleetHeld = Replies.whole(reply.get(), 3).orElse(0);
			// what the fleet held is known as of this exchange's start at the latest
			bucket.exchangedAt = now;
		}
	}

	private Bucket configured(String provider) {
		return this.providers.get(Objects.requireNonNull(provider, "provider"));
	}

	/** Whether decisions for {@code bucket} go to Redis: the fleet is on Redis and both keys are valid. */
	private boolean shared(Bucket bucket) {
		return this.fleet.onRedis() && !bucket.bad.get() && !this.global.bad.get();
	}

	/**
	 * Records a bucket's level read from Redis, or that its key is not valid.
	 * @return whether the level was a valid reading
	 */
	private boolean read(Bucket bucket, OptionalDouble tokens, long now) {
		if (tokens.isEmpty()) {
			if (bucket.bad.compareAndSet(false, true)) {
				this.fleet.keyFallBack(bucket.key);
			}
			return false;
		}
		if (bucket.bad.compareAndSet(true, false)) {
			this.fleet.keyValid(bucket.key);
		}
		double level = Math.min(bucket.settings.capacity(), tokens.getAsDouble());
		bucket.reading = new Reading(level, now);
		synchronized (this.lock) {
			bucket.share = level / this.fleet.instances() - bucket.debt;
			bucket.shareAt = now;
		}
		return true;
	}

	private boolean takeLocally(Bucket bucket) {
		long now = this.ticker.read();
		synchronized (this.lock) {
			if (share(bucket, now) < 1 || share(this.global, now) < 1) {
				return false;
			}
			bucket.share -= 1;
			bucket.debt += 1;
			this.global.share -= 1;
			this.global.debt += 1;
			return true;
		}
	}

	private void gainLocally(Bucket bucket, double providerAmount, double globalAmount) {
		long now = this.ticker.read();
		synchronized (this.lock) {
			share(bucket, now);
			share(this.global, now);
			gain(bucket, providerAmount);
			gain(this.global, globalAmount);
		}
	}

	/** Adds to a share what this instance earned (never above its cap), and owes the fleet that much less. */
	private void gain(Bucket bucket, double amount) {
		bucket.share = Math.min(bucket.settings.capacity() / this.fleet.instances(), bucket.share + amount);
		bucket.debt -= amount;
	}

	/** Refills a share at its part of the floor up to {@code now} and returns it; caller holds the lock. */
	private double share(Bucket bucket, long now) {
		int instances = this.fleet.instances();
		double elapsed = Math.max(0, now - bucket.shareAt) / NANOS_PER_SECOND;
		double cap = bucket.settings.capacity() / instances;
		if (bucket.share < cap) {
			bucket.share = Math.min(cap, bucket.share + bucket.settings.refillPerSecond() / instances * elapsed);
		}
		bucket.shareAt = now;
		return bucket.share;
	}

	private void requestFlush() {
		if (this.flushRequested.compareAndSet(false, true)) {
			this.fleet.submit(() -> {
				this.flushRequested.set(false);
				if (this.fleet.onRedis()) {
					sync();
				}
			});
		}
	}

	private static byte[] number(double value) {
		return Double.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public String toString() {
		return "RedisRetryBudget[prefix=" + this.fleet.settings().keyPrefix() + ", global=" + this.globalSettings
				+ ", providers=" + this.providerSettings.keySet() + ", state=" + this.fleet.state() + "]";
	}

	/**
	 * One bucket: its key, settings, batched deposits, last reading from Redis, whether its key is valid, and this
	 * instance's local share and debt (guarded by the budget's lock).
	 */
	private static final class Bucket {

		private final BudgetSettings settings;

		private final byte[] key;

		private final LongAdder successes = new LongAdder();

		// written under the budget's lock, read without it: tokens leased from the fleet or given back by retries here
		// that succeeded, not yet returned (at most what the retries here took or asked for lately: each exchange leases
		// at most MAX_LEASE, and pooled tokens go back once no retry here wanted one for KEEP_FOR)
		private volatile long pool;

		// guarded by the budget's lock: the retries here that found none since the last exchange, and when the last did

		private long wanted;

		private long lastWantedAt = Long.MIN_VALUE / 2;

		private long lastRefundAt = Long.MIN_VALUE / 2;

		// at most one exchange at a time; what this instance held and what the fleet's members held at the last one
		private final AtomicBoolean exchangePending = new AtomicBoolean();

		private volatile long lastHeld;

		private volatile long fleetHeld;

		// when the last exchange that was applied started: what fleetHeld says is known as of then
		private volatile long exchangedAt = Long.MIN_VALUE / 2;

		// a retry waits for a fresh reading of fleetHeld: the next exchange makes its round trip even with nothing to
		// give, ask or report
		private final AtomicBoolean refresh = new AtomicBoolean();

		// deposits the flush in progress sends, until its reading (which includes them) is recorded
		private volatile double sending;

		private final byte[] leasesKey;

		private final AtomicBoolean bad = new AtomicBoolean();

		// this instance's retries that took a token and have no answer yet
		private final AtomicInteger inFlight = new AtomicInteger();

		private volatile Reading reading;

		private double share;

		private long shareAt;

		private double debt;

		Bucket(BudgetSettings settings, byte[] key, byte[] leasesKey, long now) {
			this.settings = settings;
			this.key = key;
			this.leasesKey = leasesKey;
			this.share = settings.capacity();
			this.shareAt = now;
		}

		void forget() {
			this.reading = null;
		}

		void landed() {
			this.inFlight.updateAndGet((count) -> (count > 0) ? count - 1 : 0);
		}

		/** The last reading plus the floor's refill since, capped; a bucket never read is full. */
		double estimate(long now) {
			Reading last = this.reading;
			if (last == null) {
				return this.settings.capacity();
			}
			double elapsed = Math.max(0, now - last.atNanos()) / NANOS_PER_SECOND;
			return Math.min(this.settings.capacity(), last.tokens() + this.settings.refillPerSecond() * elapsed);
		}

	}

	private record Reading(double tokens, long atNanos) {
	}

}
