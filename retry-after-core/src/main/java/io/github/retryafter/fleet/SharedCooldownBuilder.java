package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import io.github.retryafter.Ticker;

/**
 * Builds a {@link SharedCooldown}. Not thread-safe; the cooldown it builds is.
 */
public final class SharedCooldownBuilder {

	/** The flush interval unless set: the starter's default. */
	static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(50);

	private final FleetStore store;

	private final Map<String, Duration> caps = new LinkedHashMap<>();

	private final Map<String, Duration> probeLeases = new LinkedHashMap<>();

	private Ticker ticker = Ticker.system();

	private BooleanSupplier mayBlock = () -> true;

	private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;

	SharedCooldownBuilder(FleetStore store) {
		this.store = Objects.requireNonNull(store, "store");
	}

	/**
	 * Adds a configured provider, whose cooldown the fleet shares, capped at {@link SharedCooldown#DEFAULT_CAP}, its
	 * probe's answer awaited {@link SharedCooldown#DEFAULT_PROBE_LEASE} at most.
	 * @param name the provider's configured name
	 * @return this builder
	 */
	public SharedCooldownBuilder provider(String name) {
		return provider(name, SharedCooldown.DEFAULT_CAP, SharedCooldown.DEFAULT_PROBE_LEASE);
	}

	/**
	 * Adds a configured provider, whose cooldown the fleet shares.
	 * @param name the provider's configured name
	 * @param cap the longest cooldown this instance stores or accepts from the fleet (its {@code max-cooldown})
	 * @param probeLease how long, at most, the fleet's other instances wait for the answer of its probe after a
	 * cooldown (its attempt timeout)
	 * @return this builder
	 * @throws IllegalArgumentException if {@code cap} or {@code probeLease} is not positive
	 */
	public SharedCooldownBuilder provider(String name, Duration cap, Duration probeLease) {
		Objects.requireNonNull(name, "name");
		if (cap.isNegative() || cap.isZero()) {
			throw new IllegalArgumentException("the cooldown cap of '" + name + "' must be positive but was " + cap);
		}
		if (probeLease.isNegative() || probeLease.isZero()) {
			throw new IllegalArgumentException("the probe lease of '" + name + "' must be positive but was "
					+ probeLease);
		}
		this.caps.put(name, cap);
		this.probeLeases.put(name, probeLease);
		return this;
	}

	/**
	 * Sets the engines' monotonic clock ({@link Ticker#system()} unless set).
	 * @param ticker the clock
	 * @return this builder
	 */
	public SharedCooldownBuilder ticker(Ticker ticker) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		return this;
	}

	/**
	 * Sets which threads may wait for the store: {@link SharedCooldown#attach} reads the fleet's cooldowns only on a
	 * thread where it answers {@code true}. Every thread may, unless set.
	 * @param mayBlock answers, on the calling thread, whether it may block
	 * @return this builder
	 */
	public SharedCooldownBuilder mayBlock(BooleanSupplier mayBlock) {
		this.mayBlock = Objects.requireNonNull(mayBlock, "mayBlock");
		return this;
	}

	/**
	 * Sets how often the store syncs its participants (50 ms unless set): a backlog report counts for ten of them,
	 * at least 250 ms.
	 * @param flushInterval the store's flush interval, positive
	 * @return this builder
	 * @throws IllegalArgumentException if {@code flushInterval} is not positive
	 */
	public SharedCooldownBuilder flushInterval(Duration flushInterval) {
		if (flushInterval.isNegative() || flushInterval.isZero()) {
			throw new IllegalArgumentException("the flush interval must be positive but was " + flushInterval);
		}
		this.flushInterval = flushInterval;
		return this;
	}

	/**
	 * Builds the cooldown and registers it with the store; it does nothing until {@link SharedCooldown#attach
	 * attached} to the engines' gates.
	 * @return the cooldown
	 */
	public SharedCooldown build() {
		return new SharedCooldown(this.store, this.caps, this.probeLeases, this.ticker, this.mayBlock,
				this.flushInterval);
	}

}
