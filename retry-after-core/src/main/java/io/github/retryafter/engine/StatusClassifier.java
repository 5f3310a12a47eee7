package io.github.retryafter.engine;

import java.util.Set;

/**
 * The default classifier over a set of retryable statuses ({@link RetryPolicy#defaultClassifier(Set)}): a status below
 * 400 succeeds, a listed status is retryable, another is not, and every I/O failure is retryable. Immutable and
 * thread-safe.
 */
record StatusClassifier(Set<Integer> statuses) implements ResponseClassifier {

	StatusClassifier {
		statuses = Set.copyOf(statuses);
	}

	@Override
	public Classification classify(AttemptOutcome outcome) {
		if (outcome instanceof AttemptOutcome.Response response) {
			if (response.status() < 400) {
				return Classification.SUCCESS;
			}
			return this.statuses.contains(response.status()) ? Classification.RETRYABLE : Classification.NOT_RETRYABLE;
		}
		return Classification.RETRYABLE;
	}

}
