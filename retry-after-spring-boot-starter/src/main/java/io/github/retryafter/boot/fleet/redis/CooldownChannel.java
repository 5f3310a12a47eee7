package io.github.retryafter.boot.fleet.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.retryafter.fleet.FleetRuntime;
import io.github.retryafter.fleet.FleetStore;

/**
 * The fleet's cooldown announcements on Redis: {@link FleetScript#EXTEND_COOLDOWN} publishes on
 * <code>{prefix}:cooldowns</code> each time it moves a provider's instant later, and every instance listens there on a
 * pub/sub connection of its own, so it learns a cooldown as soon as Redis stores it rather than at its next read. The
 * connection is opened while the fleet is on Redis (asked at once, at the rejoin, or at a sync, at most once a probe
 * interval until it opens), on a short-lived thread of its own so the fleet's thread never waits for it; once open,
 * Lettuce reconnects it and subscribes again by itself (a Redis restart included). Messages published while it is
 * down are lost; the poll every flush interval covers them, as it covers a Redis that allows no pub/sub.
 * <p>
 * A message is {@code <redis now> <until> <id length> <instance id><provider>}: the two instants in microseconds on
 * Redis's clock, the instance id's length in bytes. A message from another instance is handed to the listeners (the
 * shared cooldown keeps the latest per provider and learns it on the fleet's thread); this instance's own are dropped.
 * A message that is not the fleet's (another shape, or longer than {@value #MAX_MESSAGE_BYTES} bytes) is ignored,
 * counted in the fleet's key fallbacks ({@code retry.after.fleet.key.fallbacks}) and logged once until a well-formed
 * one arrives; it never reaches a gate.
 * <p>
 * <b>Bound.</b> Messages are handled on Lettuce's event loop, one at a time: each costs at most
 * {@value #MAX_MESSAGE_BYTES} bytes read and one call per listener (a compare-and-set each), with no queue of its own
 * and nothing that blocks (the logging goes to the fleet's thread, at most once per run of bad messages). A flood of
 * messages therefore costs Redis's output buffer and this loop's time, never memory here. Thread-safe.
 */
final class CooldownChannel extends RedisPubSubAdapter<byte[], byte[]> implements FleetStore.Participant {

	/** The longest message the fleet writes, with room for long provider names and instance ids. */
	static final int MAX_MESSAGE_BYTES = 1024;

	private static final Log logger = LogFactory.getLog(CooldownChannel.class);

	private final RedisFleet fleet;

	private final Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connector;

	private final byte[] channel;

	private final String channelName;

	private final byte[] instanceId;

	// this instance's shared cooldowns (one in an application), registered at startup
	private final List<FleetStore.CooldownListener> listeners = new CopyOnWriteArrayList<>();

	// whether the last message that was not this instance's own was not the fleet's: one log per run of them
	private final AtomicBoolean malformed = new AtomicBoolean();

	private final LongAdder ignored = new LongAdder();

	private final LongAdder heard = new LongAdder();

	private volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private volatile boolean subscribed;

	// subscriptions Redis confirmed: the first, then one after each reconnect
	private final LongAdder subscriptions = new LongAdder();

	private volatile boolean closed;

	// whether a thread is opening the connection: one attempt at a time
	private final AtomicBoolean opening = new AtomicBoolean();

	// when to try to open the connection again after a failure (the fleet's thread), and whether that failure was
	// logged (the opening thread)
	private volatile long nextAttemptNanos = System.nanoTime();

	private volatile boolean failureLogged;

	/**
	 * Creates the channel of the fleet's key prefix; nothing is opened until the fleet's thread syncs or rejoins.
	 * @param fleet the fleet's link, whose thread opens the connection
	 * @param connector opens a new pub/sub connection; called on a thread of its own, allowed to block and to throw
	 */
	CooldownChannel(RedisFleet fleet, Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connector) {
		this.fleet = Objects.requireNonNull(fleet, "fleet");
		this.connector = Objects.requireNonNull(connector, "connector");
		this.channelName = name(fleet.settings().keyPrefix());
		this.channel = this.channelName.getBytes(StandardCharsets.UTF_8);
		this.instanceId = fleet.instanceId();
	}

	/** The channel of a fleet's key prefix: <code>{prefix}:cooldowns</code>, in the fleet's hash slot. */
	static String name(String keyPrefix) {
		return "{" + keyPrefix + "}:cooldowns";
	}

	/** The channel's name, as the script's argument. */
	byte[] channel() {
		return this.channel.clone();
	}

	void listen(FleetStore.CooldownListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener"));
	}

	/** Whether Redis has confirmed the subscription (the first time; Lettuce renews it after a reconnect). */
	boolean subscribed() {
		return this.subscribed;
	}

	/** Subscriptions Redis confirmed since start: the first, and one after each reconnect (Lettuce's own). */
	long subscriptions() {
		return this.subscriptions.sum();
	}

	@Override
	public void subscribed(byte[] channel, long count) {
		this.subscriptions.increment();
	}

	/** Messages from other instances handed to the listeners since start. */
	long heard() {
		return this.heard.sum();
	}

	/** Messages that were not the fleet's, ignored since start. */
	long ignored() {
		return this.ignored.sum();
	}

	@Override
	public void sync() {
		open();
	}

	@Override
	public void onFallback() {
		// an open connection reconnects by itself; the cooldowns are read again at the rejoin
	}

	@Override
	public void onRejoin() {
		open();
	}

