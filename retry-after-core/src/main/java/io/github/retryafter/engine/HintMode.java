package io.github.retryafter.engine;

/**
 * How the engine turns the planner's skew-free, age-corrected floor into a wait. Every mode except {@link #CAPPED}
 * waits at least the floor.
 */
public enum HintMode {

	/** The planner's plan: the floor plus jitter drawn above it (random or keyed). The default. */
	FLOOR_PLUS_JITTER,

	/** Exactly the floor, no jitter. Every client told the same thing returns in the same millisecond. */
	EXACT,

	/** The larger of the floor and a fallback backoff draw, plus the planner's non-negative jitter. */
	MAX_WITH_BACKOFF,

	/**
	 * {@code min(hintCap, floor)}, no jitter, no random draw consumed on the hinted path. It waits <em>less</em> than
	 * the server asked when the hint exceeds the cap, so it exists for comparison and simulation only.
	 */
	CAPPED

}
