package io.github.retryafter.fleet;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import io.github.retryafter.Ticker;

/**
 * One instance's membership of a fleet, whatever store keeps the fleet's state: whether its decisions go to the store
 * now ({@link #shared()}), the fleet's size, the store's thread, the participants told of each sync, fallback and
 * rejoin, and the keys that hold what the fleet did not write ({@link #keys()}). A store's operation that fails or
 * times out calls {@link #fallBack}: the instance decides locally, and a probe every probe interval needs
 * {@link FleetRuntimeSettings#rejoinProbes()} good answers in a row before it shares again (one for the first
 * connection). Each {@link #tick()} (every flush interval, on the store's thread) counts the members and syncs the
 * participants while shared, and probes when one is due while not. The store's I/O is its {@link FleetLink}'s.
 * docs/fleet.md gives the reasons. Thread-safe; participants are called on the store's thread, or on the thread that
 * calls {@link #fallBack} or {@link #probe()}.
 */
public final class FleetRuntime {

	private static final System.Logger logger = System.getLogger(FleetRuntime.class.getName());

	private final FleetLink link;

	private final FleetRuntimeSettings settings;

	private final Ticker ticker;

	private final Executor background;

	private final BooleanSupplier mayBlock;

	private final FleetHeartbeat heartbeat;

	// the budget and the cooldown, and a store's own (a subscription): a few, registered at startup
	private final List<FleetStore.Participant> participants = new CopyOnWriteArrayList<>();

	private final AtomicReference<State> state = new AtomicReference<>(State.CONNECTING);

	private final LongAdder fallbacks = new LongAdder();

	private final FleetKeys keys;

	private final CountDownLatch firstProbe = new CountDownLatch(1);

	// told of each fallback: a few, registered at startup
	private final List<Runnable> fallbackListeners = new CopyOnWriteArrayList<>();

	// consecutive good probes while not shared: counted by the probe, reset by any fallback
	private final AtomicInteger goodProbes = new AtomicInteger();

	private volatile String lastError;

	private volatile long nextProbeNanos;

	private volatile boolean closed;

