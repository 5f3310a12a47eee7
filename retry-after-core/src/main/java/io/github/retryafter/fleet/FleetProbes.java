package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.FleetGate;
import io.github.retryafter.pacing.ProbeArbiter;

/**
 * The {@link SharedCooldown}'s probe side: one probe per fleet after a fleet cooldown. The first instance whose request
 * is ready claims the probe and sends it; the others follow its claim until it is removed on the probe's answer or
 * its lease ends; a probe the provider admitted opens the instances following it and those still holding that
 * instant. A claim the store answers for an instant beyond the cap after its own now is no fleet cooldown's (a lying
 * message, a clock that stepped back): the instance probes for itself. Runs on the store's thread.
 */
final class FleetProbes {

	private static final long NONE = CooldownEntry.NONE;

	private final SharedCooldown cooldown;

	private final FleetStore store;

	// the store's runtime: whether it is shared now, the fleet's size, the store's thread, the key fallbacks
	private final FleetRuntime runtime;

	private final Ticker ticker;

	private final List<CooldownEntry> order;

	private final List<String> providers;

	private final BooleanSupplier mayBlock;

	FleetProbes(SharedCooldown cooldown, FleetStore store, Ticker ticker, List<CooldownEntry> order,
			List<String> providers, BooleanSupplier mayBlock) {
		this.mayBlock = mayBlock;
		this.cooldown = cooldown;
		this.store = store;
		this.runtime = store.runtime();
		this.ticker = ticker;
		this.order = order;
		this.providers = providers;
	}

