package io.github.retryafter;

import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The valid name nearest a misspelt one, by edit distance (Levenshtein: one insertion, deletion or substitution of a
 * character each counts one), for messages that say what was probably meant: a provider a request names that is not
 * configured, and in the Spring Boot starter an unknown property, profile or HTTP service group. The one
 * implementation of the distance in retry-after. Stateless.
 */
public final class NearestName {

	private NearestName() {
	}

	/**
	 * Returns the candidate nearest {@code name}, case-insensitively; the first of equally near ones, so a caller
	 * that wants a stable answer passes its candidates in a stable order.
	 * @param name the name as written
	 * @param candidates the valid names
	 * @return the nearest, or empty when there is no candidate
	 */
	public static Optional<String> of(String name, Collection<String> candidates) {
		String wanted = Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT);
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

	/**
	 * Returns the edit distance of two strings, as written (case counts), in two rows of memory.
	 * @param a one string
	 * @param b the other
	 * @return the least number of insertions, deletions and substitutions that turn {@code a} into {@code b}
	 */
	public static int distance(String a, String b) {
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
