package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.budget.TokenBucketRetryBudget;

/**
 * A {@link RetryBudget} shared by a fleet through Redis, with the semantics of {@link TokenBucketRetryBudget}: one
 * bucket per configured provider under a global bucket, buckets start full, a successful first attempt deposits its
 * provider's deposit ratio, a retry takes one token from its provider's bucket and one from the global bucket or
 * neither, a retry whose attempt succeeds gives both back ({@link #refund}), and every bucket regains its per-second
 * floor of tokens as time passes, never beyond capacity. The
 * arithmetic runs atomically on Redis, on Redis's clock ({@link FleetScript#ACQUIRE}, {@link FleetScript#SYNC}).
 * <p>
 * Only a retry decision makes a round trip ({@link #tryAcquire}). Deposits from original requests, and refunds of
 * retries that succeeded, are counted locally and sent by the fleet's background thread every flush interval, which
 * also reads every bucket back: {@link #availableTokens} answers from those readings plus the floor's refill since,
 * without a round trip, so it may be one flush interval stale.
 * <p>
 * While the fleet is not on Redis ({@link RedisFleet.State}), every call is answered by a local
 * {@link TokenBucketRetryBudget}, created full at each fallback: the fleet as a whole may then retry up to N times what
 * the shared budget allows, until Redis is back. Providers that are not configured (never the case for requests routed
 * by the starter) always use the local budget, so a key never holds a name that did not come from configuration.
 * <p>
 * Thread-safe.
 */
public final class RedisRetryBudget implements RetryBudget, RedisFleet.Participant {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	private final RedisFleet fleet;

	private final Ticker ticker;

	private final BudgetSettings globalSettings;

	private final Map<String, BudgetSettings> providerSettings;

	private final Bucket global;

	private final Map<String, Bucket> providers;

	private final byte[] ttlMillis;

	private volatile TokenBucketRetryBudget local;

