package io.github.retryafter.hint;

import java.util.List;

/**
 * The response's {@code Age} (RFC 9111 §5.1): one line of delta-seconds, or ignored (two lines, or a value that is
 * not delta-seconds), or absent. Immutable.
 *
 * @param seconds the age in seconds, saturated; zero when absent or ignored
 * @param ignored whether an {@code Age} was present but unusable
 */
record AgeValue(long seconds, boolean ignored) {

	static final AgeValue NONE = new AgeValue(0, false);

	private static final AgeValue IGNORED = new AgeValue(0, true);

	static AgeValue read(List<String> lines) {
		if (lines.isEmpty()) {
			return NONE;
		}
		long seconds = (lines.size() == 1) ? RetryAfterField.deltaSeconds(lines.get(0)) : -1;
		return (seconds < 0) ? IGNORED : new AgeValue(seconds, false);
	}

}
