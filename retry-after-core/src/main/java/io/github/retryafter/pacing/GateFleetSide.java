package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.OptionalDouble;

import io.github.retryafter.Scope;

/**
 * The {@link FleetGate} of one {@link ProviderGate}: hands each call to the gate's cooldown, rate or share. Thread-safe
 * as the gate is.
 */
final class GateFleetSide implements FleetGate {

	private final ProviderGate gate;

	GateFleetSide(ProviderGate gate) {
		this.gate = gate;
	}

	@Override
	public Scope scope() {
		return this.gate.scope();
	}

	@Override
	public long cooldownUntilNanos() {
		return this.gate.cooldownUntilNanos();
	}

	@Override
	public Duration cooldownRemaining() {
		return this.gate.cooldownRemaining();
	}

	@Override
	public void closeUntil(long instantNanos) {
		this.gate.closeUntil(instantNanos);
	}

	@Override
	public void onThrottle(long sentAtNanos, long nowNanos) {
		this.gate.onThrottle(sentAtNanos, nowNanos);
	}

	@Override
	public void reset() {
		this.gate.reset();
	}

	@Override
	public OptionalDouble rate() {
		return this.gate.rate();
	}

	@Override
	public int queued() {
		return this.gate.queued();
	}

	@Override
	public void share(double share) {
		if (!(share > 0 && share <= 1)) {
			throw new IllegalArgumentException("a gate's share of its provider must be in (0, 1] but was " + share);
		}
		if (share != this.gate.share.get()) {
			this.gate.rate.share(share);
		}
	}

	@Override
	public double share() {
		return this.gate.share.get();
	}

	@Override
	public void paceAt(double perSecond, long nowNanos) {
		this.gate.rate.paceAt(perSecond, nowNanos);
	}

	@Override
	public void arbiter(ProbeArbiter arbiter) {
		this.gate.cooldown.arbiter(arbiter);
	}

	@Override
	public boolean probePending() {
		return this.gate.probePending();
	}

	@Override
	public void probeGranted() {
		this.gate.cooldown.probeGranted();
	}

	@Override
	public boolean followProbe(long expiresNanos) {
		return this.gate.cooldown.followProbe(expiresNanos);
	}

	@Override
	public void fleetProbeAnswered() {
		this.gate.cooldown.fleetProbeAnswered(false);
	}

	@Override
	public void fleetProbeAdmitted() {
		this.gate.cooldown.fleetProbeAnswered(true);
	}

	@Override
	public String toString() {
		return "FleetGate[" + this.gate + "]";
	}

}
