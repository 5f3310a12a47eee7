package io.github.retryafter.generated;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * One try's generated inputs, drawn from a {@link SplittableRandom} that {@link Tries} seeds, so a try is reproduced
 * from its seed alone. Like a property-testing library's generators, every draw leans toward the values that break
 * arithmetic and parsers: a share of the draws (all of them in a run's first tries) is an edge of the range (its
 * ends, the values next to them, zero and one), half of the rest is near zero at a random magnitude, the rest is
 * uniform. Strings lean toward the empty string, the longest allowed and printable ASCII.
 * <p>
 * Not thread-safe: one try, one thread.
 */
public final class Draw {

	private static final String PRINTABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
			+ "abcdefghijklmnopqrstuvwxyz{|}~";

	private static final String DIGITS = "0123456789";

	private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

	private static final char[] EDGE_CHARS = { Character.MIN_VALUE, ' ', 'a', '0', '\u007f', '\u00ff',
			Character.MIN_SURROGATE, '\ufffd', Character.MAX_VALUE };

	private final SplittableRandom random;

	private final double edgeShare;

	Draw(SplittableRandom random, double edgeShare) {
		this.random = random;
		this.edgeShare = edgeShare;
	}

	/**
	 * Draws a {@code long} from {@code min} to {@code max}, both included.
	 * @param min the least value
	 * @param max the greatest value
	 * @return the value
	 */
	public long longs(long min, long max) {
		if (min > max) {
			throw new IllegalArgumentException("min " + min + " is above max " + max);
		}
		if (edge()) {
			return edgeOf(min, max);
		}
		if (this.random.nextBoolean()) {
			long near = nearZero(min, max);
			if (near >= min && near <= max) {
				return near;
			}
		}
		return uniform(min, max);
	}

	/**
	 * Draws any {@code long}.
	 * @return the value
	 */
	public long anyLong() {
		return longs(Long.MIN_VALUE, Long.MAX_VALUE);
	}

	/**
	 * Draws an {@code int} from {@code min} to {@code max}, both included.
	 * @param min the least value
	 * @param max the greatest value
	 * @return the value
	 */
	public int ints(int min, int max) {
		return (int) longs(min, max);
	}

	/**
	 * Draws a {@code double} from {@code min} to {@code max}, both included.
	 * @param min the least value
	 * @param max the greatest value
	 * @return the value
	 */
	public double doubles(double min, double max) {
		if (edge()) {
			return pick(edges(min, max, min, max, Math.nextUp(min), Math.nextDown(max), 0.0, (min + max) / 2));
		}
		return Math.min(max, min + this.random.nextDouble() * (max - min));
	}

	/**
	 * Draws a {@code double} from 0 included to 1 excluded.
	 * @return the value
	 */
	public double unit() {
		if (edge()) {
			return pick(new double[] { 0.0, Double.MIN_VALUE, 0.5, Math.nextDown(1.0) });
		}
		return this.random.nextDouble();
	}

	/**
	 * Returns {@code true} with the given probability, unbiased: for choices, not for values.
	 * @param probability from 0 to 1
	 * @return whether the chance came up
	 */
	public boolean chance(double probability) {
		return this.random.nextDouble() < probability;
	}

	/**
	 * Draws one of the values, each as likely.
	 * @param <T> the type of value
	 * @param values the values
	 * @return one of them
	 */
	@SafeVarargs
	public final <T> T of(T... values) {
		return values[this.random.nextInt(values.length)];
	}

	/**
	 * Draws one of an enum's constants, each as likely.
	 * @param <E> the enum
	 * @param type the enum's class
	 * @return one of its constants
	 */
	public <E extends Enum<E>> E of(Class<E> type) {
		return of(type.getEnumConstants());
	}

	/**
	 * Draws with one of the generators, each as likely.
	 * @param <T> the type of value
	 * @param generators the generators
	 * @return the drawn value
	 */
	@SafeVarargs
	public final <T> T oneOf(Function<Draw, ? extends T>... generators) {
		return of(generators).apply(this);
	}

	/**
	 * Draws with one of the weighted generators, each as likely as its weight says.
	 * @param <T> the type of value
	 * @param choices the generators and their weights
	 * @return the drawn value
	 */
	@SafeVarargs
	public final <T> T weighted(Weighted<? extends T>... choices) {
		int total = 0;
		for (Weighted<? extends T> choice : choices) {
			total += choice.weight();
		}
		int pick = this.random.nextInt(total);
		for (Weighted<? extends T> choice : choices) {
			pick -= choice.weight();
			if (pick < 0) {
				return choice.generator().apply(this);
			}
		}
		throw new AssertionError("weights add up to " + total);
	}

