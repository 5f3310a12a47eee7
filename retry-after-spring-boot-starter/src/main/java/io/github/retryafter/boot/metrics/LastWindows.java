package io.github.retryafter.boot.metrics;

import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.retryafter.hint.RateLimitFields;

/**
 * The last rate-limit window one provider's responses announced, per unit ({@code requests}, {@code tokens}), as the
 * provider's profile reads them ({@link RateLimitFields}: the IETF fields, the trios, OpenAI's or Anthropic's windows).
 * A standard family is one window of requests (its limit the trio's limit, or the {@code q} of the policy named as
 * the {@code RateLimit} item read); a vendor family's request window is the requests', and of its token windows the
 * one named {@code tokens}, else the one with the fewest left, is the tokens'. A window is kept whole, as the response that carried it announced it (its reset measured
 * from that response), until a later response carries one of the same unit: concurrent operations may interleave, and
 * the last one stored wins. Bounded: one snapshot per unit, two per provider. Thread-safe and lock-free: one
 * volatile write per unit a response carries, one volatile read per gauge.
 */
public final class LastWindows {

	/** What a window counts; its lower-case name is the {@code unit} tag. */
	public enum Unit {

		/** Requests. */
		REQUESTS,

		/** Tokens. */
		TOKENS;

		/**
		 * Returns the {@code unit} tag value.
		 * @return the lower-case name
		 */
		public String tag() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	/**
	 * One window as announced; {@code NaN} for what it did not announce.
	 * @param remaining what was left
	 * @param limit its limit
	 * @param resetSeconds the seconds from the response until it resets
	 */
	public record Seen(double remaining, double limit, double resetSeconds) {
	}

	/** Creates an empty holder. */
	public LastWindows() {
	}

	// by ordinal; null until a response carried a window of that unit
	private final AtomicReferenceArray<Seen> last = new AtomicReferenceArray<>(Unit.values().length);

	/**
	 * Keeps the windows a response's fields announced.
	 * @param fields the response's rate-limit fields, as the provider's profile reads them
	 * @return whether a unit was seen here for the first time
	 */
	public boolean record(RateLimitFields fields) {
		if (fields.family().isEmpty()) {
			return false;
		}
		if (fields.windows().isEmpty()) {
			if (fields.remaining().isEmpty() && fields.reset().isEmpty() && fields.limit().isEmpty()) {
				return false;
			}
			return store(Unit.REQUESTS,
					new Seen(number(fields.remaining()), number(fields.limit()), seconds(fields.reset())));
		}
		boolean first = false;
		Optional<RateLimitFields.Window> requests = fields.windows()
			.stream()
			.filter((window) -> window.kind() == RateLimitFields.Window.Kind.REQUESTS)
			.findFirst();
		Optional<RateLimitFields.Window> tokens = fields.windows()
			.stream()
			.filter((window) -> window.kind() == RateLimitFields.Window.Kind.TOKENS)
			.min(Comparator.comparing((RateLimitFields.Window window) -> !window.name().equals("tokens"))
				.thenComparingLong((window) -> window.remaining().orElse(Long.MAX_VALUE)));
		if (requests.isPresent()) {
			first |= store(Unit.REQUESTS, seen(requests.get()));
		}
		if (tokens.isPresent()) {
			first |= store(Unit.TOKENS, seen(tokens.get()));
		}
		return first;
	}

	/**
	 * Returns the last window of a unit.
	 * @param unit the unit
	 * @return the window, empty before a response carried one
	 */
	public Optional<Seen> last(Unit unit) {
		return Optional.ofNullable(this.last.get(unit.ordinal()));
	}

	/** Whether a response carried a window of {@code unit}. */
	boolean seen(Unit unit) {
		return this.last.get(unit.ordinal()) != null;
	}

	double remaining(Unit unit) {
		return last(unit).map(Seen::remaining).orElse(Double.NaN);
	}

	double limit(Unit unit) {
		return last(unit).map(Seen::limit).orElse(Double.NaN);
	}

	double resetSeconds(Unit unit) {
		return last(unit).map(Seen::resetSeconds).orElse(Double.NaN);
	}

	private boolean store(Unit unit, Seen seen) {
		return this.last.getAndSet(unit.ordinal(), seen) == null;
	}

	private static Seen seen(RateLimitFields.Window window) {
		return new Seen(number(window.remaining()), number(window.limit()), seconds(window.reset()));
	}

	private static double number(OptionalLong value) {
		return value.isPresent() ? value.getAsLong() : Double.NaN;
	}

	private static double seconds(Optional<Duration> value) {
		return value.map((duration) -> duration.getSeconds() + duration.getNano() / 1e9).orElse(Double.NaN);
	}

}
