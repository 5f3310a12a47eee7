package io.github.retryafter.generated;

import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a property over generated inputs: each try draws its input from its own {@link Draw}, split from one
 * {@link SplittableRandom} seeded with the test's fixed seed, so every run draws the same inputs and a failure names
 * the seed and the try that reproduce it. The first {@link #EDGE_TRIES} tries draw only edge values (every range's
 * ends, zero, empty strings), later tries a share of {@link #EDGE_SHARE_AFTER}; nothing shrinks.
 * <p>
 * Stateless and thread-safe; a check runs on the calling thread.
 */
public final class Tries {

	/** How many tries open a check with every draw at an edge of its range. */
	public static final int EDGE_TRIES = 16;

	/** The share of draws at an edge after the first {@link #EDGE_TRIES} tries. */
	public static final double EDGE_SHARE_AFTER = 0.1;

	private Tries() {
	}

	/**
	 * Checks a property on {@code tries} generated inputs.
	 * @param <T> the input, a record whose {@code toString()} shows every generated value
	 * @param seed the fixed seed, named in a failure's message
	 * @param tries how many inputs
	 * @param generate draws one input
	 * @param property asserts on one input
	 * @throws AssertionError naming the seed, the try and the input when the property fails or throws
	 */
	public static <T> void check(long seed, int tries, Function<Draw, T> generate, Consumer<T> property) {
		SplittableRandom seeds = new SplittableRandom(seed);
		for (int i = 0; i < tries; i++) {
			Draw draw = new Draw(seeds.split(), (i < EDGE_TRIES) ? 1.0 : EDGE_SHARE_AFTER);
			T input = generate.apply(draw);
			try {
				property.accept(input);
			}
			catch (AssertionError | RuntimeException ex) {
				throw new AssertionError("Try " + (i + 1) + " of " + tries + " with seed 0x" + Long.toHexString(seed)
						+ " (fixed: the same try fails again) failed on " + input + ": " + ex.getMessage(), ex);
			}
		}
	}

}
