package io.github.retryafter;

/**
 * How the planner spreads clients above the server's floor. Jitter is only ever added: no mode waits less than the
 * floor.
 */
public enum JitterMode {

	/** Wait exactly the floor. Every client told the same thing returns in the same millisecond. */
	NONE,

	/** A fresh uniform draw in {@code [0, spread)} for each plan, from the injected {@link RandomSource}. */
	RANDOM,

	/**
	 * A position in {@code [0, spread)} derived from a hash of the jitter key and the attempt number: a client holds a
	 * stable position within a round, and clients adjacent in one round are not adjacent in the next. A plan requested
	 * without a jitter key falls back to a {@link #RANDOM} draw, so a caller that forgot the key still spreads out.
	 */
	KEYED

}
