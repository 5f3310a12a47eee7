package io.github.retryafter.test;

import java.util.SplittableRandom;

import io.github.retryafter.RandomSource;

/**
 * A {@link RandomSource} from a seed: the same seed gives the same sequence of draws, so a simulation with many draws
 * is reproducible. Not cryptographic.
 * <p>
 * Thread-safe (draws are serialized, so the sequence is shared between threads in the order they draw).
 */
public final class SeededRandom implements RandomSource {

	private final SplittableRandom random;

	private int taken;

	private SeededRandom(long seed) {
		this.random = new SplittableRandom(seed);
	}

	/**
	 * Returns a source seeded with {@code seed}.
	 * @param seed the seed
	 * @return a new source
	 */
	public static SeededRandom of(long seed) {
		return new SeededRandom(seed);
	}

	@Override
	public synchronized double nextDouble() {
		this.taken++;
		return this.random.nextDouble();
	}

	/**
	 * Returns how many draws were taken.
	 * @return the count
	 */
	public synchronized int taken() {
		return this.taken;
	}

}
