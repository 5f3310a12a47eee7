package io.github.retryafter.test;

import java.util.ArrayList;
import java.util.List;

import io.github.retryafter.RandomSource;

/**
 * A {@link RandomSource} that returns given draws in order, so a trace reproduces to the millisecond. Running out of
 * draws is a test bug and throws, naming how many were given.
 * <p>
 * Thread-safe.
 */
public final class ScriptedRandom implements RandomSource {

	private final double[] draws;

	private int next;

	private ScriptedRandom(double[] draws) {
		this.draws = draws.clone();
	}

	/**
	 * Returns a source with the given draws.
	 * @param draws numbers in {@code [0, 1)} (not checked here: the engine and planner reject others)
	 * @return a new source
	 */
	public static ScriptedRandom of(double... draws) {
		return new ScriptedRandom(draws);
	}

	/**
	 * Returns the next draw.
	 * @throws IllegalStateException when every draw has been taken
	 */
	@Override
	public synchronized double nextDouble() {
		if (this.next >= this.draws.length) {
			throw new IllegalStateException("ScriptedRandom was given " + this.draws.length
					+ " draws and all were taken; the code under test drew more than the script expected");
		}
		return this.draws[this.next++];
	}

	/**
	 * Returns how many draws were taken.
	 * @return the count
	 */
	public synchronized int taken() {
		return this.next;
	}

	/**
	 * Returns the draws taken so far, in order.
	 * @return an immutable list
	 */
	public synchronized List<Double> takenDraws() {
		List<Double> taken = new ArrayList<>();
		for (int i = 0; i < this.next; i++) {
			taken.add(this.draws[i]);
		}
		return List.copyOf(taken);
	}

}
