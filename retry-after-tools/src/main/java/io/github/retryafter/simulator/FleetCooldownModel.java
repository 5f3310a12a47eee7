package io.github.retryafter.simulator;

import java.util.Arrays;

import io.github.retryafter.pacing.FleetGate;

/**
 * The simulator's <b>model</b> of the store's cooldown side, as the starter's {@code RedisProviderCooldown} keeps it:
 * a cooldown pushed when a gate closes and read back every flush, in {@link FleetStoreSimulation.Mode#STORE} the probe
 * after a cooldown claimed by the first instance to ask and its claim removed when its answer comes, and the backlog
 * report that sets each gate's share and rate. <b>Next (issue 28's cooldown half):</b> the cooldown's algorithm moves
 * to the core over the store SPI, and this model gives way to it as the budget's did. Confined to the run's thread.
 */
final class FleetCooldownModel {

	private final FleetStoreRun run;

	private final boolean coordinated;

	// the store's side: the cooldown instant and the probe claim
	private long cooldownUntil = Long.MIN_VALUE;

	private long claimUntil = Long.MIN_VALUE;

	private int claimOwner = -1;

	// the store's backlog hash: per instance, when it last reported a backlog (Long.MIN_VALUE: no field), with the
	// requests it held and its rate
	private final long[] backlogAt;

	private final int[] backlogQueued;

	private final double[] backlogRate;

	private final Side[] sides;

	FleetCooldownModel(FleetStoreRun run, int instances, boolean coordinated) {
		this.run = run;
		this.coordinated = coordinated;
		this.backlogAt = new long[instances];
		Arrays.fill(this.backlogAt, Long.MIN_VALUE);
		this.backlogQueued = new int[instances];
		this.backlogRate = new double[instances];
		this.sides = new Side[instances];
		for (int i = 0; i < instances; i++) {
			this.sides[i] = new Side();
		}
	}

	/** An instance's side of the cooldown, the probe and the backlog report. */
	private static final class Side {

		boolean flushRequested;

		long pushedCooldown = Long.MIN_VALUE;

		long claimed = Long.MIN_VALUE;

		long owned = Long.MIN_VALUE;

		long following = Long.MIN_VALUE;

		// when the gate last held requests, what the last flush reported and the fleet's sums the store answered
		long lastBacklog = Long.MIN_VALUE;

		boolean reporting;

		int reportedQueued;

		double reportedRate;

		int fleetBacklogged;

		long fleetQueued;

		double fleetRate;

	}

	/** After a response: publish when the gate closed later than the fleet knows, or this instance's probe has its answer. */
	void afterResponse(int instance, FleetGate gate, long now) {
		Side side = this.sides[instance];
		boolean closedLater = gate.cooldownUntilNanos() - now > 0 && gate.cooldownUntilNanos() - side.pushedCooldown > 0;
		boolean probeAnswered = side.owned != Long.MIN_VALUE && !gate.probePending();
		if (closedLater || probeAnswered) {
			requestFlush(instance);
		}
	}

	void requestFlush(int instance) {
		if (!this.sides[instance].flushRequested) {
			this.sides[instance].flushRequested = true;
			this.run.schedule(this.run.now, FleetStoreRun.Kind.COOLDOWN_FLUSH, instance, 1);
		}
	}

	/** Sends the gate's cooldown, its answered probe and its backlog; the store answers half a round trip later. */
	void flush(int instance, FleetGate gate, boolean timer) {
		Side side = this.sides[instance];
		long now = this.run.now;
		if (!timer) {
			side.flushRequested = false;
		}
		if (gate.cooldownUntilNanos() - now > 0) {
			side.pushedCooldown = Math.max(side.pushedCooldown, gate.cooldownUntilNanos());
		}
		if (side.owned != Long.MIN_VALUE && !gate.probePending() && gate.cooldownRemaining().isZero()) {
			this.run.schedule(now + this.run.half, FleetStoreRun.Kind.END_PROBE_AT_STORE, instance, side.owned);
			side.owned = Long.MIN_VALUE;
		}
		if (this.coordinated) {
			report(side, gate, now);
		}
		this.run.schedule(now + this.run.half, FleetStoreRun.Kind.COOLDOWN_AT_STORE, instance, 0);
	}

	/** What this flush reports of the gate's backlog: held for half the window after its queue empties. */
	private void report(Side side, FleetGate gate, long now) {
		int queued = gate.queued();
		if (queued > 0) {
			side.lastBacklog = now;
		}
		side.reporting = side.lastBacklog != Long.MIN_VALUE && now - side.lastBacklog < backlogWindowNanos() / 2;
		side.reportedQueued = queued;
		side.reportedRate = (queued > 0) ? gate.rate().orElse(0) : 0;
	}

	/** The starter's window: ten flush intervals, at least 250 ms. */
	private long backlogWindowNanos() {
		return Math.max(250_000_000L, 10 * this.run.store.flushInterval().toNanos());
	}

