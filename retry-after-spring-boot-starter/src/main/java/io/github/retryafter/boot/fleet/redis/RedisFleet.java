package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.fleet.FleetLink;
import io.github.retryafter.fleet.FleetRuntime;
import io.github.retryafter.fleet.FleetRuntimeSettings;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.FleetWorker;

/**
 * The fleet's link to Redis: one shared Lettuce connection, the scripts run within the command timeout, the probe
 * (connect, load the scripts, one round trip) and the members' heartbeat. What is not Redis is the core's: the
 * {@link FleetRuntime} (fallback and rejoin, the members' count, the participants) on a {@link FleetWorker} (one
 * background thread, {@code retry-after-fleet}, that runs the handed-over tasks and ticks every flush interval).
 * {@link #execute} never runs on a thread the {@code mayBlock} check refuses; a timeout or failure falls back.
 * Thread-safe.
 */
public final class RedisFleet implements FleetStatusProvider, FleetLink, AutoCloseable {

	private final Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector;

	private final RedisFleetSettings settings;

	private final byte[] instanceId;

	private final byte[] membersKey;

	private final FleetWorker worker;

	private final FleetRuntime runtime;

	private volatile RedisClusterAsyncCommands<byte[], byte[]> commands;

	/**
	 * Creates the fleet link and starts its background thread, which connects at once.
	 * @param connector opens (or returns) the connection's asynchronous commands; called on the background thread
	 * and allowed to block and to throw
	 * @param settings the key prefix, timeouts and intervals
	 */
	public RedisFleet(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, RedisFleetSettings settings) {
		this(connector, settings, UUID.randomUUID().toString());
	}

	/**
	 * Creates the fleet link with a given instance identity and starts its background thread, which connects at once.
	 * @param connector opens (or returns) the connection's asynchronous commands; called on the background thread
	 * and allowed to block and to throw
	 * @param settings the key prefix, timeouts and intervals
	 * @param instanceId this instance's identity among the fleet's members, unique in the fleet, not starting with
	 * {@code !}
	 * @throws IllegalArgumentException if the identity is empty or starts with {@code !}
	 */
	public RedisFleet(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, RedisFleetSettings settings,
			String instanceId) {
		this(connector, settings, instanceId, () -> true);
	}

