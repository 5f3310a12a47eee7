package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.FleetGate;

/**
 * The {@link SharedCooldown}'s share side: each configured provider's gate paces at {@code 1 / instances} of the
 * provider, or, while it holds a backlog, at {@code 1 / (instances with a backlog)}, at the rate the fleet's gates
 * with a backlog pace at together times its part of their backlog. A gate counts as holding a backlog for half the
 * window after its queue empties; no round trip while no gate here has or had one. Runs on the store's thread.
 */
final class FleetBacklogs {

	/** The shortest time an instance counts as having a backlog after it last reported one. */
	private static final Duration WINDOW_FLOOR = Duration.ofMillis(250);

	private final SharedCooldown cooldown;

	private final FleetStore store;

	// the store's runtime: whether it is shared now, the fleet's size, the store's thread, the key fallbacks
	private final FleetRuntime runtime;

	private final Ticker ticker;

	private final List<CooldownEntry> order;

	private final Duration window;

	FleetBacklogs(SharedCooldown cooldown, FleetStore store, Ticker ticker, List<CooldownEntry> order,
			Duration flushInterval) {
		this.cooldown = cooldown;
		this.store = store;
		this.runtime = store.runtime();
		this.ticker = ticker;
		this.order = order;
		// how long an instance that went away counts as having a backlog: ten flush intervals, at least 250 ms
		Duration ten = flushInterval.multipliedBy(10);
		this.window = (ten.compareTo(WINDOW_FLOOR) < 0) ? WINDOW_FLOOR : ten;
	}

	/**
	 * Reports which providers' gates hold a backlog here, with the requests they hold and their rate, and reads the
	 * fleet's sums: a gate holding requests paces at the fleet's rate times its part of the fleet's backlog.
	 */
	void report() {
		long now = this.ticker.read();
		List<FleetStore.BacklogReport> reports = new ArrayList<>(this.order.size());
		int[] queued = new int[this.order.size()];
		boolean any = false;
		for (int i = 0; i < this.order.size(); i++) {
			CooldownEntry entry = this.order.get(i);
			Optional<FleetGate> gate = this.cooldown.gate(entry);
			queued[i] = gate.map(FleetGate::queued).orElse(0);
			double rate = gate.map((g) -> g.rate().orElse(0)).orElse(0.0);
			if (queued[i] > 0) {
				entry.lastBacklog = now;
				entry.backlogSeen = true;
			}
			boolean backlog = entry.backlogSeen && now - entry.lastBacklog < this.window.toNanos() / 2;
			// only a gate holding requests now lends its rate to the fleet's sum
			boolean lends = backlog && queued[i] > 0 && rate > 0;
			reports.add(new FleetStore.BacklogReport(entry.provider, backlog, lends ? queued[i] : 0, lends ? rate : 0));
			entry.reporting = backlog;
			any |= backlog || entry.reported;
		}
		if (!any) {
			return;
		}
		Optional<List<Optional<FleetStore.Backlogs>>> reply = this.store.reportBacklogs(this.window, reports);
		if (reply.isEmpty()) {
			return;
		}
		long received = this.ticker.read();
		for (int i = 0; i < this.order.size(); i++) {
			Optional<FleetStore.Backlogs> sums = (i < reply.get().size()) ? reply.get().get(i) : Optional.empty();
			apply(this.order.get(i), sums, queued[i], received);
		}
	}

	private void apply(CooldownEntry entry, Optional<FleetStore.Backlogs> sums, int queued, long received) {
		entry.reported = entry.reporting;
		entry.backlogged = sums.map((fleet) -> (int) Math.min(Integer.MAX_VALUE, fleet.instances())).orElse(0);
		if (sums.isEmpty() && entry.backlogBad.compareAndSet(false, true)) {
			this.runtime.keys().keyInvalid(FleetStore.ProviderKey.BACKLOG, entry.provider);
		}
		else if (sums.isPresent() && entry.backlogBad.compareAndSet(true, false)) {
			this.runtime.keys().keyValid(FleetStore.ProviderKey.BACKLOG, entry.provider);
		}
		if (sums.isPresent() && entry.reported && queued > 0 && sums.get().queued() > 0 && sums.get().rate() > 0) {
			double part = Math.min(1.0, queued / (double) sums.get().queued());
			double rate = sums.get().rate() * part;
			this.cooldown.gate(entry).ifPresent((gate) -> gate.paceAt(rate, received));
		}
	}

	/** Sets each gate's share of its provider, and its probe arbiter. */
	void share() {
		int instances = this.runtime.instances();
		for (CooldownEntry entry : this.order) {
			this.cooldown.gate(entry).ifPresent((gate) -> {
				int sharing = (entry.reported && entry.backlogged > 0) ? Math.min(entry.backlogged, instances) : instances;
				gate.share(1.0 / Math.max(1, sharing));
				gate.arbiter(entry.arbiter);
			});
		}
	}

}