	/**
	 * Starts opening the connection, while the fleet is on Redis, unless it is open, being opened, closed, or a failed
	 * attempt was less than a probe interval ago. The connection is opened on a thread of its own, one attempt at a
	 * time, so that the fleet's thread never waits for it (its pushes, reads and probe claims go on meanwhile).
	 */
	private void open() {
		if (this.closed || this.connection != null || !this.fleet.onRedis()
				|| System.nanoTime() - this.nextAttemptNanos < 0 || !this.opening.compareAndSet(false, true)) {
			return;
		}
		this.nextAttemptNanos = System.nanoTime() + this.fleet.settings().probeInterval().toNanos();
		Thread opener = new Thread(this::connect, "retry-after-fleet-subscriber");
		opener.setDaemon(true);
		opener.start();
	}

	/** Opens the connection and subscribes, waiting at most the probe timeout for Redis to confirm; one at a time. */
	private void connect() {
		StatefulRedisPubSubConnection<byte[], byte[]> opened = null;
		try {
			opened = this.connector.get();
			opened.addListener(this);
			opened.async()
				.subscribe(this.channel)
				.get(this.fleet.settings().probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
			this.subscribed = true;
			this.connection = opened;
			if (this.failureLogged) {
				this.failureLogged = false;
				logger.info("Subscribed to Redis channel '" + this.channelName
						+ "': cooldowns reach this instance at once again");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			closeQuietly(opened);
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			closeQuietly(opened);
			if (!this.failureLogged) {
				this.failureLogged = true;
				logger.warn("Could not subscribe to Redis channel '" + this.channelName + "' (" + FleetRuntime.describe(ex)
						+ "): the fleet's cooldowns reach this instance by the poll every flush interval only; trying "
						+ "again every probe interval");
			}
		}
		finally {
			this.opening.set(false);
		}
		if (this.closed) {
			close();
		}
	}

	@Override
	public void message(byte[] channel, byte[] message) {
		Optional<Announcement> announcement = Announcement.parse(message);
		if (announcement.isEmpty()) {
			ignore();
			return;
		}
		if (Arrays.equals(announcement.get().instanceId(), this.instanceId)) {
			// this instance's own extension: its push's reply told it already
			return;
		}
		if (this.malformed.compareAndSet(true, false)) {
			this.fleet.submit(
					() -> logger.info("Redis channel '" + this.channelName + "' carries the fleet's messages again"));
		}
		this.heard.increment();
		for (FleetStore.CooldownListener listener : this.listeners) {
			listener.cooldownAnnounced(announcement.get().provider(), announcement.get().storeNow(),
					announcement.get().until());
		}
	}

	private void ignore() {
		this.ignored.increment();
		this.fleet.messageIgnored();
		if (this.malformed.compareAndSet(false, true)) {
			this.fleet.submit(() -> logger.warn("A message on Redis channel '" + this.channelName + "' is not the "
					+ "fleet's: ignored (counted in the key fallbacks; logged once until a well-formed one arrives). "
					+ "Publish nothing else on it"));
		}
	}

	/** Closes the connection, once; nothing opens it again. Idempotent. */
	void close() {
		this.closed = true;
		StatefulRedisPubSubConnection<byte[], byte[]> open = this.connection;
		this.connection = null;
		closeQuietly(open);
	}

	private static void closeQuietly(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		if (connection == null) {
			return;
		}
		try {
			connection.closeAsync();
		}
		catch (RuntimeException ex) {
			// closing anyway
		}
	}

	@Override
	public String toString() {
		return "CooldownChannel[" + this.channelName + ", subscribed=" + this.subscribed + "]";
	}

	/**
	 * One announcement as the script writes it.
	 *
	 * @param storeNow Redis's now when it stored the instant, microseconds
	 * @param until the instant stored, microseconds
	 * @param instanceId the announcing instance's id, as the scripts store it
	 * @param provider the provider
	 */
	record Announcement(long storeNow, long until, byte[] instanceId, String provider) {

		/**
		 * Reads a message: empty when it is not the fleet's (too long, another shape, an instant that is not a
		 * positive whole number, no provider).
		 */
		static Optional<Announcement> parse(byte[] message) {
			if (message == null || message.length > MAX_MESSAGE_BYTES) {
				return Optional.empty();
			}
			int[] at = { 0 };
			OptionalLong now = number(message, at);
			OptionalLong until = number(message, at);
			OptionalLong length = number(message, at);
			if (now.isEmpty() || until.isEmpty() || length.isEmpty() || now.getAsLong() == 0
					|| until.getAsLong() == 0) {
				return Optional.empty();
			}
			int start = at[0];
			if (length.getAsLong() < 1 || length.getAsLong() >= message.length - start) {
				// no id, or no provider after it
				return Optional.empty();
			}
			int idEnd = start + (int) length.getAsLong();
			return Optional.of(new Announcement(now.getAsLong(), until.getAsLong(),
					Arrays.copyOfRange(message, start, idEnd),
					new String(message, idEnd, message.length - idEnd, StandardCharsets.UTF_8)));
		}

		/** Up to 18 digits before a space at {@code at[0]}, which moves past the space. */
		private static OptionalLong number(byte[] message, int[] at) {
			int start = at[0];
			int end = start;
			while (end < message.length && message[end] != ' ') {
				if (message[end] < '0' || message[end] > '9' || end - start >= 18) {
					return OptionalLong.empty();
				}
				end++;
			}
			if (end == start || end == message.length) {
				return OptionalLong.empty();
			}
			at[0] = end + 1;
			return OptionalLong.of(Long.parseLong(new String(message, start, end - start, StandardCharsets.US_ASCII)));
		}

	}

}
