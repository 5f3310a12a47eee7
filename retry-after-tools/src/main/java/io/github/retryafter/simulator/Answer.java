package io.github.retryafter.simulator;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulated provider's answer to one request: its status, its {@code Retry-After} (if any), its {@code Date}, the
 * instant it instructed the client to wait for on the virtual time line ({@link #NONE} without an instruction), and any
 * other fields it sends, by lower-case name. Immutable.
 */
record Answer(int status, String retryAfter, String date, long instructedNanos, Map<String, String> fields) {

	/** No instruction. */
	static final long NONE = Long.MIN_VALUE;

	Answer {
		TreeMap<String, String> lower = new TreeMap<>();
		fields.forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
		fields = Map.copyOf(lower);
	}

	Answer(int status, String retryAfter, String date, long instructedNanos) {
		this(status, retryAfter, date, instructedNanos, Map.of());
	}

	/** The same answer announcing the quota in the IETF fields. */
	Answer announcing(ProviderModel.RateLimit limit, long remaining, long resetSeconds) {
		return new Answer(this.status, this.retryAfter, this.date, this.instructedNanos,
				Map.of("RateLimit-Policy", "\"default\";q=" + (long) limit.perSecond() + ";w=1", "RateLimit",
						"\"default\";r=" + remaining + ";t=" + resetSeconds));
	}

	/** The field's lines as the client reads them: {@code Date}, {@code Retry-After}, then the other fields. */
	List<String> field(String name) {
		if (name.equalsIgnoreCase("Date")) {
			return List.of(this.date);
		}
		if (name.equalsIgnoreCase("Retry-After")) {
			return (this.retryAfter != null) ? List.of(this.retryAfter) : List.of();
		}
		String value = this.fields.get(name.toLowerCase(Locale.ROOT));
		return (value != null) ? List.of(value) : List.of();
	}

}
