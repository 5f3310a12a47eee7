package io.github.retryafter.internal;

/**
 * The position in the jitter window of {@link io.github.retryafter.JitterMode#KEYED}: a well-mixed hash of a key and
 * an attempt number mapped to {@code [0, 1)}. Internal: not part of the library's API.
 * <p>
 * The key's UTF-16 code units are hashed with 64-bit FNV-1a (so keys that differ in one character, such as
 * {@code client-1} and {@code client-2}, start far apart), and the result is combined with the attempt number through
 * two rounds of the SplitMix64 finaliser (Stafford's variant 13), which avalanches every input bit into every output
 * bit. The same key and attempt always give the same position, on every JVM and in every build; two keys that are close
 * on one attempt are independent on the next. Stateless and thread-safe.
 */
public final class KeyedPosition {

	private static final long FNV_OFFSET = 0xcbf29ce484222325L;

	private static final long FNV_PRIME = 0x100000001b3L;

	private static final long GOLDEN = 0x9e3779b97f4a7c15L;

	private KeyedPosition() {
	}

	/**
	 * Returns the position of {@code key} on {@code attempt}.
	 * @param key the client's identity
	 * @param attempt the attempt number
	 * @return a number in {@code [0, 1)}
	 */
	public static double of(String key, int attempt) {
		long hash = FNV_OFFSET;
		for (int i = 0; i < key.length(); i++) {
			hash = (hash ^ key.charAt(i)) * FNV_PRIME;
		}
		long mixed = mix(mix(hash) ^ mix(attempt * GOLDEN + GOLDEN));
		return (mixed >>> 11) * 0x1.0p-53;
	}

	private static long mix(long z) {
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

}
