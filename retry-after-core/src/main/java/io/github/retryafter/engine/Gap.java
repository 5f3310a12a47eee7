package io.github.retryafter.engine;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.ProviderGate;

/**
 * One retry's wait while it lasts, measured in parts by cause on the engine's ticker, by {@link WaitedEvent}'s rule:
 * made when the retry is scheduled (its first part the planned delay's cause), told each hold of the gate or the
 * budget as it is answered, and ended when the retry is permitted. Not thread-safe: its operation's driver uses it.
 */
final class Gap {

	private static final WaitCause[] CAUSES = WaitCause.values();

	private final long startedAt;

	// what this operation's own last response named of a pause, or null: its field is the cause of a cooldown held
	private final GateFeed.Pause pause;

	// nanoseconds by cause, indexed by ordinal
	private final long[] nanos = new long[CAUSES.length];

	// the causes in the order they began, as ordinals; each at most once
	private final int[] order = new int[CAUSES.length];

	private int begun;

	private WaitCause current;

	private long since;

	Gap(long nowNanos, WaitCause planned, GateFeed.Pause pause) {
		this.startedAt = nowNanos;
		this.since = nowNanos;
		this.pause = pause;
		begin(planned);
	}

	/**
	 * The gate (or, for {@link GateHold#BUDGET}, the budget) answered a hold of {@code reason}: the time from now on
	 * counts for its cause.
	 */
	void held(long nowNanos, GateHold reason, ProviderGate gate) {
		hold(nowNanos, switch (reason) {
			case RATE -> WaitCause.RATE;
			case BUDGET -> WaitCause.BUDGET;
			case COOLDOWN -> cooldown(nowNanos, gate);
		});
	}

	/**
	 * A cooldown's hold: a probe's answer once the cooldown is over, else the field of this operation's own response
	 * while the instant it named is ahead, else another's cooldown.
	 */
	private WaitCause cooldown(long nowNanos, ProviderGate gate) {
		if (gate.cooldownUntilNanos() - nowNanos <= 0) {
			return WaitCause.PROBE;
		}
		return (this.pause != null && this.pause.untilNanos() - nowNanos > 0) ? this.pause.cause() : WaitCause.COOLDOWN;
	}

	private void hold(long nowNanos, WaitCause cause) {
		if (cause != this.current) {
			this.nanos[this.current.ordinal()] += nowNanos - this.since;
			this.since = nowNanos;
			begin(cause);
		}
	}

	private void begin(WaitCause cause) {
		this.current = cause;
		for (int i = 0; i < this.begun; i++) {
			if (this.order[i] == cause.ordinal()) {
				return;
			}
		}
		this.order[this.begun++] = cause.ordinal();
	}

	/** The retry is permitted now: the wait, its parts and its cause (the longest part, the earlier on a tie). */
	WaitedEvent end(OperationSpec spec, int attempt, long nowNanos, Duration elapsed) {
		this.nanos[this.current.ordinal()] += nowNanos - this.since;
		this.since = nowNanos;
		Map<WaitCause, Duration> parts = new LinkedHashMap<>();
		WaitCause longest = CAUSES[this.order[0]];
		for (int i = 0; i < this.begun; i++) {
			WaitCause cause = CAUSES[this.order[i]];
			long part = this.nanos[cause.ordinal()];
			if (part > 0) {
				parts.put(cause, Duration.ofNanos(part));
			}
			if (part > this.nanos[longest.ordinal()]) {
				longest = cause;
			}
		}
		if (parts.isEmpty()) {
			parts.put(longest, Duration.ZERO);
		}
		return new WaitedEvent(spec, attempt, Duration.ofNanos(nowNanos - this.startedAt), longest, parts, elapsed);
	}

}