	/** The store's side of {@code BACKLOGS}: this instance's field written or removed, the fresh fields summed. */
	private void countBacklogs(int instance) {
		Side side = this.sides[instance];
		long now = this.run.now;
		if (side.reporting) {
			this.backlogAt[instance] = now;
			this.backlogQueued[instance] = side.reportedQueued;
			this.backlogRate[instance] = side.reportedRate;
		}
		else {
			this.backlogAt[instance] = Long.MIN_VALUE;
		}
		int count = 0;
		long queued = 0;
		double rate = 0;
		for (int j = 0; j < this.backlogAt.length; j++) {
			if (this.backlogAt[j] != Long.MIN_VALUE && this.backlogAt[j] >= now - backlogWindowNanos()) {
				count++;
				queued += this.backlogQueued[j];
				rate += this.backlogRate[j];
			}
		}
		side.fleetBacklogged = count;
		side.fleetQueued = queued;
		side.fleetRate = rate;
	}

	/** The reply's side: the gate's share among the instances with a backlog, and its part of their rate. */
	private void paceByBacklog(Side side, FleetGate gate) {
		int instances = this.sides.length;
		int sharing = (side.reporting && side.fleetBacklogged > 0) ? Math.min(side.fleetBacklogged, instances)
				: instances;
		gate.share(1.0 / sharing);
		if (side.reporting && side.reportedQueued > 0 && side.fleetQueued > 0 && side.fleetRate > 0) {
			double part = Math.min(1.0, side.reportedQueued / (double) side.fleetQueued);
			gate.paceAt(side.fleetRate * part, this.run.now);
		}
	}

	/** The store's side of a flush: the cooldown stored as the latest instant, the claim expired or still standing. */
	void atStore(int instance) {
		Side side = this.sides[instance];
		long now = this.run.now;
		if (this.coordinated) {
			countBacklogs(instance);
		}
		if (side.pushedCooldown - now > 0) {
			this.cooldownUntil = Math.max(this.cooldownUntil, side.pushedCooldown);
		}
		long reply = now + this.run.half;
		this.run.schedule(reply, FleetStoreRun.Kind.COOLDOWN_REPLY, instance, this.cooldownUntil);
		if (this.claimOwner >= 0 && now > this.claimUntil + leaseNanos()) {
			// the claim's key has expired
			this.claimOwner = -1;
			this.claimUntil = Long.MIN_VALUE;
		}
		// what the reply carries of the claim: whether the claim this instance follows still stands
		if (side.following != Long.MIN_VALUE && this.claimUntil != side.following) {
			this.run.schedule(reply, FleetStoreRun.Kind.CLAIM_GONE, instance, 0);
		}
	}

	/** The reply: the fleet's cooldown closes the gate, which paces after it; the backlog sets its share and rate. */
	void reply(int instance, FleetGate gate, long cooldownUntil) {
		Side side = this.sides[instance];
		long now = this.run.now;
		if (cooldownUntil - now > 0) {
			gate.closeUntil(cooldownUntil);
			if (this.coordinated && gate.rate().isEmpty()) {
				// the provider throttled the fleet: this gate paces after the cooldown, as the starter's does
				gate.onThrottle(now, now);
			}
			side.pushedCooldown = Math.max(side.pushedCooldown, cooldownUntil);
			side.claimed = Math.max(side.claimed, cooldownUntil);
		}
		if (this.coordinated) {
			paceByBacklog(side, gate);
		}
	}

	/** The gate's first request after a cooldown is ready: claim the probe of the fleet's latest cooldown. */
	void requestClaim(int instance, FleetGate gate) {
		Side side = this.sides[instance];
		if (side.claimed == Long.MIN_VALUE) {
			gate.probeGranted();
			return;
		}
		this.run.schedule(this.run.now + this.run.half, FleetStoreRun.Kind.CLAIM_AT_STORE, instance, side.claimed);
	}

	void claimAtStore(int instance, long until) {
		long now = this.run.now;
		if (this.claimOwner < 0 || this.claimUntil < until || now > this.claimUntil + leaseNanos()) {
			this.claimUntil = until;
			this.claimOwner = instance;
		}
		long owner = (this.claimUntil == until) ? this.claimOwner : -1;
		this.run.schedule(now + this.run.half, FleetStoreRun.Kind.CLAIM_REPLY, instance, owner);
	}

	/** The claim this instance followed is gone: answered, expired or replaced. */
	void claimGone(int instance, FleetGate gate) {
		this.sides[instance].following = Long.MIN_VALUE;
		gate.fleetProbeAnswered();
	}

	/** The store's answer to this instance's claim of the probe after its latest cooldown. */
	void claimReply(int instance, FleetGate gate, int owner) {
		Side side = this.sides[instance];
		long until = side.claimed;
		if (owner == instance || owner < 0) {
			side.owned = (owner < 0) ? Long.MIN_VALUE : until;
			gate.probeGranted();
		}
		else if (gate.followProbe(until + leaseNanos())) {
			side.following = until;
		}
	}

	void endProbeAtStore(int instance, long until) {
		if (this.claimOwner == instance && this.claimUntil == until) {
			this.claimOwner = -1;
			this.claimUntil = Long.MIN_VALUE;
		}
	}

	private long leaseNanos() {
		return this.run.backlog.policy().attemptTimeout().toNanos();
	}

}