	/**
	 * Draws a value with the given probability, otherwise nothing.
	 * @param <T> the type of value
	 * @param presence the probability of a value
	 * @param generator the generator
	 * @return the value or empty
	 */
	public <T> Optional<T> optional(double presence, Function<Draw, ? extends T> generator) {
		return chance(presence) ? Optional.of(generator.apply(this)) : Optional.empty();
	}

	/**
	 * Draws {@code size} values.
	 * @param <T> the type of value
	 * @param size how many
	 * @param generator the generator
	 * @return the values, in order
	 */
	public <T> List<T> list(int size, Function<Draw, ? extends T> generator) {
		List<T> values = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			values.add(generator.apply(this));
		}
		return values;
	}

	/**
	 * Draws any {@code char}: an edge (the ends of the range, a space, a surrogate, the replacement character), or
	 * printable ASCII, or any UTF-16 unit.
	 * @return the character
	 */
	public char anyChar() {
		if (edge()) {
			return EDGE_CHARS[this.random.nextInt(EDGE_CHARS.length)];
		}
		return this.random.nextBoolean() ? PRINTABLE.charAt(this.random.nextInt(PRINTABLE.length()))
				: (char) this.random.nextInt(Character.MAX_VALUE + 1);
	}

	/**
	 * Draws a string of any characters ({@link #anyChar()}), from empty to {@code maxLength} long.
	 * @param maxLength the longest
	 * @return the string
	 */
	public String string(int maxLength) {
		int length = length(0, maxLength);
		StringBuilder text = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			text.append(anyChar());
		}
		return text.toString();
	}

	/**
	 * Draws a string of the alphabet's characters, from empty to {@code maxLength} long.
	 * @param alphabet the characters to use
	 * @param maxLength the longest
	 * @return the string
	 */
	public String string(String alphabet, int maxLength) {
		return string(alphabet, 0, maxLength);
	}

	/**
	 * Draws a string of ASCII digits.
	 * @param minLength the shortest
	 * @param maxLength the longest
	 * @return the string
	 */
	public String digits(int minLength, int maxLength) {
		return string(DIGITS, minLength, maxLength);
	}

	/**
	 * Draws a string of ASCII letters of the given length.
	 * @param length the length
	 * @return the string
	 */
	public String letters(int length) {
		return string(LETTERS, length, length);
	}

	private String string(String alphabet, int minLength, int maxLength) {
		int length = length(minLength, maxLength);
		StringBuilder text = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			text.append(alphabet.charAt(this.random.nextInt(alphabet.length())));
		}
		return text.toString();
	}

	/** A length from {@code min} to {@code max}: an end, short, or uniform. */
	private int length(int min, int max) {
		if (edge()) {
			return this.random.nextBoolean() ? min : max;
		}
		if (this.random.nextBoolean()) {
			return min + this.random.nextInt(Math.min(max - min, 4) + 1);
		}
		return min + this.random.nextInt(max - min + 1);
	}

	private boolean edge() {
		return this.edgeShare >= 1 || this.random.nextDouble() < this.edgeShare;
	}

	private long edgeOf(long min, long max) {
		long[] candidates = { min, max, Math.min(max, min + 1), Math.max(min, max - 1), 0, 1, -1 };
		long value;
		do {
			value = candidates[this.random.nextInt(candidates.length)];
		}
		while (value < min || value > max);
		return value;
	}

	/** A value of random magnitude (0 to 63 bits) either side of zero, or of {@code min} when zero is out of range. */
	private long nearZero(long min, long max) {
		int bits = this.random.nextInt(64);
		long magnitude = (bits == 0) ? 0 : (this.random.nextLong() >>> (64 - bits));
		if (min >= 0) {
			return min + magnitude;
		}
		if (max <= 0) {
			return max - magnitude;
		}
		return this.random.nextBoolean() ? magnitude : -magnitude;
	}

	private long uniform(long min, long max) {
		if (max < Long.MAX_VALUE) {
			return this.random.nextLong(min, max + 1);
		}
		if (min > Long.MIN_VALUE) {
			return this.random.nextLong(min - 1, max) + 1;
		}
		return this.random.nextLong();
	}

	private double pick(double[] values) {
		return values[this.random.nextInt(values.length)];
	}

	private static double[] edges(double min, double max, double... candidates) {
		return Arrays.stream(candidates).filter((value) -> value >= min && value <= max).toArray();
	}

	/**
	 * A generator and how often it is chosen relative to the others.
	 * @param <T> the type of value
	 * @param weight a positive weight
	 * @param generator the generator
	 */
	public record Weighted<T>(int weight, Function<Draw, T> generator) {

		/**
		 * Returns a weighted generator.
		 * @param <T> the type of value
		 * @param weight a positive weight
		 * @param generator the generator
		 * @return the weighted generator
		 */
		public static <T> Weighted<T> weight(int weight, Function<Draw, T> generator) {
			return new Weighted<>(weight, generator);
		}

	}

}
