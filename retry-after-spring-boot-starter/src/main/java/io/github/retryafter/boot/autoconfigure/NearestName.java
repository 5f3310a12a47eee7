package io.github.retryafter.boot.autoconfigure;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The valid name nearest a misspelt one, by edit distance (Levenshtein: one insertion, deletion or substitution of a
 * character each counts one), for messages that say what was probably meant. Stateless.
 */
final class NearestName {

	private NearestName() {
	}

	/**
	 * Returns the candidate nearest {@code name}, case-insensitively; the first of equally near ones.
	 * @param name the name as written
	 * @param candidates the valid names
	 * @return the nearest, or empty when there is no candidate
	 */
	static Optional<String> of(String name, Collection<String> candidates) {
		String wanted = name.toLowerCase(Locale.ROOT);
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String candidate : candidates) {
			int distance = distance(wanted, candidate.toLowerCase(Locale.ROOT));
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return Optional.ofNullable(best);
	}

	/** The edit distance of two strings, in two rows of memory. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
