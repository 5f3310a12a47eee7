package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.fleet.FleetStore;

/**
 * The fleet's link to Redis: one shared Lettuce connection, the scripts, and one background thread that flushes what
 * was batched, reads the fleet's state back, counts the fleet's instances and probes Redis while it is away.
 * {@link #execute} waits at most the command timeout and never runs on a thread the {@code mayBlock} check refuses; a
 * timeout or failure switches to {@link State#LOCAL_FALLBACK}, and {@link RedisFleetSettings#rejoinProbes() N} good
 * probes in a row switch back; a key holding a value the fleet did not write falls back alone ({@link #keyFallBack}).
 * docs/fleet.md gives the reasons. Thread-safe; participants are called on the background thread only.
 */
public final class RedisFleet implements FleetStatusProvider, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisFleet.class);

	/**
	 * How long an instance counts as a member of the fleet after its last heartbeat: long enough that an instance on
	 * its local fallback is still counted while it spends its share, short enough that a fleet that shrank soon
	 * gives the remaining instances larger shares.
	 */
	static final Duration MEMBER_WINDOW = Duration.ofSeconds(30);

	/**
	 * The most instances a members count may name: a count beyond it is not the fleet's (the members' key holds
	 * members the fleet did not write), and the last count stands.
	 */
	static final int MAX_INSTANCES = 10_000;

	private final Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector;

	private final RedisFleetSettings settings;

	private final Thread thread;

	// work handed over by request threads: at most one task per participant, each coalesced by its participant
	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private volatile boolean stopping;

	private final BooleanSupplier mayBlock;

	private final List<FleetStore.Participant> participants = new CopyOnWriteArrayList<>();

	private final AtomicReference<State> state = new AtomicReference<>(State.CONNECTING);

	private final LongAdder fallbacks = new LongAdder();

	private final LongAdder keyFallbacks = new LongAdder();

	// this instance's keys that fell back and were logged: at most the fleet's keys (providers × 2 + 2)
	private final Set<String> badKeys = ConcurrentHashMap.newKeySet();

	private final CountDownLatch firstProbe = new CountDownLatch(1);

	private final byte[] instanceId;

	private final byte[] membersKey;

	// told of each fallback: a few, registered at startup
	private final List<Consumer<FleetStatus>> fallbackListeners = new CopyOnWriteArrayList<>();

	private volatile RedisClusterAsyncCommands<byte[], byte[]> commands;

	// the fleet's instances seen within MEMBER_WINDOW, as last counted on Redis; 1 until counted
	private volatile int instances = 1;

	// whether the members' key holds a value the fleet did not write; background thread only
	private boolean membersBad;

	// consecutive successful probes while not on Redis: counted by the probe, reset by any fallback
	private final AtomicInteger goodProbes = new AtomicInteger();

	private volatile String lastError;

	private volatile long nextProbeNanos;

	private volatile boolean closed;

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
		this.mayBlock = Objects.requireNonNull(mayBlock, "mayBlock");
		this.connector = Objects.requireNonNull(connector, "connector");
		this.settings = Objects.requireNonNull(settings, "settings");
		Objects.requireNonNull(instanceId, "instanceId");
		if (instanceId.isEmpty() || instanceId.startsWith("!")) {
			throw new IllegalArgumentException("instanceId must be non-empty and must not start with '!' (the fleet's "
					+ "own markers do) but was '" + instanceId + "'");
		}
		this.instanceId = instanceId.getBytes(StandardCharsets.UTF_8);
		this.membersKey = key("members", "instances");
		// System.nanoTime() may be negative: the first probe is due now, not at reading 0
		this.nextProbeNanos = System.nanoTime();
		this.thread = new Thread(this::run, "retry-after-fleet");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public RedisFleetSettings settings() {
		return this.settings;
	}

	/**
	 * Returns where the fleet's state is read and written right now.
	 * @return the state
	 */
	public State state() {
		return this.state.get();
	}

	/**
	 * Returns whether retry decisions go to Redis right now.
	 * @return {@code true} in {@link State#REDIS}
	 */
	public boolean onRedis() {
		return this.state.get() == State.REDIS;
	}

	/**
	 * Returns how many times the fleet fell back to local state because Redis timed out or failed.
	 * @return the count since start
	 */
	public long fallbacks() {
		return this.fallbacks.sum();
	}

	/**
	 * Returns a snapshot for the Actuator endpoint and health.
	 * @return the status
	 */
	@Override
	public FleetStatus fleetStatus() {
		return new FleetStatus("redis", state().name(), onRedis(), this.settings.keyPrefix(), fallbacks(),
				Optional.ofNullable(this.lastError), this.settings.commandTimeout(), keyFallbacks(), instances());
	}

	/**
	 * Returns how many times a key fell back to local state because its value was not the fleet's.
	 * @return the count since start
	 */
	public long keyFallbacks() {
		return this.keyFallbacks.sum();
	}

	/**
	 * Returns the fleet's instances seen within the last {@link #MEMBER_WINDOW}, as last counted on Redis: each
	 * instance spends a share of a bucket's last reading when it decides locally. A count that is not a number, or not
	 * between 1 and {@link #MAX_INSTANCES}, is not the fleet's: the last count stands.
	 * @return at least 1, at most {@link #MAX_INSTANCES}
	 */
	public int instances() {
		return this.instances;
	}

	/**
	 * Returns whether the calling thread may wait for Redis, as the {@code mayBlock} check given at construction says.
	 * @return {@code false} on a thread that must not block (with the starter's wiring: Reactor's non-blocking ones)
	 */
	public boolean mayBlock() {
		return this.mayBlock.getAsBoolean();
	}

	/**
	 * Waits, at most {@code timeout}, until the first connection attempt has ended, for the startup read.
	 * @param timeout the longest wait
	 * @return whether the fleet is on Redis now
	 */
	boolean awaitFirstProbe(Duration timeout) {
		try {
			this.firstProbe.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return onRedis();
	}

	/**
	 * Records that the value at {@code key} is not the fleet's (garbage, a wrong type): counted, and logged once per
	 * key until the key is valid again ({@link #keyValid}).
	 * @param key the key
	 */
	void keyFallBack(byte[] key) {
		this.keyFallbacks.increment();
		String name = new String(key, StandardCharsets.UTF_8);
		if (this.badKeys.add(name)) {
			logger.warn("Redis key '" + name + "' holds a value the fleet did not write (a wrong type or not a "
					+ "number): this instance decides for it locally until the key is valid again; delete the key to "
					+ "let the fleet write it");
		}
	}

	/**
	 * Records that the value at {@code key} is the fleet's again.
	 * @param key the key
	 */
	void keyValid(byte[] key) {
		if (!this.badKeys.isEmpty() && this.badKeys.remove(new String(key, StandardCharsets.UTF_8))) {
			logger.info("Redis key '" + new String(key, StandardCharsets.UTF_8) + "' is valid again");
		}
	}

	/** Counts a message on the fleet's channel that was not the fleet's with the keys' fallbacks (the caller logs). */
	void messageIgnored() {
		this.keyFallbacks.increment();
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
		return ("{" + this.settings.keyPrefix() + "}:" + kind + ":" + name).getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Runs a script, waiting at most the command timeout. Never throws: when the fleet is not on Redis, or the
	 * calling thread must not block ({@link #mayBlock()}), it returns empty at once; when Redis times out or fails it
	 * falls back (see the class description) and returns empty. The reply is not validated: read it with
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
		if (this.stopping) {
			// closing: the write is dropped, the instance is going away
			return;
		}
		this.tasks.offer(task);
		LockSupport.unpark(this.thread);
	}

	/** The background thread: handed-over tasks at once, a tick every flush interval, until closed. */
	private void run() {
		long interval = this.settings.flushInterval().toNanos();
		long nextTick = System.nanoTime();
		while (!this.stopping) {
			for (Runnable task = this.tasks.poll(); task != null && !this.stopping; task = this.tasks.poll()) {
				guarded(task);
			}
			if (System.nanoTime() - nextTick >= 0 && !this.stopping) {
				tick();
				nextTick = System.nanoTime() + interval;
			}
			long wait = nextTick - System.nanoTime();
			if (wait > 0 && this.tasks.isEmpty()) {
				LockSupport.parkNanos(this, wait);
			}
			if (Thread.interrupted()) {
				return;
			}
		}
	}

	void register(FleetStore.Participant participant) {
		this.participants.add(participant);
	}

	/**
	 * Switches to local state, counting the switch, unless already there.
	 * @param cause what went wrong
	 */
	void fallBack(Throwable cause) {
		if (this.closed) {
			return;
		}
		State previous = this.state.getAndSet(State.LOCAL_FALLBACK);
		this.lastError = ErrorText.describe(cause);
		this.goodProbes.set(0);
		this.nextProbeNanos = System.nanoTime() + this.settings.probeInterval().toNanos();
		if (previous != State.LOCAL_FALLBACK) {
			this.fallbacks.increment();
			logger.warn("Redis did not answer within " + this.settings.commandTimeout().toMillis()
					+ " ms or failed (" + this.lastError + "): retry budget and cooldown are local to this instance "
					+ "until Redis is back");
			for (FleetStore.Participant participant : this.participants) {
				participant.onFallback();
			}
			FleetStatus status = fleetStatus();
			for (Consumer<FleetStatus> listener : this.fallbackListeners) {
				try {
					listener.accept(status);
				}
				catch (RuntimeException ex) {
					logger.warn("fallback listener " + listener + " threw; ignored", ex);
				}
			}
		}
	}

	@Override
	public void onFallback(Consumer<FleetStatus> listener) {
		this.fallbackListeners.add(Objects.requireNonNull(listener, "listener"));
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

	private void tick() {
		guarded(() -> {
			if (this.state.get() == State.REDIS) {
				heartbeat();
				for (FleetStore.Participant participant : this.participants) {
					participant.sync();
				}
			}
			else if (System.nanoTime() - this.nextProbeNanos >= 0) {
				probe();
			}
		});
	}

	/** Counts the fleet's instances, this one included. */
	private void heartbeat() {
		Optional<List<Object>> reply = execute(FleetScript.HEARTBEAT, new byte[][] { this.membersKey }, this.instanceId,
				Long.toString(MEMBER_WINDOW.toMillis()).getBytes(StandardCharsets.US_ASCII));
		if (reply.isEmpty()) {
			return;
		}
		OptionalLong counted = Replies.whole(reply.get(), 0);
		// at least this instance, at most MAX_INSTANCES: a larger count would give every instance a share near zero
		if (counted.isPresent() && counted.getAsLong() >= 1 && counted.getAsLong() <= MAX_INSTANCES) {
			this.instances = (int) counted.getAsLong();
			if (this.membersBad) {
				this.membersBad = false;
				keyValid(this.membersKey);
			}
		}
		else if (!this.membersBad) {
			// the last count stands
			this.membersBad = true;
			keyFallBack(this.membersKey);
		}
	}

	/**
	 * One probe: connects if needed, loads the scripts, then makes one script round trip within the command timeout;
	 * the first connection needs one good probe, a return from the fallback {@link RedisFleetSettings#rejoinProbes()}
	 * in a row.
	 */
	private void probe() {
		try {
			probeOnce();
		}
		finally {
			this.firstProbe.countDown();
		}
	}

	private void probeOnce() {
		try {
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
		catch (ExecutionException ex) {
			probeFailed(ex.getCause());
			return;
		}
		catch (TimeoutException | RuntimeException ex) {
			probeFailed(ex);
			return;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		State current = this.state.get();
		int needed = (current == State.CONNECTING) ? 1 : this.settings.rejoinProbes();
		if (this.goodProbes.incrementAndGet() < needed) {
			this.nextProbeNanos = System.nanoTime() + this.settings.probeInterval().toNanos();
			return;
		}
		this.goodProbes.set(0);
		if (this.state.compareAndSet(current, State.REDIS)) {
			if (current == State.LOCAL_FALLBACK) {
				logger.info("Redis answers again: retry budget and cooldown are shared by the fleet again");
			}
			// counted at once, not a flush interval later: the shares and leases that follow divide by the fleet's size
			heartbeat();
			for (FleetStore.Participant participant : this.participants) {
				participant.onRejoin();
			}
		}
	}

	private void probeFailed(Throwable cause) {
		this.goodProbes.set(0);
		fallBack(cause);
	}

	private void guarded(Runnable task) {
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			fallBack(ex);
		}
	}

	/**
	 * Stops the background thread and flushes what is batched, once. Idempotent. Call it before the Redis connection
	 * closes (the auto-configuration does so when the application context starts closing).
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.stopping = true;
		LockSupport.unpark(this.thread);
		try {
			this.thread.join(this.settings.commandTimeout().toMillis() * 2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.thread.interrupt();
		if (onRedis()) {
			for (FleetStore.Participant participant : this.participants) {
				participant.sync();
			}
		}
		this.closed = true;
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
