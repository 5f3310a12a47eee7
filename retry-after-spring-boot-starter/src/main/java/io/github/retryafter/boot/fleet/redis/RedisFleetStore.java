package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetStore;

/**
 * The fleet's store on Redis: each {@link FleetStore} operation is one Lua script ({@link FleetScript}) run atomically
 * on Redis's clock through the {@link RedisFleet}'s connection, its reply read defensively ({@link Replies}). Keys are
 * <code>{prefix}:budget:&lt;bucket&gt;</code> and <code>{prefix}:leases:&lt;provider&gt;</code>. Only I/O here: the
 * algorithm is {@link io.github.retryafter.fleet.FleetRetryBudget}'s. Thread-safe.
 */
public final class RedisFleetStore implements FleetStore {

	private final RedisFleet fleet;

	private final byte[] ttlMillis;

	/**
	 * Creates the store over the fleet's link.
	 * @param fleet the connection, its background thread and its state
	 */
	public RedisFleetStore(RedisFleet fleet) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.ttlMillis = number(fleet.settings().keyTtl().toMillis());
	}

	/**
	 * Returns the fleet's link.
	 * @return the link
	 */
	public RedisFleet fleet() {
		return this.fleet;
	}

	@Override
	public boolean shared() {
		return this.fleet.onRedis();
	}

	@Override
	public int instances() {
		return this.fleet.instances();
	}

	@Override
	public void submit(Runnable task) {
		this.fleet.submit(task);
	}

	@Override
	public void register(Participant participant) {
		this.fleet.register(participant);
	}

	@Override
	public void bucketInvalid(FleetBucket bucket) {
		this.fleet.keyFallBack(budgetKey(bucket));
	}

	@Override
	public void bucketValid(FleetBucket bucket) {
		this.fleet.keyValid(budgetKey(bucket));
	}

	@Override
	public Optional<Acquired> acquire(FleetBucket provider, FleetBucket global) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.ACQUIRE,
				new byte[][] { budgetKey(provider), budgetKey(global) }, this.ttlMillis,
				number(provider.settings().capacity()), number(provider.settings().refillPerSecond()),
				number(global.settings().capacity()), number(global.settings().refillPerSecond()));
		return reply.map((values) -> new Acquired(Replies.text(values, 0).filter("1"::equals).isPresent(),
				Replies.decimal(values, 1), Replies.decimal(values, 2)));
	}

	@Override
	public Optional<List<OptionalDouble>> deposit(List<Deposit> deposits) {
		byte[][] keys = new byte[deposits.size()][];
		List<byte[]> args = new ArrayList<>(1 + 3 * deposits.size());
		args.add(this.ttlMillis);
		for (int i = 0; i < deposits.size(); i++) {
			BudgetSettings settings = deposits.get(i).bucket().settings();
			keys[i] = budgetKey(deposits.get(i).bucket());
			args.add(number(settings.capacity()));
			args.add(number(settings.refillPerSecond()));
			args.add(number(deposits.get(i).amount()));
		}
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.SYNC, keys, args.toArray(new byte[0][]));
		return reply.map((values) -> {
			List<OptionalDouble> levels = new ArrayList<>(deposits.size());
			for (int i = 0; i < deposits.size(); i++) {
				levels.add(Replies.decimal(values, i));
			}
			return levels;
		});
	}

	@Override
	public Optional<Lease> lease(FleetBucket provider, FleetBucket global, long give, long want, long held) {
		Optional<List<Object>> reply = this.fleet.execute(FleetScript.LEASE,
				new byte[][] { budgetKey(provider), budgetKey(global), this.fleet.key("leases", provider.keyName()),
						this.fleet.membersKey() },
				this.ttlMillis, number(provider.settings().capacity()), number(provider.settings().refillPerSecond()),
				number(global.settings().capacity()), number(global.settings().refillPerSecond()), number(give),
				number(want), this.fleet.instanceId(), number(held));
		// a grant or a count that is not a whole number, negative or NaN reads as 0
		return reply.map((values) -> new Lease(Replies.whole(values, 0).orElse(0), Replies.decimal(values, 1),
				Replies.decimal(values, 2), Replies.whole(values, 3).orElse(0)));
	}

	private byte[] budgetKey(FleetBucket bucket) {
		return this.fleet.key("budget", bucket.keyName());
	}

	private static byte[] number(double value) {
		return Double.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public String toString() {
		return "RedisFleetStore[prefix=" + this.fleet.settings().keyPrefix() + ", state=" + this.fleet.state() + "]";
	}

}