	/**
	 * Creates the budget and registers it with the fleet.
	 * @param fleet the fleet's link to Redis
	 * @param global the global bucket's settings
	 * @param providers every configured provider's bucket settings
	 * @param ticker the monotonic clock of the local fallback and of the local estimates
	 */
	public RedisRetryBudget(RedisFleet fleet, BudgetSettings global, Map<String, BudgetSettings> providers,
			Ticker ticker) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.globalSettings = Objects.requireNonNull(global, "global");
		this.providerSettings = Map.copyOf(providers);
		this.global = new Bucket(global, fleet.key("budget", "global"));
		Map<String, Bucket> buckets = new LinkedHashMap<>();
		// the global bucket's key is "prefix:budget:global"; a provider of that name gets a distinct key
		providers.forEach((name, settings) -> buckets.put(name, new Bucket(settings,
				fleet.key("budget", "global".equals(name) ? "provider-global" : name))));
		this.providers = Map.copyOf(buckets);
		this.ttlMillis = number(fleet.settings().keyTtl().toMillis());
		this.local = newLocal();
		fleet.register(this);
	}

	@Override
	public boolean tryAcquire(String provider) {
		Bucket bucket = shared(provider);
		if (bucket == null) {
			return this.local.tryAcquire(provider);
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.ACQUIRE, new byte[][] { bucket.key, this.global.key },
				this.ttlMillis, number(bucket.settings.capacity()), number(bucket.settings.refillPerSecond()),
				number(this.globalSettings.capacity()), number(this.globalSettings.refillPerSecond()));
		if (reply.isEmpty()) {
			return this.local.tryAcquire(provider);
		}
		long now = this.ticker.read();
		List<Object> values = reply.get();
		bucket.read(decimal(values.get(1)), now);
		this.global.read(decimal(values.get(2)), now);
		return "1".equals(text(values.get(0)));
	}

	@Override
	public void recordSuccess(String provider) {
		batch(provider, Bucket::successes, RetryBudget::recordSuccess);
	}

	/**
	 * Gives back the token a retry took, once its attempt succeeded: one to its provider's bucket and one to the
	 * global bucket, batched like deposits.
	 * @param provider the provider the retry went to
	 */
	@Override
	public void refund(String provider) {
		batch(provider, Bucket::refunds, RetryBudget::refund);
	}

	@Override
	public double availableTokens(String provider) {
		Bucket bucket = shared(provider);
		if (bucket == null) {
			return this.local.availableTokens(provider);
		}
		long now = this.ticker.read();
		return Math.min(bucket.estimate(now), this.global.estimate(now));
	}

	@Override
	public double globalTokens() {
		return this.fleet.onRedis() ? this.global.estimate(this.ticker.read()) : this.local.globalTokens();
	}

	/**
	 * Returns the tokens in {@code provider}'s own bucket, as last read from Redis plus the floor's refill since, or
	 * from the local budget while the fleet is not on Redis.
	 * @param provider the provider
	 * @return the tokens
	 */
	@Override
	public double providerTokens(String provider) {
		Bucket bucket = shared(provider);
		return (bucket != null) ? bucket.estimate(this.ticker.read()) : this.local.providerTokens(provider);
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

	@Override
	public void sync() {
		List<Bucket> order = new ArrayList<>(this.providers.values());
		byte[][] keys = new byte[order.size() + 1][];
		List<byte[]> args = new ArrayList<>();
		args.add(this.ttlMillis);
		keys[0] = this.global.key;
		double globalDeposit = 0;
		double[] deposits = new double[order.size()];
		long[] taken = new long[order.size()];
		long[] refunded = new long[order.size()];
		for (int i = 0; i < order.size(); i++) {
			Bucket bucket = order.get(i);
			long successes = bucket.successes.sumThenReset();
			long refunds = bucket.refunds.sumThenReset();
			taken[i] = successes;
			refunded[i] = refunds;
			deposits[i] = successes * bucket.settings.depositRatio() + refunds;
			globalDeposit += successes * this.globalSettings.depositRatio() + refunds;
			keys[i + 1] = bucket.key;
		}
		args.add(number(this.globalSettings.capacity()));
		args.add(number(this.globalSettings.refillPerSecond()));
		args.add(number(globalDeposit));
		for (int i = 0; i < order.size(); i++) {
			BudgetSettings settings = order.get(i).settings;
			args.add(number(settings.capacity()));
			args.add(number(settings.refillPerSecond()));
			args.add(number(deposits[i]));
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.SYNC, keys, args.toArray(new byte[0][]));
		if (reply.isEmpty()) {
			// not sent: deposits go to the local budget that now answers, as they would have had Redis been away already
			for (int i = 0; i < order.size(); i++) {
				String name = name(order.get(i));
				for (long n = 0; n < taken[i]; n++) {
					this.local.recordSuccess(name);
				}
				for (long n = 0; n < refunded[i]; n++) {
					this.local.refund(name);
				}
			}
			return;
		}
		long now = this.ticker.read();
		List<Object> values = reply.get();
		this.global.read(decimal(values.get(0)), now);
		for (int i = 0; i < order.size(); i++) {
			order.get(i).read(decimal(values.get(i + 1)), now);
		}
	}

	@Override
	public void onFallback() {
		this.local = newLocal();
	}

	@Override
	public void onRejoin() {
		this.global.forget();
		for (Bucket bucket : this.providers.values()) {
			bucket.forget();
		}
		sync();
	}

	/**
	 * Returns {@code provider}'s bucket while the fleet is on Redis, else {@code null}: the local budget answers for
	 * a provider that is not configured and for every provider while Redis is away.
	 */
	private Bucket shared(String provider) {
		Bucket bucket = this.providers.get(Objects.requireNonNull(provider, "provider"));
		return (bucket != null && this.fleet.onRedis()) ? bucket : null;
	}

	/**
	 * Counts a deposit or a refund for the next flush, or hands it to the local budget while Redis is away. Both
	 * functions are method references that capture nothing, so a request's success allocates nothing here.
	 */
	private void batch(String provider, Function<Bucket, LongAdder> counter, BiConsumer<RetryBudget, String> locally) {
		Bucket bucket = shared(provider);
		if (bucket == null) {
			locally.accept(this.local, provider);
			return;
		}
		counter.apply(bucket).increment();
	}

	private String name(Bucket bucket) {
		for (Map.Entry<String, Bucket> entry : this.providers.entrySet()) {
			if (entry.getValue() == bucket) {
				return entry.getKey();
			}
		}
		throw new IllegalStateException("unknown bucket");
	}

	private TokenBucketRetryBudget newLocal() {
		TokenBucketRetryBudget.Builder builder = TokenBucketRetryBudget.builder()
			.ticker(this.ticker)
			.global(this.globalSettings);
		this.providerSettings.forEach(builder::provider);
		return builder.build();
	}

	private static byte[] number(double value) {
		return Double.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(value);
	}

	private static double decimal(Object value) {
		return Double.parseDouble(text(value));
	}

	@Override
	public String toString() {
		return "RedisRetryBudget[prefix=" + this.fleet.settings().keyPrefix() + ", global=" + this.globalSettings
				+ ", providers=" + this.providerSettings.keySet() + ", state=" + this.fleet.state() + "]";
	}

	/** One bucket's key, settings, batched deposits and last reading. */
	private static final class Bucket {

		private final BudgetSettings settings;

		private final byte[] key;

		private final LongAdder successes = new LongAdder();

		private final LongAdder refunds = new LongAdder();

		private volatile Reading reading;

		Bucket(BudgetSettings settings, byte[] key) {
			this.settings = settings;
			this.key = key;
		}

		LongAdder successes() {
			return this.successes;
		}

		LongAdder refunds() {
			return this.refunds;
		}

		void read(double tokens, long atNanos) {
			this.reading = new Reading(tokens, atNanos);
		}

		void forget() {
			this.reading = null;
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
