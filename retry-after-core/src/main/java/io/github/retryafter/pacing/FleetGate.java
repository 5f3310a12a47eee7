package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.OptionalDouble;

import io.github.retryafter.Scope;

/**
 * What a fleet store sees of one instance's {@link ProviderGate} ({@link ProviderGate#fleet()}): the cooldown it
 * shares with the fleet, the share of the provider this instance paces for, and the arbitration of the one probe the
 * fleet sends after a cooldown. Only a fleet store calls it; requests go through the gate itself. Thread-safe, and
 * no method blocks beyond the gate's own lock.
 */
public interface FleetGate {

	/**
	 * Returns the gate's scope.
	 * @return the provider, and the origin when the gate is one origin's
	 */
	Scope scope();

	/**
	 * Returns the instant the gate opens.
	 * @return a reading of the gate's ticker, in the past when the gate is open
	 * @see ProviderGate#cooldownUntilNanos()
	 */
	long cooldownUntilNanos();

	/**
	 * Returns how long the gate stays closed, read now on the gate's ticker.
	 * @return the remaining cooldown, zero when open
	 */
	Duration cooldownRemaining();

	/**
	 * Closes the gate until an instant the fleet learned of, as {@link ProviderGate#closeUntil(long)} does for a hint.
	 * @param instantNanos the instant, on the gate's ticker
	 */
	void closeUntil(long instantNanos);

	/**
	 * Records a throttle, as {@link ProviderGate#onThrottle(long, long)}: a fleet's cooldown turns the rate on as the
	 * throttled instances' did.
	 * @param sentAtNanos when the throttled request was sent
	 * @param nowNanos when the throttle arrived
	 */
	void onThrottle(long sentAtNanos, long nowNanos);

	/** Opens the gate now, as {@link ProviderGate#reset()}. */
	void reset();

	/**
	 * Returns the rate limit in force.
	 * @return requests per second, empty while the rate limit is off
	 */
	OptionalDouble rate();

	/**
	 * Returns how many requests are waiting at the gate.
	 * @return the count
	 */
	int queued();

	/**
	 * Sets the share of the provider's capacity this gate paces for: {@code 1} for a gate that alone sends to its
	 * provider, {@code 1/N} for one of N instances of a fleet that share it. The first throttle's rate, the floor, the
	 * burst, an announced quota and a measurement's size scale with it, and a rate in force moves with it (twice the
	 * share, twice the rate, floor and ceiling kept), with the slots its holders booked, in their order. The same
	 * share again changes nothing and takes no lock.
	 * @param share a fraction in {@code (0, 1]}
	 * @throws IllegalArgumentException if {@code share} is not in {@code (0, 1]}
	 */
	void share(double share);

	/**
	 * Returns the share of the provider's capacity this gate paces for.
	 * @return {@code 1} unless a fleet store set it
	 */
	double share();

	/**
	 * Paces at {@code perSecond} from now, within this gate's floor and ceiling at its share, while the rate limit is
	 * on: this instance's part of what the fleet's gates together pace at, in proportion to the backlog each holds.
	 * The rate's curve and the slots booked move with it, as for {@link #share(double)}. Ignored while the rate is
	 * off, follows an announced quota or is being measured, for a value that is not a positive finite rate, and for a
	 * change of less than 5%.
	 * @param perSecond the rate, requests per second
	 * @param nowNanos now, on the gate's ticker
	 */
	void paceAt(double perSecond, long nowNanos);

	/**
	 * Sets the arbiter that decides which instance of a fleet probes after a cooldown the fleet shares; without one the
	 * gate probes at once.
	 * @param arbiter the arbiter, or {@code null} for none
	 */
	void arbiter(ProbeArbiter arbiter);

	/**
	 * Returns whether the gate waits for a probe's answer after a cooldown (its own probe, or the fleet's).
	 * @return whether a probe is still to be answered
	 */
	boolean probePending();

	/**
	 * Reports the {@link ProbeArbiter arbiter}'s answer that this gate sends the fleet's probe: its next request after
	 * the cooldown goes as the probe.
	 */
	void probeGranted();

	/**
	 * Reports that another instance of the fleet sends the probe after this gate's cooldown: this gate's requests are
	 * held after the cooldown, as behind a probe of its own, until {@link #fleetProbeAnswered()} or
	 * {@link #fleetProbeAdmitted()} reports its answer or {@code expiresNanos} passes (the other instance went away),
	 * when this gate probes for itself. Does nothing unless a cooldown ended or is in force and no probe of this
	 * gate's own is out; an instant that has passed lets this gate probe for itself.
	 * @param expiresNanos the last instant to wait for the fleet's probe, on the gate's ticker
	 * @return whether the gate now follows the fleet's probe
	 */
	boolean followProbe(long expiresNanos);

	/**
	 * Reports that the fleet's probe this gate follows has its answer: as {@link ProviderGate#probeAnswered(boolean)}
	 * for a probe that was not admitted, but only while the probe in flight is the fleet's, so a probe of this gate's
	 * own is never taken for answered.
	 */
	void fleetProbeAnswered();

	/**
	 * Reports that the provider admitted the fleet's probe this gate follows: as {@link #fleetProbeAnswered()}, and the
	 * gate opens now, as after a probe of its own that succeeded, unless it learned of a refusal since it began to
	 * follow.
	 */
	void fleetProbeAdmitted();

}
