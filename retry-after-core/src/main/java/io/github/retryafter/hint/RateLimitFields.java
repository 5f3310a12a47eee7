package io.github.retryafter.hint;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.internal.Saturating;

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
 * Two vendor families are read when the field set names them ({@link io.github.retryafter.HintField#OPENAI_WINDOWS},
 * {@link io.github.retryafter.HintField#ANTHROPIC_WINDOWS}), before the standard ones: each is a set of
 * {@link Window windows}, one counting requests and others counting tokens, each with a limit, a remaining and a
 * reset (a Go duration such as {@code 6m0s} for OpenAI, an RFC 3339 instant measured against the response's
 * {@code Date} for Anthropic). {@link #limit()}, {@link #remaining()} and {@link #reset()} are then the request
 * window's; {@link #hold()}, {@link #pacedRemaining()} and {@link #ratePerSecond()} say how every window paces
 * together (docs/vendor-fields.md has the reasoning).
 * <p>
 * Every integer is ASCII digits, at most 15 of them (RFC 9651's bound); a field that is present but unusable is
 * ignored and named in {@link #problems()} with a {@link Problem.Code code}, never guessed at, and reading never
 * throws. Immutable and thread-safe.
 *
 * @param quota the quota's rate in requests per second, if a limit and its window were announced
 * @param limit the requests the current window allows, if announced: the {@code q} of the policy named as the
 * {@code RateLimit} item read, a trio's limit (its first integer), a vendor family's request window's limit
 * @param remaining the requests left in the current window, if announced
 * @param reset the time from the response until the window resets, if announced
 * @param family the family that was read, empty when the response carries none
 * @param problems the fields present but ignored, and why; empty when all were usable
 * @param windows the vendor families' windows, each as announced; empty for the standard families
 * @see <a href="https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/">draft-ietf-httpapi-ratelimit-headers</a>
 */
public record RateLimitFields(OptionalDouble quota, OptionalLong limit, OptionalLong remaining,
		Optional<Duration> reset, Optional<Family> family, List<Problem> problems, List<Window> windows) {

	/** The smallest reset value the trios read as epoch seconds instead of delta-seconds. */
	public static final long EPOCH_SECONDS_FROM = 1_000_000_000L;

	/** A response without rate-limit fields. */
	public static final RateLimitFields NONE = new RateLimitFields(OptionalDouble.empty(), OptionalLong.empty(),
			OptionalLong.empty(), Optional.empty(), Optional.empty(), List.of(), List.of());

	/**
	 * Checks the arguments and copies the problems.
	 * @param quota the quota's rate in requests per second, if a limit and its window were announced
	 * @param limit the requests the current window allows, if announced
	 * @param remaining the requests left in the current window, if announced
	 * @param reset the time from the response until the window resets, if announced
	 * @param family the family that was read, empty when the response carries none
	 * @param problems the fields present but ignored, and why; empty when all were usable
	 * @param windows the vendor families' windows; empty for the standard families
	 */
	public RateLimitFields {
		Objects.requireNonNull(quota, "quota");
		Objects.requireNonNull(limit, "limit");
		Objects.requireNonNull(remaining, "remaining");
		Objects.requireNonNull(reset, "reset");
		Objects.requireNonNull(family, "family");
		problems = List.copyOf(problems);
		windows = List.copyOf(windows);
	}

	/**
	 * Fields without a limit: the canonical constructor with an empty {@link #limit()}.
	 * @param quota the quota's rate in requests per second, if a limit and its window were announced
	 * @param remaining the requests left in the current window, if announced
	 * @param reset the time from the response until the window resets, if announced
	 * @param family the family that was read, empty when the response carries none
	 * @param problems the fields present but ignored, and why; empty when all were usable
	 * @param windows the vendor families' windows; empty for the standard families
	 */
	public RateLimitFields(OptionalDouble quota, OptionalLong remaining, Optional<Duration> reset,
			Optional<Family> family, List<Problem> problems, List<Window> windows) {
		this(quota, OptionalLong.empty(), remaining, reset, family, problems, windows);
	}

	/**
	 * Fields of a standard family, without windows and without a limit.
	 * @param quota the quota's rate in requests per second, if a limit and its window were announced
	 * @param remaining the requests left in the current window, if announced
	 * @param reset the time from the response until the window resets, if announced
	 * @param family the family that was read, empty when the response carries none
	 * @param problems the fields present but ignored, and why; empty when all were usable
	 */
	public RateLimitFields(OptionalDouble quota, OptionalLong remaining, Optional<Duration> reset,
			Optional<Family> family, List<Problem> problems) {
		this(quota, OptionalLong.empty(), remaining, reset, family, problems, List.of());
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
	 * Returns whether the provider said a window has nothing left and when it resets.
	 * @return {@code true} when {@link #hold()} is present
	 */
	public boolean exhausted() {
		return hold().isPresent();
	}

	/**
	 * Returns how long nothing should be sent: the latest reset among the windows with nothing left (a remaining of
	 * zero with a reset in the future), token windows included; for a standard family, its reset when its remaining
	 * is zero.
	 * @return the hold, measured from the response; empty when no window is exhausted
	 */
	public Optional<Duration> hold() {
		if (this.windows.isEmpty()) {
			boolean none = this.remaining.isPresent() && this.remaining.getAsLong() == 0;
			return none ? this.reset.filter((wait) -> !wait.isZero()) : Optional.empty();
		}
		Optional<Duration> hold = Optional.empty();
		for (Window window : this.windows) {
			if (window.exhausted() && (hold.isEmpty() || window.reset().get().compareTo(hold.get()) > 0)) {
				hold = window.reset();
			}
		}
		return hold;
	}

	/**
	 * Returns the requests the gate may count on: {@link #remaining()}, scaled by the scarcest token window's
	 * {@code remaining / limit} (a token window paces without knowing a request's token cost: the share of tokens
	 * left is read as the share of the request window usable), and never scaled to zero (only an exhausted window
	 * holds, through {@link #hold()}).
	 * @return the requests to pace by; empty without a remaining
	 */
	public OptionalLong pacedRemaining() {
		if (this.remaining.isEmpty()) {
			return this.remaining;
		}
		long requests = this.remaining.getAsLong();
		double scale = tokenScale();
		return (scale >= 1.0 || requests == 0) ? this.remaining
				: OptionalLong.of(Math.max(1, (long) Math.floor(requests * scale)));
	}

	/**
	 * Returns the rate to pace by, in requests per second: the quota when one was announced, else
	 * {@link #pacedRemaining()} over the reset; zero when neither is known.
	 * @return the rate, finite and not negative
	 */
	public double ratePerSecond() {
		if (this.quota.isPresent()) {
			return this.quota.getAsDouble() * Math.min(1.0, tokenScale());
		}
		OptionalLong paced = pacedRemaining();
		if (paced.isEmpty() || this.reset.isEmpty() || this.reset.get().isZero()) {
			return 0.0;
		}
		double perSecond = paced.getAsLong() * 1e9 / Saturating.toNanos(this.reset.get());
		return Double.isFinite(perSecond) ? perSecond : 0.0;
	}

	/** The smallest {@code remaining / limit} of a token window not exhausted, with both known; 1 without one. */
	private double tokenScale() {
		double scale = 1.0;
		for (Window window : this.windows) {
			if (window.kind() == Window.Kind.TOKENS && window.limit().isPresent() && window.remaining().isPresent()
					&& window.remaining().getAsLong() > 0) {
				scale = Math.min(scale, window.remaining().getAsLong() / (double) window.limit().getAsLong());
			}
		}
		return scale;
	}

	/**
	 * One window of a vendor family, as announced. Immutable.
	 *
	 * @param name the window's name in its fields ({@code requests}, {@code tokens}, {@code input-tokens},
	 * {@code output-tokens})
	 * @param kind what it counts
	 * @param limit its limit, if announced and usable
	 * @param remaining what is left of it, if announced and usable
	 * @param reset the time from the response until it resets, if announced and usable
	 */
	public record Window(String name, Kind kind, OptionalLong limit, OptionalLong remaining,
			Optional<Duration> reset) {

		/**
		 * Checks the arguments.
		 * @param name the window's name in its fields
		 * @param kind what it counts
		 * @param limit its limit, if announced and usable
		 * @param remaining what is left of it, if announced and usable
		 * @param reset the time from the response until it resets, if announced and usable
		 */
		public Window {
			Objects.requireNonNull(name, "name");
			Objects.requireNonNull(kind, "kind");
			Objects.requireNonNull(limit, "limit");
			Objects.requireNonNull(remaining, "remaining");
			Objects.requireNonNull(reset, "reset");
		}

		/**
		 * Returns whether nothing is left and the reset is in the future.
		 * @return {@code true} for a remaining of zero with a reset above zero
		 */
		public boolean exhausted() {
			return this.remaining.isPresent() && this.remaining.getAsLong() == 0
					&& this.reset.filter((wait) -> !wait.isZero()).isPresent();
		}

		/** What a window counts. */
		public enum Kind {

			/** Requests. */
			REQUESTS,

			/** Tokens (input, output or both): their cost per request is not known. */
			TOKENS

		}

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
		X_TRIO("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"),

		/** OpenAI's {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}}, resets as Go durations. */
		OPENAI(HintField.OPENAI_WINDOWS.names().toArray(new String[0])),

		/** Anthropic's {@code anthropic-ratelimit-*-{limit,remaining,reset}}, resets as RFC 3339 instants. */
		ANTHROPIC(HintField.ANTHROPIC_WINDOWS.names().toArray(new String[0]));

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

		/** Whether any of this family's fields is on the response. */
		boolean presentIn(ResponseHints hints) {
			for (String name : this.fields) {
				if (!hints.lines(name).isEmpty()) {
					return true;
				}
			}
			return false;
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

			/** A reset in epoch seconds, or an RFC 3339 instant, without a {@code Date} to measure it against. */
			MISSING_DATE,

			/** A reset in epoch seconds (or an RFC 3339 instant) before the response's own {@code Date}. */
			RESET_BEFORE_DATE,

			/** A reset that is not a Go duration ({@code 6m0s}): signed, without a unit, or too long to hold. */
			INVALID_DURATION,

			/** A reset that is not an RFC 3339 date-time, or names a date or time that does not exist. */
			INVALID_INSTANT

		}

	}

}