	/**
	 * Creates the fleet link and starts its background thread, which connects at once.
	 * @param connector opens (or returns) the connection's asynchronous commands; called on the background thread
	 * and allowed to block and to throw
	 * @param settings the key prefix, timeouts and intervals
	 * @param instanceId this instance's identity among the fleet's members, unique in the fleet, not starting with
	 * {@code !}
	 * @param mayBlock answers, on the calling thread, whether it may wait for Redis (the transport's to say: the
	 * starter's Reactor wiring refuses Reactor's non-blocking threads)
	 * @throws IllegalArgumentException if the identity is empty or starts with {@code !}
	 */
	public RedisFleet(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, RedisFleetSettings settings,
			String instanceId, BooleanSupplier mayBlock) {
		Objects.requireNonNull(mayBlock, "mayBlock");
		this.connector = Objects.requireNonNull(connector, "connector");
		this.settings = Objects.requireNonNull(settings, "settings");
		Objects.requireNonNull(instanceId, "instanceId");
		if (instanceId.isEmpty() || instanceId.startsWith("!")) {
			throw new IllegalArgumentException("instanceId must be non-empty and must not start with '!' (the fleet's "
					+ "own markers do) but was '" + instanceId + "'");
		}
		this.instanceId = instanceId.getBytes(StandardCharsets.UTF_8);
		this.membersKey = key("members", "instances");
		Ticker ticker = Ticker.system();
		this.worker = new FleetWorker(ticker, settings.flushInterval(), this::tick, this::fallBack);
		this.runtime = new FleetRuntime(this, new FleetRuntimeSettings("Redis", settings.commandTimeout(),
				settings.probeInterval(), settings.probeTimeout(), settings.rejoinProbes(), settings.commandTimeout()),
				ticker, this.worker, mayBlock);
		this.worker.start((task) -> {
			Thread thread = new Thread(task, "retry-after-fleet");
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public RedisFleetSettings settings() {
		return this.settings;
	}

	/**
	 * Returns this instance's runtime on Redis: the state, the fallbacks, the members' count and the participants.
	 * @return the runtime
	 */
	public FleetRuntime runtime() {
		return this.runtime;
	}

	/**
	 * Returns where the fleet's state is read and written right now.
	 * @return the state
	 */
	public State state() {
		return switch (this.runtime.state()) {
			case CONNECTING -> State.CONNECTING;
			case SHARED -> State.REDIS;
			case LOCAL_FALLBACK -> State.LOCAL_FALLBACK;
		};
	}

	/**
	 * Returns whether retry decisions go to Redis right now.
	 * @return {@code true} in {@link State#REDIS}
	 */
	public boolean onRedis() {
		return this.runtime.shared();
	}

	/**
	 * Returns how many times the fleet fell back to local state because Redis timed out or failed.
	 * @return the count since start
	 */
	public long fallbacks() {
		return this.runtime.fallbacks();
	}

	/**
	 * Returns a snapshot for the Actuator endpoint and health.
	 * @return the status
	 */
	@Override
	public FleetStatus fleetStatus() {
		return new FleetStatus("redis", state().name(), onRedis(), this.settings.keyPrefix(), fallbacks(),
				this.runtime.lastError(), this.settings.commandTimeout(), keyFallbacks(), instances());
	}

	/**
	 * Returns how many times a key fell back to local state because its value was not the fleet's.
	 * @return the count since start
	 */
	public long keyFallbacks() {
		return this.runtime.keys().fallbacks();
	}

	/**
	 * Returns the fleet's instances seen within the last 30 seconds, as last counted on Redis: each instance spends a
	 * share of a bucket's last reading when it decides locally. A count that is not a number, or not between 1 and
	 * 10,000, is not the fleet's: the last count stands.
	 * @return at least 1, at most 10,000
	 */
	public int instances() {
		return this.runtime.instances();
	}

	/**
	 * Returns whether the calling thread may wait for Redis, as the {@code mayBlock} check given at construction says.
	 * @return {@code false} on a thread that must not block (with the starter's wiring: Reactor's non-blocking ones)
	 */
	public boolean mayBlock() {
		return this.runtime.mayBlock();
	}

	@Override
	public void onFallback(Consumer<FleetStatus> listener) {
		Objects.requireNonNull(listener, "listener");
		this.runtime.onFallback(() -> listener.accept(fleetStatus()));
	}

	/** Counts a message on the fleet's channel that was not the fleet's with the keys' fallbacks (the caller logs). */
	void messageIgnored() {
		this.runtime.keys().messageIgnored();
	}

	/** The sorted set of the fleet's members, scored by their last heartbeat. */
	byte[] membersKey() {
		return this.membersKey.clone();
	}

	/** This instance's identity among the fleet's members, as the scripts store it. */
	byte[] instanceId() {
		return this.instanceId.clone();
	}

	/**
	 * Returns the Redis key <code>{prefix}:kind:name</code>: the prefix is a hash tag, so that every key of a fleet
	 * lives in one Redis Cluster slot and a script may touch several.
	 */
	byte[] key(String kind, String name) {
		return keyName(kind, name).getBytes(StandardCharsets.UTF_8);
	}

	/** The Redis key <code>{prefix}:kind:name</code>, as the logs name it. */
	@Override
	public String keyName(String kind, String name) {
		return "{" + this.settings.keyPrefix() + "}:" + kind + ":" + name;
	}

	/**
	 * Runs a script, waiting at most the command timeout. Never throws: when the fleet is not on Redis, or the
	 * calling thread must not block ({@link #mayBlock()}), it returns empty at once; when Redis times out or fails it
	 * falls back ({@link FleetRuntime#fallBack}) and returns empty. The reply is not validated: read it with
	 * {@link Replies}.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the script's reply, or empty: answer from local state
	 */
	Optional<List<Object>> execute(FleetScript script, byte[][] keys, byte[]... args) {
		RedisClusterAsyncCommands<byte[], byte[]> connection = this.commands;
		if (connection == null || !onRedis() || !mayBlock()) {
			return Optional.empty();
		}
		long deadline = System.nanoTime() + this.settings.commandTimeout().toNanos();
		RedisFuture<List<Object>> future = connection.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
		try {
			return Optional.of(await(future, deadline));
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				fallBack(ex.getCause());
				return Optional.empty();
			}
		}
		catch (TimeoutException ex) {
			fallBack(ex);
			return Optional.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		// the server lost its script cache (a restart, SCRIPT FLUSH): send the source, within the same deadline
		RedisFuture<List<Object>> retry = connection.eval(script.source(), ScriptOutputType.MULTI, keys, args);
		try {
			return Optional.of(await(retry, deadline));
		}
		catch (ExecutionException ex) {
			fallBack(ex.getCause());
		}
		catch (TimeoutException ex) {
			fallBack(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return Optional.empty();
	}

	/**
	 * Runs a task on the background thread as soon as it is free, for writes that no request needs to wait for.
	 * Lock-free (a queue offer and an unpark), so that it may be called on an event loop: it never parks the caller.
	 * @param task the task
	 */
	void submit(Runnable task) {
		this.runtime.submit(task);
	}

	void register(FleetStore.Participant participant) {
		this.runtime.register(participant);
	}

	/**
	 * Switches to local state, counting the switch, unless already there.
	 * @param cause what went wrong
	 */
	void fallBack(Throwable cause) {
		this.runtime.fallBack(cause);
	}

	/** The worker's tick: the runtime's (the heartbeat and the participants' sync, or a probe). */
	private void tick() {
		this.runtime.tick();
	}

	private static <T> T await(RedisFuture<T> future, long deadline)
			throws ExecutionException, TimeoutException, InterruptedException {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			// a cancelled command that is still queued (Redis disconnected) is never written when it reconnects
			future.cancel(false);
			throw ex;
		}
	}

	/**
	 * Counts the fleet's instances, this one included ({@link FleetScript#HEARTBEAT}); on the background thread.
	 */
	@Override
	public Optional<OptionalLong> countMembers(Duration window) {
		return execute(FleetScript.HEARTBEAT, new byte[][] { this.membersKey }, this.instanceId,
				Long.toString(window.toMillis()).getBytes(StandardCharsets.US_ASCII))
			.map((reply) -> Replies.whole(reply, 0));
	}

	/**
	 * One probe, on the background thread: connects if needed, loads the scripts within the probe timeout, then makes
	 * one script round trip within the command timeout.
	 */
	@Override
	public void probe() throws ExecutionException, TimeoutException, InterruptedException {
		RedisClusterAsyncCommands<byte[], byte[]> connection = this.commands;
		if (connection == null) {
			connection = this.connector.get();
			this.commands = connection;
		}
		long loadDeadline = System.nanoTime() + this.settings.probeTimeout().toNanos();
		await(connection.ping(), loadDeadline);
		for (FleetScript script : FleetScript.values()) {
			await(connection.scriptLoad(script.source()), loadDeadline);
		}
		long deadline = System.nanoTime() + this.settings.commandTimeout().toNanos();
		List<Object> reply = await(connection.evalsha(FleetScript.READ_COOLDOWNS.sha(), ScriptOutputType.MULTI,
				new byte[0][]), deadline);
		if (Replies.whole(reply, 0).isEmpty()) {
			throw new IllegalStateException("Redis answered the probe's script with " + reply);
		}
	}

	/**
	 * Stops the background thread and flushes what is batched, once. Idempotent. Call it before the Redis connection
	 * closes (the auto-configuration does so when the application context starts closing).
	 */
	@Override
	public void close() {
		this.worker.stop(this.settings.commandTimeout().multipliedBy(2));
		this.runtime.close();
	}

	/**
	 * Where the fleet's state lives right now.
	 */
	public enum State {

		/** Connecting for the first time: every decision is local until Redis answers. */
		CONNECTING,

		/** Retry decisions and cooldowns go to Redis. */
		REDIS,

		/** Redis timed out or failed: every decision is local, and Redis is probed until it answers. */
		LOCAL_FALLBACK

	}

}
