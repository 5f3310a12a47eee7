package io.github.retryafter.simulator;

import java.util.Optional;

import io.github.retryafter.JitterMode;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.pacing.PacingSettings;

/**
 * The retry policies a {@link FleetSimulation} compares in one run. The hint modes run the real
 * {@link io.github.retryafter.engine.RetryEngine}; the first four are implemented by the simulation, with the same
 * attempt limit and deadline, to show what the engine is measured against.
 */
public enum FleetPolicy {

	/** One attempt, never retried. */
	NO_RETRY("no retry", null, null),

	/** {@code min(10 s, 100 ms × 2^(n-1))} after the n-th failure, no jitter, {@code Retry-After} ignored. */
	EXPONENTIAL("exponential, no jitter", null, null),

	/** The engine's fallback full jitter ({@code draw × min(10 s, 100 ms × 2^(n-1))}), {@code Retry-After} ignored. */
	FULL_JITTER("full jitter, header ignored", null, null),

	/**
	 * {@code Date.parse(Retry-After) − now} on the client's own wall clock, floored at zero; delay-seconds as sent. The
	 * four-line implementation seed 004 warns about.
	 */
	NAIVE_CLIENT_CLOCK("naive: HTTP-date − own clock", null, null),

	/** {@code min(cap, floor)}, seed 000's policy, with the cap at the provider's 5 s. */
	CAPPED("CAPPED (seed 000)", HintMode.CAPPED, JitterMode.NONE),

	/** Exactly the skew-free floor. */
	EXACT("EXACT", HintMode.EXACT, JitterMode.NONE),

	/** {@code max(floor, backoff draw)} plus the planner's random jitter. */
	MAX_WITH_BACKOFF("MAX_WITH_BACKOFF", HintMode.MAX_WITH_BACKOFF, JitterMode.RANDOM),

	/** The default: the floor plus random jitter above it. */
	FLOOR_PLUS_JITTER("FLOOR_PLUS_JITTER random (default)", HintMode.FLOOR_PLUS_JITTER, JitterMode.RANDOM),

	/** The floor plus jitter at a position derived from the client's identity and the attempt number. */
	FLOOR_PLUS_JITTER_KEYED("FLOOR_PLUS_JITTER keyed", HintMode.FLOOR_PLUS_JITTER, JitterMode.KEYED),

	/**
	 * The default with provider pacing as the starter applies it ({@link PacingSettings#DEFAULTS}): every client is an
	 * operation of one application, so they share one engine and one gate per provider (with independent episodes,
	 * each client's provider has a gate of its own).
	 */
	FLOOR_PLUS_JITTER_PACED("FLOOR_PLUS_JITTER + pacing (starter)", HintMode.FLOOR_PLUS_JITTER, JitterMode.RANDOM);

	private final String label;

	private final HintMode hintMode;

	private final JitterMode jitter;

	FleetPolicy(String label, HintMode hintMode, JitterMode jitter) {
		this.label = label;
		this.hintMode = hintMode;
		this.jitter = jitter;
	}

	/**
	 * Returns the policy's name in reports.
	 * @return the label
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Returns the provider pacing the policy runs with.
	 * @return {@link PacingSettings#DEFAULTS} for {@link #FLOOR_PLUS_JITTER_PACED}, {@link PacingSettings#OFF} for
	 * every other policy
	 */
	public PacingSettings pacing() {
		return (this == FLOOR_PLUS_JITTER_PACED) ? PacingSettings.DEFAULTS : PacingSettings.OFF;
	}

	/**
	 * Returns the engine's hint mode, for the policies the real engine runs.
	 * @return the hint mode, empty for the simulation's own comparison policies
	 */
	public Optional<HintMode> hintMode() {
		return Optional.ofNullable(this.hintMode);
	}

	/**
	 * Returns the planner's jitter mode, for the policies the real engine runs.
	 * @return the jitter mode, empty for the simulation's own comparison policies
	 */
	public Optional<JitterMode> jitter() {
		return Optional.ofNullable(this.jitter);
	}

}
