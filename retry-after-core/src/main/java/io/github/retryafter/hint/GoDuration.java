package io.github.retryafter.hint;

import java.math.BigInteger;

/**
 * Reads a reset written as a Go duration, as OpenAI's {@code x-ratelimit-reset-requests} and {@code -tokens} are
 * ({@code 1s}, {@code 6m0s}, {@code 20ms}, {@code 1h2m3.5s}, {@code 0.5s}): Go's {@code time.ParseDuration} grammar,
 * one or more decimal numbers each with a unit ({@code ns}, {@code us}, {@code µs}, {@code μs}, {@code ms},
 * {@code s}, {@code m}, {@code h}), or a bare {@code 0}, except that a sign is refused: a reset is never negative.
 * A fraction finer than a nanosecond is rounded up, so the wait is never shorter than written; a value beyond
 * {@code Long.MAX_VALUE} nanoseconds (about 292 years) is refused, as Go refuses it.
 * <p>
 * Stateless and thread-safe.
 */
final class GoDuration {

	private GoDuration() {
	}

	/**
	 * Parses {@code value[start, end)}.
	 * @return the duration in nanoseconds
	 * @throws IllegalArgumentException saying what is wrong, for a problem's reason
	 */
	static long parseNanos(String value, int start, int end) {
		if (start == end) {
			throw new IllegalArgumentException("it is empty");
		}
		char first = value.charAt(start);
		if (first == '-' || first == '+') {
			throw new IllegalArgumentException("a reset cannot be signed" + ((first == '-') ? " or negative" : ""));
		}
		if (end - start == 1 && first == '0') {
			return 0;
		}
		long total = 0;
		int at = start;
		while (at < end) {
			int wholeStart = at;
			while (at < end && isDigit(value.charAt(at))) {
				at++;
			}
			int wholeEnd = at;
			int fractionStart = at;
			int fractionEnd = at;
			if (at < end && value.charAt(at) == '.') {
				fractionStart = ++at;
				while (at < end && isDigit(value.charAt(at))) {
					at++;
				}
				fractionEnd = at;
			}
			if (wholeEnd == wholeStart && fractionEnd == fractionStart) {
				throw new IllegalArgumentException("expected a number at position " + (at - start));
			}
			int unitStart = at;
			while (at < end && !isDigit(value.charAt(at)) && value.charAt(at) != '.') {
				at++;
			}
			long unit = unitNanos(value.substring(unitStart, at), unitStart - start);
			total = add(total, term(value, wholeStart, wholeEnd, fractionStart, fractionEnd, unit));
		}
		return total;
	}

	/** {@code whole.fraction × unit} in nanoseconds, the fraction rounded up. */
	private static long term(String value, int wholeStart, int wholeEnd, int fractionStart, int fractionEnd,
			long unit) {
		long whole = 0;
		for (int i = wholeStart; i < wholeEnd; i++) {
			whole = add(multiply(whole, 10), value.charAt(i) - '0');
		}
		long nanos = multiply(whole, unit);
		// the fraction: digits × unit / 10^n, at most 18 significant digits kept (the rest only round up)
		long numerator = 0;
		long scale = 1;
		boolean dropped = false;
		for (int i = fractionStart; i < fractionEnd; i++) {
			if (scale < 1_000_000_000_000_000_000L / 10) {
				numerator = numerator * 10 + (value.charAt(i) - '0');
				scale *= 10;
			}
			else {
				dropped |= value.charAt(i) != '0';
			}
		}
		if (numerator == 0 && !dropped) {
			return nanos;
		}
		// unit ≤ 3.6e12 and numerator < scale ≤ 1e17: compute numerator × unit / scale without overflow
		BigInteger product = BigInteger.valueOf(numerator).multiply(BigInteger.valueOf(unit));
		BigInteger[] split = product.divideAndRemainder(BigInteger.valueOf(scale));
		long fraction = split[0].longValueExact() + ((split[1].signum() != 0 || dropped) ? 1 : 0);
		return add(nanos, fraction);
	}

	private static long unitNanos(String unit, int position) {
		return switch (unit) {
			case "ns" -> 1L;
			case "us", "µs", "μs" -> 1_000L;
			case "ms" -> 1_000_000L;
			case "s" -> 1_000_000_000L;
			case "m" -> 60_000_000_000L;
			case "h" -> 3_600_000_000_000L;
			case "" -> throw new IllegalArgumentException("a number without a unit at position " + position
					+ " (only a bare 0 needs none)");
			default -> throw new IllegalArgumentException("unknown unit \"" + unit + "\" at position " + position
					+ " (ns, us, ms, s, m or h)");
		};
	}

	private static long add(long a, long b) {
		long sum = a + b;
		if (sum < 0) {
			throw tooLarge();
		}
		return sum;
	}

	private static long multiply(long a, long b) {
		long high = Math.multiplyHigh(a, b);
		long product = a * b;
		if (high != 0 || product < 0) {
			throw tooLarge();
		}
		return product;
	}

	private static IllegalArgumentException tooLarge() {
		return new IllegalArgumentException("it is longer than 292 years, more than a duration holds");
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

}
