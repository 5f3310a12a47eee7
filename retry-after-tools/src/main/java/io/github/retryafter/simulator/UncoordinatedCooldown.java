package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.retryafter.Ticker;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.SharedCooldown;
import io.github.retryafter.pacing.FleetGate;

/**
 * A fleet cooldown <b>without coordination</b>, for {@link FleetStoreSimulation.Mode#STORE_UNCOORDINATED}: a gate
 * closed later than the fleet knows is pushed at once and every flush reads the fleet's instant back, but no instance
 * paces at a share, none reports its backlog and each probes for itself after every fleet cooldown. It leaves out what
 * the real {@link SharedCooldown} adds, so the simulator can show the collapse a fleet meets without it; it runs over
 * the same store operations. Confined to the run's thread.
 */
final class UncoordinatedCooldown implements FleetStore.Participant {

	private final FleetStore store;

	private final String provider;

	private final Ticker ticker;

	private FleetGate gate;

	// the latest local instant exchanged with the fleet
	private long pushed = Long.MIN_VALUE;

	private boolean publishing;

	UncoordinatedCooldown(FleetStore store, String provider, Ticker ticker) {
		this.store = store;
		this.provider = provider;
		this.ticker = ticker;
		store.runtime().register(this);
	}

	void attach(FleetGate gate) {
		this.gate = gate;
	}

	/** After a response: the gate closed later than the fleet knows goes to the store at once. */
	void afterResponse() {
		long until = this.gate.cooldownUntilNanos();
		if (until - this.ticker.read() > 0 && until - this.pushed > 0 && !this.publishing) {
			this.publishing = true;
			this.store.runtime().submit(() -> {
				this.publishing = false;
				exchange();
			});
		}
	}

	@Override
	public void sync() {
		exchange();
	}

	@Override
	public void onFallback() {
	}

	@Override
	public void onRejoin() {
	}

	/** Pushes the gate's cooldown if it closed later than the fleet knows, and closes it until the fleet's instant. */
	private void exchange() {
		long now = this.ticker.read();
		long until = this.gate.cooldownUntilNanos();
		Optional<FleetStore.Cooldown> reply;
		if (until - now > 0 && until - this.pushed > 0) {
			this.pushed = until;
			reply = this.store.extendCooldown(this.provider, Duration.ofNanos(until - now), SharedCooldown.DEFAULT_CAP);
		}
		else {
			reply = this.store.readCooldowns(List.of(this.provider)).map((read) -> read.get(0));
		}
		reply.ifPresent((cooldown) -> {
			long remaining = cooldown.until().orElse(0) - cooldown.storeNow();
			if (remaining > 0) {
				long instant = this.ticker.read() + remaining * 1000;
				this.gate.closeUntil(instant);
				this.pushed = Math.max(this.pushed, instant);
			}
		});
	}

}
