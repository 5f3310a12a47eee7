package io.github.retryafter.hint;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.github.retryafter.RetryAfterException;
import io.github.retryafter.internal.Saturating;

/**
 * The response's own {@code Date} as the planner reads it: parsed in both forms (for skew), required only by the
 * HTTP-date form of {@code Retry-After}; a missing, repeated, empty or unparsable {@code Date} is absent with the
 * problem named. Immutable.
 */
record ServerDate(boolean present, long epochSecond, String problem) {

	private static final ServerDate ABSENT = new ServerDate(false, 0, null);

	static ServerDate read(ResponseHints hints, Receipt receipt) {
		List<String> values = hints.dateLines();
		if (values.size() > 1) {
			return new ServerDate(false, 0, "appears " + values.size() + " times");
		}
		if (values.isEmpty()) {
			return ABSENT;
		}
		String date = values.get(0);
		if (RetryAfterField.trimStart(date) == date.length()) {
			return new ServerDate(false, 0, "is empty");
		}
		try {
			return new ServerDate(true, hints.date(receipt.epochSecond()), null);
		}
		catch (RetryAfterException ex) {
			return new ServerDate(false, 0, "fails the same strict parse (" + ex.getMessage() + ")");
		}
	}

	/** {@code Date} minus the client's wall clock at receipt; empty without a usable {@code Date}. */
	Optional<Duration> skewFrom(Receipt receipt) {
		return this.present
				? Optional.of(Duration.ofMillis(Saturating.subtract(this.epochSecond * 1000, receipt.epochMillis())))
				: Optional.empty();
	}

	/**
	 * The planner's one reading of each clock for a response: the ticker at receipt, and the wall clock then
	 * (saturated at the ends of {@code Instant}). Immutable.
	 */
	record Receipt(long nanos, Instant wall, long epochMillis) {

		long epochSecond() {
			return Math.floorDiv(this.epochMillis, 1000);
		}

	}

}