	/**
	 * The {@link ProbeArbiter} of a configured provider's gate: on the store's thread, claims the probe after the
	 * fleet's latest cooldown of the provider. A cooldown the fleet never knew of, the store away, or a key that is not
	 * the fleet's: this instance probes for itself.
	 */
	void request(CooldownEntry entry, FleetGate gate) {
		Duration within = this.runtime.answerWithin();
		if (within.isZero() || !this.mayBlock.getAsBoolean()) {
			this.runtime.submit(() -> claim(entry, gate));
			return;
		}
		// a thread that may block waits for the claim (one script call), bounded: its request then goes at once
		CountDownLatch answered = new CountDownLatch(1);
		this.runtime.submit(() -> {
			try {
				claim(entry, gate);
			}
			finally {
				answered.countDown();
			}
		});
		try {
			answered.await(within.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Claims the probe after the fleet's latest cooldown of {@code entry}'s provider, on the store's thread. */
	private void claim(CooldownEntry entry, FleetGate gate) {
		long until = entry.fleetUntil;
		if (!this.runtime.shared() || until == NONE) {
			gate.probeGranted();
			return;
		}
		Optional<FleetStore.ProbeClaim> reply = this.store.claimProbe(entry.provider, until, entry.lease);
		long received = this.ticker.read();
		FleetStore.Claimant claimant = reply.map(FleetStore.ProbeClaim::claimant).orElse(FleetStore.Claimant.INVALID);
		if (claimant != FleetStore.Claimant.INVALID && beyondCap(entry, reply.get())) {
			// a claim for an instant beyond the cap on the store's own clock is no fleet cooldown's (a message that lied
			// about the store's now, or a clock that stepped back): this gate probes for itself, and a claim of its own
			// is withdrawn, or its long life would answer every later claim of the fleet
			if (claimant == FleetStore.Claimant.THIS_INSTANCE) {
				this.store.endProbe(entry.provider, reply.get().instant(), false);
			}
			claimant = FleetStore.Claimant.INVALID;
		}
		if (claimant == FleetStore.Claimant.INVALID || claimant == FleetStore.Claimant.THIS_INSTANCE) {
			if (claimant == FleetStore.Claimant.THIS_INSTANCE) {
				entry.owned = reply.get().instant();
			}
			gate.probeGranted();
			return;
		}
		FleetStore.ProbeClaim claim = reply.get();
		long remainingMicros = entry.remainingMicros(claim.storeNow(), claim.instant());
		if (claimant == FleetStore.Claimant.ADMITTED) {
			// that cooldown's probe has its answer already, and the provider admitted it (the store holds no claim for
			// an earlier instant than this gate's): this gate opens
			admitted(entry, gate, claim.instant(), false);
		}
		else if (gate.followProbe(received + (remainingMicros + entry.leaseMicros) * 1000)) {
			entry.following = claim.instant();
			entry.followingEnds = received + remainingMicros * 1000;
			entry.followedFrom = entry.fleetUntil;
		}
	}

	/** Whether a claim's instant lies beyond the cap after the store's now it was answered with. */
	private static boolean beyondCap(CooldownEntry entry, FleetStore.ProbeClaim claim) {
		long ahead = claim.instant() - claim.storeNow();
		// an overflow (instants of either sign far apart) is beyond the cap too
		return (claim.instant() > claim.storeNow()) && (ahead < 0 || ahead > entry.capMicros);
	}

	/** Removes the claims of probes this instance sent that have their answer, so the fleet's other instances go. */
	void endAnswered() {
		for (CooldownEntry entry : this.order) {
			long owned = entry.owned;
			if (owned == NONE) {
				continue;
			}
			Optional<FleetGate> gate = this.cooldown.gate(entry);
			if (gate.isEmpty() || (!gate.get().probePending() && gate.get().cooldownRemaining().isZero())) {
				// the gate is open after its probe: the provider admitted it, and the fleet's cooldown of that
				// instant is over for every instance
				entry.owned = NONE;
				this.store.endProbe(entry.provider, owned, gate.isPresent());
				if (owned == entry.fleetUntil) {
					// that instant, read again, never closes the gate again (a later one, learned since, still does)
					entry.closedFor = owned;
				}
			}
		}
	}

	/**
	 * Lets the requests held behind another instance's probe go once its claim is gone: the probe has its answer. A
	 * claim that says the provider admitted the probe of the fleet's latest instant opens this instance's gate, whether
	 * it followed that probe or still holds the fleet's cooldown.
	 */
	void follow() {
		boolean any = false;
		for (CooldownEntry entry : this.order) {
			any |= entry.following != NONE || coolingForTheFleet(entry);
		}
		if (!any) {
			return;
		}
		Optional<List<FleetStore.ProbeState>> reply = this.store.readProbes(this.providers);
		if (reply.isEmpty()) {
			return;
		}
		for (int i = 0; i < this.order.size(); i++) {
			CooldownEntry entry = this.order.get(i);
			long following = entry.following;
			FleetStore.ProbeState claim = (i < reply.get().size()) ? reply.get().get(i) : FleetStore.ProbeState.NONE;
			if (claim.admitted() && (claim.instant() == following
					|| (following == NONE && claim.instant() == entry.fleetUntil))) {
				// a cooldown learned since this gate began to follow, ending later than the probe's, stands
				boolean laterStands = claim.instant() != entry.fleetUntil && entry.fleetUntil != entry.followedFrom
						&& entry.fleetEnds - entry.followingEnds > 0;
				this.cooldown.gate(entry).ifPresent((gate) -> admitted(entry, gate, claim.instant(), laterStands));
				continue;
			}
			if (following == NONE) {
				continue;
			}
			if (claim.admitted() || claim.instant() == 0 || claim.instant() != following) {
				// answered (the owner removed its claim), expired, replaced by a later cooldown's, or not the fleet's
				entry.following = NONE;
				this.cooldown.gate(entry).ifPresent(FleetGate::fleetProbeAnswered);
			}
		}
	}

	/** Whether {@code entry}'s gate holds a fleet cooldown whose probe's answer this instance has not heard yet. */
	private boolean coolingForTheFleet(CooldownEntry entry) {
		return entry.fleetUntil != NONE && entry.fleetUntil != entry.openedFor
				&& this.cooldown.gate(entry).map((gate) -> !gate.cooldownRemaining().isZero()).orElse(false);
	}

	/**
	 * The provider admitted the fleet's probe after the cooldown instant {@code instant}: the gate opens, as after a
	 * probe of its own that succeeded (unless {@code laterStands}: it learned of a later refusal meanwhile), and that
	 * instant never closes it again.
	 */
	private void admitted(CooldownEntry entry, FleetGate gate, long instant, boolean laterStands) {
		boolean following = entry.following != NONE;
		entry.following = NONE;
		entry.openedFor = instant;
		if (laterStands) {
			// a later refusal reached the fleet since: its cooldown stands, and its own probe decides
			if (following) {
				gate.fleetProbeAnswered();
			}
			return;
		}
		entry.closedFor = instant;
		// a gate that was not following joins the answered probe for a moment, so it opens as a follower does (a
		// refusal it learned while following keeps it closed)
		if (following || gate.followProbe(this.ticker.read() + 1)) {
			gate.fleetProbeAdmitted();
		}
	}

}
