package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

import io.github.retryafter.internal.Saturating;

/**
 * The checks {@link RetryPolicyBuilder}'s setters and {@code build()} make, each with the message that says what was
 * wrong and what is expected. Stateless.
 */
final class PolicyChecks {

	private PolicyChecks() {
	}

	static int maxAttempts(int maxAttempts) {
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1 (1 means no retry) but was "
					+ maxAttempts);
		}
		return maxAttempts;
	}

	static TreeSet<Integer> statuses(Collection<Integer> statuses) {
		return statuses("retryableStatuses", statuses);
	}

	static TreeSet<Integer> statuses(String name, Collection<Integer> statuses) {
		Objects.requireNonNull(statuses, name);
		TreeSet<Integer> copy = new TreeSet<>();
		for (Integer status : statuses) {
			if (status == null || status < 400 || status > 599) {
				throw new IllegalArgumentException(
						name + " must hold 4xx or 5xx codes but contained " + status + " in " + statuses);
			}
			copy.add(status);
		}
		return copy;
	}

	static TreeSet<String> methods(Collection<String> methods) {
		Objects.requireNonNull(methods, "retryableMethods");
		TreeSet<String> copy = new TreeSet<>();
		for (String method : methods) {
			if (method == null || !isToken(method)) {
				throw new IllegalArgumentException(
						"retryableMethods must hold HTTP method names but contained '" + method + "'");
			}
			copy.add(method.toUpperCase(Locale.ROOT));
		}
		return copy;
	}

	static String fieldName(String idempotencyKeyHeader) {
		return fieldName("idempotencyKeyHeader", idempotencyKeyHeader);
	}

	static String fieldName(String name, String value) {
		if (value == null || !isToken(value)) {
			throw new IllegalArgumentException(name + " must be an HTTP field name but was '" + value + "'");
		}
		return value;
	}

	/** {@code minAttemptTime + deadlineReserve} must leave some of the deadline, or no attempt could be made. */
	static void leavesAnAttempt(Duration minAttemptTime, Duration deadlineReserve, Duration deadline) {
		if (Saturating.plus(minAttemptTime, deadlineReserve).compareTo(deadline) >= 0) {
			throw new IllegalArgumentException("minAttemptTime (" + minAttemptTime + ") plus deadlineReserve ("
					+ deadlineReserve + ") must be less than the deadline (" + deadline
					+ "), or no attempt could ever be made");
		}
	}

	static Duration positive(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive but was " + value);
		}
		return value;
	}

	static Duration nonNegative(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative()) {
			throw new IllegalArgumentException(name + " must not be negative but was " + value);
		}
		return value;
	}

	private static boolean isToken(String value) {
		if (value.isEmpty()) {
			return false;
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
					|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
			if (!ok) {
				return false;
			}
		}
		return true;
	}

}