	/**
	 * Creates the runtime, connecting: nothing is shared until the first good {@link #probe()}.
	 * @param link the store's probe and heartbeat
	 * @param settings the store's name, timeouts and probes
	 * @param ticker the clock the probe interval is measured on
	 * @param background the store's thread ({@link FleetWorker}, or a test's or simulation's executor)
	 * @param mayBlock answers, on the calling thread, whether it may wait for the store
	 */
	public FleetRuntime(FleetLink link, FleetRuntimeSettings settings, Ticker ticker, Executor background,
			BooleanSupplier mayBlock) {
		this.link = Objects.requireNonNull(link, "link");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.background = Objects.requireNonNull(background, "background");
		this.mayBlock = Objects.requireNonNull(mayBlock, "mayBlock");
		this.keys = new FleetKeys(link, settings.storeName());
		this.heartbeat = new FleetHeartbeat(link, this.keys);
		// a ticker may read negative: the first probe is due now, not at reading 0
		this.nextProbeNanos = ticker.read();
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public FleetRuntimeSettings settings() {
		return this.settings;
	}

	/**
	 * Returns where this instance's decisions go right now.
	 * @return the state
	 */
	public State state() {
		return this.state.get();
	}

	/**
	 * Returns whether this instance's decisions go to the store right now: {@code false} while it connects for the
	 * first time and while it is on its local fallback.
	 * @return {@code true} in {@link State#SHARED}
	 */
	public boolean shared() {
		return this.state.get() == State.SHARED;
	}

	/**
	 * Returns the fleet's instances, this one included, as last counted: each instance deciding locally spends this
	 * share of a bucket's last level.
	 * @return at least 1
	 */
	public int instances() {
		return this.heartbeat.instances();
	}

	/**
	 * Returns how many times this instance fell back to local state because the store failed or timed out.
	 * @return the count since start
	 */
	public long fallbacks() {
		return this.fallbacks.sum();
	}

	/**
	 * Returns the store's keys that hold a value the fleet did not write, as this instance met them: where the budget
	 * and the cooldown report theirs, and the store its own.
	 * @return the keys
	 */
	public FleetKeys keys() {
		return this.keys;
	}

	/**
	 * Returns the store's last failure, in a few words.
	 * @return the last error, empty while none happened
	 */
	public Optional<String> lastError() {
		return Optional.ofNullable(this.lastError);
	}

	/**
	 * Returns whether the calling thread may wait for the store: a store's operation answers empty at once where it
	 * may not.
	 * @return {@code false} on a thread that must not block (with the starter's wiring: Reactor's non-blocking ones)
	 */
	public boolean mayBlock() {
		return this.mayBlock.getAsBoolean();
	}

	/**
	 * Returns how long a thread that may block waits for the answer to a task it {@link #submit submitted}, when the
	 * answer lets its request go at once (which instance of the fleet probes after a cooldown).
	 * @return {@link FleetRuntimeSettings#answerWithin()}: zero where someone else runs the tasks (a test, the
	 * simulator)
	 */
	public Duration answerWithin() {
		return this.settings.answerWithin();
	}

	/**
	 * Runs {@code task} on the store's thread as soon as it is free. Never blocks or parks the caller, so it may be
	 * called on an event loop. A store that is closing drops the task.
	 * @param task the task; may call the store's operations
	 */
	public void submit(Runnable task) {
		this.background.execute(task);
	}

	/**
	 * Registers a participant: {@link FleetStore.Participant#sync()} every flush interval while shared, and told of
	 * each fallback and rejoin.
	 * @param participant the participant
	 */
	public void register(FleetStore.Participant participant) {
		this.participants.add(Objects.requireNonNull(participant, "participant"));
	}

	/**
	 * Registers a listener told of each fallback (once per fallback, not per failed operation), on the thread that
	 * noticed; what it throws is logged and ignored.
	 * @param listener the listener, which must not block
	 */
	public void onFallback(Runnable listener) {
		this.fallbackListeners.add(Objects.requireNonNull(listener, "listener"));
	}

	/**
	 * Switches to local state, unless closed: counted, logged and told to the participants and listeners unless
	 * already there; the next probe is due a probe interval from now. Called by a store whose operation failed or
	 * timed out, on the thread that noticed.
	 * @param cause what went wrong
	 */
	public void fallBack(Throwable cause) {
		if (this.closed) {
			return;
		}
		State previous = this.state.getAndSet(State.LOCAL_FALLBACK);
		this.lastError = ErrorText.describe(cause);
		this.goodProbes.set(0);
		this.nextProbeNanos = this.ticker.read() + this.settings.probeInterval().toNanos();
		if (previous == State.LOCAL_FALLBACK) {
			return;
		}
		this.fallbacks.increment();
		logger.log(Level.WARNING, this.settings.storeName() + " did not answer within "
				+ this.settings.commandTimeout().toMillis() + " ms or failed (" + this.lastError + "): retry budget and "
				+ "cooldown are local to this instance until " + this.settings.storeName() + " is back");
		for (FleetStore.Participant participant : this.participants) {
			participant.onFallback();
		}
		for (Runnable listener : this.fallbackListeners) {
			try {
				listener.run();
			}
			catch (RuntimeException ex) {
				logger.log(Level.WARNING, "fallback listener " + listener + " threw; ignored", ex);
			}
		}
	}

	/**
	 * The flush interval's tick, on the store's thread: while shared, counts the fleet's members and syncs every
	 * participant; otherwise probes the store when a probe is due.
	 */
	public void tick() {
		if (this.state.get() == State.SHARED) {
			this.heartbeat.beat();
			for (FleetStore.Participant participant : this.participants) {
				participant.sync();
			}
		}
		else if (this.ticker.read() - this.nextProbeNanos >= 0) {
			probe();
		}
	}

	/**
	 * Counts the fleet's instances now, this one included (the tick does it every flush interval while shared).
	 */
	public void heartbeat() {
		this.heartbeat.beat();
	}

	/**
	 * Probes the store once, now, unless shared already: a failure falls back (counted once); the first connection
	 * needs one good probe, a return from the fallback {@link FleetRuntimeSettings#rejoinProbes()} in a row. On the
	 * return the members are counted at once and the participants told.
	 */
	public void probe() {
		try {
			if (this.state.get() == State.SHARED || !probeOnce()) {
				return;
			}
			State current = this.state.get();
			int needed = (current == State.CONNECTING) ? 1 : this.settings.rejoinProbes();
			if (this.goodProbes.incrementAndGet() < needed) {
				this.nextProbeNanos = this.ticker.read() + this.settings.probeInterval().toNanos();
				return;
			}
			this.goodProbes.set(0);
			if (this.state.compareAndSet(current, State.SHARED)) {
				rejoined(current);
			}
		}
		finally {
			this.firstProbe.countDown();
		}
	}

	private boolean probeOnce() {
		try {
			this.link.probe();
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (Exception ex) {
			Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null)
					? ex.getCause() : ex;
			this.goodProbes.set(0);
			fallBack(cause);
			return false;
		}
	}

	private void rejoined(State from) {
		if (from == State.LOCAL_FALLBACK) {
			logger.log(Level.INFO, this.settings.storeName() + " answers again: retry budget and cooldown are shared "
					+ "by the fleet again");
		}
		// counted at once, not a flush interval later: the shares and leases that follow divide by the fleet's size
		this.heartbeat.beat();
		for (FleetStore.Participant participant : this.participants) {
			participant.onRejoin();
		}
	}

	/**
	 * Waits, on the calling thread and at most {@link FleetRuntimeSettings#probeTimeout()}, until the first probe has
	 * ended, for a startup read; a store not connected by then falls back (counted).
	 * @return whether this instance is {@link #shared()} now
	 */
	public boolean awaitFirstConnection() {
		Duration timeout = this.settings.probeTimeout();
		try {
			this.firstProbe.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (shared()) {
			return true;
		}
		if (this.state.get() == State.CONNECTING) {
			fallBack(new TimeoutException("no connection to " + this.settings.storeName() + " within "
					+ timeout.toMillis() + " ms at startup"));
		}
		return false;
	}

	/**
	 * Flushes what is batched, once, if shared, and stops counting fallbacks. Idempotent. The store's owner stops its
	 * thread first, then closes the runtime, then the connection.
	 */
	public void close() {
		if (this.closed) {
			return;
		}
		if (shared()) {
			for (FleetStore.Participant participant : this.participants) {
				participant.sync();
			}
		}
		this.closed = true;
	}

	/**
	 * Describes what went wrong in a few words, as {@link #lastError()} shows it: "timed out", or the exception's
	 * simple name and its message, cut to one short line.
	 * @param cause the failure, may be {@code null}
	 * @return the text
	 */
	public static String describe(Throwable cause) {
		return ErrorText.describe(cause);
	}

	@Override
	public String toString() {
		return "FleetRuntime[" + this.settings.storeName() + ", " + this.state.get() + "]";
	}

	/**
	 * Where this instance's decisions go right now.
	 */
	public enum State {

		/** Connecting for the first time: every decision is local until the store answers. */
		CONNECTING,

		/** Retry decisions and cooldowns go to the store. */
		SHARED,

		/** The store timed out or failed: every decision is local, and the store is probed until it answers. */
		LOCAL_FALLBACK

	}

}
