package io.github.retryafter.hint;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.github.retryafter.HeaderSource;

/**
 * What a response's rate-limit fields announce about the provider's quota, read strictly: the quota's rate, the
 * requests left in the current window and the time until it resets. Three families are read, the first present
 * winning (a response that sends several gets only that one read, and the others are not compared with it):
 * <ol>
 * <li>the IETF fields of draft-ietf-httpapi-ratelimit-headers, {@code RateLimit-Policy: "name";q=100;w=60} and
 * {@code RateLimit: "name";r=50;t=30} (structured-field lists, RFC 9651; with several policies the lowest
 * {@code q/w} is the quota, and the item with the fewest remaining requests is the window);</li>
 * <li>the draft's older trio {@code RateLimit-Limit} (an integer, optionally followed by quota policies
 * {@code 100, 100;w=60}), {@code RateLimit-Remaining} and {@code RateLimit-Reset};</li>
 * <li>the common {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}.</li>
 * </ol>
 * The quota's rate is {@code q / w} (requests per second), known only when a window is stated: a limit without one
 * ({@code X-RateLimit-Limit: 5000}) has no rate, and none is guessed. A reset is delta-seconds, except that in the two
 * trios a value of at least {@link #EPOCH_SECONDS_FROM} (one billion: 2001-09-09 as an instant, more than 31 years as
 * a delay) is epoch seconds, as GitHub and others send it; it is then measured against the response's own
 * {@code Date} ({@code reset − Date}), never against the client's clock, so a skewed clock changes nothing, and it is
 * refused without a {@code Date}. The structured {@code t} is always delta-seconds, as the draft says.
 * <p>
 * Every integer is ASCII digits, at most 15 of them (RFC 9651's bound); a field that is present but unusable is
 * ignored and named in {@link #problems()} with a {@link Problem.Code code}, never guessed at, and reading never
 * throws. Immutable and thread-safe.
 *
 * @param quota the quota's rate in requests per second, if a limit and its window were announced
 * @param remaining the requests left in the current window, if announced
 * @param reset the time from the response until the window resets, if announced
 * @param family the family that was read, empty when the response carries none
 * @param problems the fields present but ignored, and why; empty when all were usable
 * @see <a href="https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/">draft-ietf-httpapi-ratelimit-headers</a>
 */
public record RateLimitFields(OptionalDouble quota, OptionalLong remaining, Optional<Duration> reset,
		Optional<Family> family, List<Problem> problems) {

	/** The smallest reset value the trios read as epoch seconds instead of delta-seconds. */
	public static final long EPOCH_SECONDS_FROM = 1_000_000_000L;

	/** A response without rate-limit fields. */
	public static final RateLimitFields NONE = new RateLimitFields(OptionalDouble.empty(), OptionalLong.empty(),
			Optional.empty(), Optional.empty(), List.of());

	/**
	 * Checks the arguments and copies the problems.
	 * @param quota the quota's rate in requests per second, if a limit and its window were announced
	 * @param remaining the requests left in the current window, if announced
	 * @param reset the time from the response until the window resets, if announced
	 * @param family the family that was read, empty when the response carries none
	 * @param problems the fields present but ignored, and why; empty when all were usable
	 */
	public RateLimitFields {
		Objects.requireNonNull(quota, "quota");
		Objects.requireNonNull(remaining, "remaining");
		Objects.requireNonNull(reset, "reset");
		Objects.requireNonNull(family, "family");
		problems = List.copyOf(problems);
	}

	/**
	 * Reads the rate-limit fields of a response; the same as {@link ResponseHints#rateLimits()} over
	 * {@link ResponseHints#of(HeaderSource) its hints}.
	 * @param headers the response's fields
	 * @return what they announce; {@link #NONE} when there are none
	 */
	public static RateLimitFields read(HeaderSource headers) {
		Objects.requireNonNull(headers, "headers");
		return ResponseHints.of(headers).rateLimits();
	}

	/**
	 * Returns whether the provider said its window has no request left and when it resets.
	 * @return {@code true} for a remaining of zero with a reset in the future
	 */
	public boolean exhausted() {
		return this.remaining.isPresent() && this.remaining.getAsLong() == 0
				&& this.reset.filter((wait) -> !wait.isZero()).isPresent();
	}

	/**
	 * The rate-limit field families, in the order they are looked for.
	 */
	public enum Family {

		/** {@code RateLimit} and {@code RateLimit-Policy}. */
		IETF("RateLimit", "RateLimit-Policy"),

		/** {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset}. */
		DRAFT_TRIO("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"),

		/** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
		X_TRIO("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");

		private final List<String> fields;

		Family(String... fields) {
			this.fields = List.of(fields);
		}

		/**
		 * Returns the family's field names.
		 * @return the names, as they are spelled
		 */
		public List<String> fields() {
			return this.fields;
		}

	}

	/**
	 * A field that was present but ignored.
	 *
	 * @param code why, from a fixed set (fit for a metric tag)
	 * @param field the field's name
	 * @param reason a sentence quoting the value (cut to 64 characters)
	 */
	public record Problem(Code code, String field, String reason) {

		/**
		 * Checks the arguments.
		 * @param code why, from a fixed set (fit for a metric tag)
		 * @param field the field's name
		 * @param reason a sentence quoting the value (cut to 64 characters)
		 */
		public Problem {
			Objects.requireNonNull(code, "code");
			Objects.requireNonNull(field, "field");
			Objects.requireNonNull(reason, "reason");
		}

		/** Why a rate-limit field was ignored. */
		public enum Code {

			/** Not a structured-field list (RFC 9651), or a trio field that is not one integer. */
			MALFORMED,

			/** A number that is not ASCII digits, has more than 15 of them, or is zero where it divides. */
			INVALID_NUMBER,

			/** Two field lines, or two members where one is allowed. */
			MULTIPLE_VALUES,

			/** A quota counted in something other than requests ({@code qu} other than {@code "requests"}). */
			NOT_REQUESTS,

			/** A reset in epoch seconds without a {@code Date} to measure it against. */
			MISSING_DATE,

			/** A reset in epoch seconds before the response's own {@code Date}. */
			RESET_BEFORE_DATE

		}

	}

}
