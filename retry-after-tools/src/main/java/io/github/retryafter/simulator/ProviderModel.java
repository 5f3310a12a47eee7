package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;

/**
 * How the simulated provider of a {@link Workload} behaves: an outage that starts when the workload starts and lasts a
 * duration drawn uniformly from {@code [outageMin, outageMax]} (one draw per provider), then, optionally, a
 * token-bucket rate limit. During the outage it answers {@code 503} with a {@code Retry-After} in the given
 * {@link HintForm}, always with its own {@code Date}; a refusal by the rate limit is a {@code 429} in the same form.
 * Either way the hint is the time left until the provider expects to accept the request, rounded up to whole seconds,
 * at least 1 s and capped at {@code hintCap} the way real services cap what they ask for (seed 000's harness capped at
 * 5 s). Anything else is a {@code 200}. A rate limit may announce its quota ({@link RateLimit#announced()}).
 * <p>
 * The provider's wall clock is the simulation's virtual time plus {@code clockOffset} (true time by default); every
 * instruction it gives is remembered on its own time line, which is where early retries are counted.
 * <p>
 * Immutable and thread-safe; the state of a running provider lives in the simulation.
 *
 * @param outageMin the shortest outage
 * @param outageMax the longest outage; equal to {@code outageMin} for a fixed outage
 * @param hintCap the longest wait the provider asks for, a whole number of seconds
 * @param hintForm how the {@code Retry-After} of a {@code 503} is written
 * @param rateLimit the rate limit after the outage, if any
 * @param clockOffset the provider's wall clock minus true time
 * @param windows an OpenAI-style provider's request and token windows, in place of an outage and a rate limit
 * @param slidingWindow a sliding-window limit, in place of an outage, a rate limit and windows
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public record ProviderModel(Duration outageMin, Duration outageMax, Duration hintCap, HintForm hintForm,
		Optional<RateLimit> rateLimit, Duration clockOffset, Optional<RequestTokenWindows> windows,
		Optional<SlidingWindow> slidingWindow) {

	/** What a client of an OpenAI-style provider reads: the standard fields, its wait and verdict fields, its windows. */
	public static final HintFields OPENAI_FIELDS = HintFields.STANDARD.with(HintField.RETRY_AFTER_MS,
			HintField.X_SHOULD_RETRY, HintField.OPENAI_WINDOWS);

	/** The two forms of {@code Retry-After}. */
	public enum HintForm {

		/** {@code Retry-After: 5}, counted from the moment the response was generated. */
		DELAY_SECONDS,

		/** {@code Retry-After: <IMF-fixdate>} on the provider's clock, with the response's own {@code Date}. */
		HTTP_DATE

	}

	/**
	 * A token bucket in front of the provider once the outage is over: {@code perSecond} tokens a second, up to
	 * {@code burst}; a request that finds no token is refused with {@code 429} and the time until the next token.
	 *
	 * @param perSecond the refill rate, requests per second
	 * @param burst the bucket's capacity, full when the outage ends
	 * @param announced whether every answer after the outage announces the quota in the IETF fields:
	 * {@code RateLimit-Policy: "default";q=<perSecond>;w=1} and {@code RateLimit: "default";r=<whole tokens left>;t=<whole
	 * seconds until the bucket is full, or until the next token when it is empty>}
	 */
	public record RateLimit(double perSecond, int burst, boolean announced) {

		/**
		 * A rate limit that does not announce itself.
		 * @param perSecond the refill rate, requests per second
		 * @param burst the bucket's capacity
		 */
		public RateLimit(double perSecond, int burst) {
			this(perSecond, burst, false);
		}

		/**
		 * Validates eagerly.
		 * @param announced whether every answer after the outage announces the quota in the IETF fields: {@code
		 * RateLimit-Policy: "default";q=<perSecond>;w=1} and {@code RateLimit: "default";r=<whole tokens left>;t=<whole
		 * seconds until the bucket is full, or until the next token when it is empty>}
		 * @throws IllegalArgumentException when the rate is not positive or the burst below 1
		 * @param perSecond the refill rate, requests per second
		 * @param burst the bucket's capacity, full when the outage ends
		 */
		public RateLimit {
			if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
				throw new IllegalArgumentException("rate limit must be a positive rate but was " + perSecond);
			}
			if (burst < 1) {
				throw new IllegalArgumentException("rate limit burst must be at least 1 but was " + burst);
			}
		}

	}

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param outageMin the shortest outage
	 * @param outageMax the longest outage; equal to {@code outageMin} for a fixed outage
	 * @param hintCap the longest wait the provider asks for, a whole number of seconds
	 * @param hintForm how the {@code Retry-After} of a {@code 503} is written
	 * @param rateLimit the rate limit after the outage, if any
	 * @param clockOffset the provider's wall clock minus true time
	 * @param windows an OpenAI-style provider's request and token windows, in place of an outage and a rate limit
	 * @param slidingWindow a sliding-window limit, in place of an outage, a rate limit and windows
	 */
	public ProviderModel {
		Objects.requireNonNull(outageMin, "outageMin");
		Objects.requireNonNull(outageMax, "outageMax");
		Objects.requireNonNull(hintCap, "hintCap");
		Objects.requireNonNull(hintForm, "hintForm");
		Objects.requireNonNull(rateLimit, "rateLimit");
		Objects.requireNonNull(clockOffset, "clockOffset");
		Objects.requireNonNull(windows, "windows");
		Objects.requireNonNull(slidingWindow, "slidingWindow");
		if (slidingWindow.isPresent() && (!outageMax.isZero() || rateLimit.isPresent() || windows.isPresent())) {
			throw new IllegalArgumentException("a provider with a sliding window has no outage, no rate limit and no "
					+ "windows: use one or the other");
		}
		if (windows.isPresent() && (!outageMax.isZero() || rateLimit.isPresent())) {
			throw new IllegalArgumentException("a provider with request and token windows has no outage and no other "
					+ "rate limit: use one or the other");
		}
		if (outageMin.isNegative() || outageMax.compareTo(outageMin) < 0) {
			throw new IllegalArgumentException(
					"outage must satisfy 0 <= min <= max but was [" + outageMin + ", " + outageMax + "]");
		}
		if (hintCap.toSeconds() < 1 || hintCap.toNanosPart() != 0) {
			throw new IllegalArgumentException("hint cap must be a whole number of seconds, at least 1, but was " + hintCap);
		}
	}

	/**
	 * A provider without windows.
	 * @param outageMin the shortest outage
	 * @param outageMax the longest outage; equal to {@code outageMin} for a fixed outage
	 * @param hintCap the longest wait the provider asks for, a whole number of seconds
	 * @param hintForm how the {@code Retry-After} of a {@code 503} is written
	 * @param rateLimit the rate limit after the outage, if any
	 * @param clockOffset the provider's wall clock minus true time
	 */
	public ProviderModel(Duration outageMin, Duration outageMax, Duration hintCap, HintForm hintForm,
			Optional<RateLimit> rateLimit, Duration clockOffset) {
		this(outageMin, outageMax, hintCap, hintForm, rateLimit, clockOffset, Optional.empty());
	}

	/**
	 * A provider without a sliding window.
	 * @param outageMin the shortest outage
	 * @param outageMax the longest outage; equal to {@code outageMin} for a fixed outage
	 * @param hintCap the longest wait the provider asks for, a whole number of seconds
	 * @param hintForm how the {@code Retry-After} of a {@code 503} is written
	 * @param rateLimit the rate limit after the outage, if any
	 * @param clockOffset the provider's wall clock minus true time
	 * @param windows an OpenAI-style provider's request and token windows, in place of an outage and a rate limit
	 */
	public ProviderModel(Duration outageMin, Duration outageMax, Duration hintCap, HintForm hintForm,
			Optional<RateLimit> rateLimit, Duration clockOffset, Optional<RequestTokenWindows> windows) {
		this(outageMin, outageMax, hintCap, hintForm, rateLimit, clockOffset, windows, Optional.empty());
	}

	/**
	 * Returns a provider behind a sliding window ({@link SlidingWindow}): no outage, a {@code 429} with the window's
	 * {@code Retry-After} to every request the window cannot admit, its {@code Date} on true time, read by a client
	 * configured as the {@code openai} profile is ({@link #OPENAI_FIELDS}).
	 * @param limit the window
	 * @return a new model
	 */
	public static ProviderModel slidingWindow(SlidingWindow limit) {
		Duration cap = Duration.ofSeconds(Math.max(1, (limit.retryAfter().toMillis() + 999) / 1000));
		return new ProviderModel(Duration.ZERO, Duration.ZERO, cap, HintForm.DELAY_SECONDS,
				Optional.empty(), Duration.ZERO, Optional.empty(), Optional.of(limit));
	}

	/**
	 * Returns an OpenAI-style provider: no outage, the given request and token windows, answering with the OpenAI
	 * fields ({@link RequestTokenWindows}), its {@code Date} on true time.
	 * @param windows the windows
	 * @param hintCap the longest wait it asks for in {@code Retry-After}, a whole number of seconds
	 * @return a new model
	 */
	public static ProviderModel openAi(RequestTokenWindows windows, Duration hintCap) {
		return new ProviderModel(Duration.ZERO, Duration.ZERO, hintCap, HintForm.DELAY_SECONDS, Optional.empty(),
				Duration.ZERO, Optional.of(windows));
	}

	/**
	 * Returns the fields a client configured for this provider reads: {@link #OPENAI_FIELDS} for a provider with
	 * windows or a sliding window, else {@link HintFields#STANDARD}.
	 * @return the field set
	 */
	public HintFields fields() {
		return (this.windows.isPresent() || this.slidingWindow.isPresent()) ? OPENAI_FIELDS : HintFields.STANDARD;
	}

	/**
	 * Returns an outage-only provider answering {@code 503} with an HTTP-date and its own {@code Date}, on true time.
	 * @param outageMin the shortest outage
	 * @param outageMax the longest outage
	 * @param hintCap the longest wait it asks for
	 * @return a new model
	 */
	public static ProviderModel outage(Duration outageMin, Duration outageMax, Duration hintCap) {
		return new ProviderModel(outageMin, outageMax, hintCap, HintForm.HTTP_DATE, Optional.empty(), Duration.ZERO);
	}

	/**
	 * Returns a copy writing {@code Retry-After} in the given form.
	 * @param form the form
	 * @return a new model
	 */
	public ProviderModel withHintForm(HintForm form) {
		return new ProviderModel(this.outageMin, this.outageMax, this.hintCap, form, this.rateLimit, this.clockOffset,
				this.windows, this.slidingWindow);
	}

	/**
	 * Returns a copy with a rate limit once the outage is over.
	 * @param limit the rate limit, or {@code null} for none
	 * @return a new model
	 */
	public ProviderModel withRateLimit(RateLimit limit) {
		return new ProviderModel(this.outageMin, this.outageMax, this.hintCap, this.hintForm, Optional.ofNullable(limit),
				this.clockOffset, this.windows, this.slidingWindow);
	}

	/**
	 * Returns a copy whose wall clock is {@code offset} away from true time.
	 * @param offset the provider's clock minus true time
	 * @return a new model
	 */
	public ProviderModel withClockOffset(Duration offset) {
		return new ProviderModel(this.outageMin, this.outageMax, this.hintCap, this.hintForm, this.rateLimit, offset,
				this.windows, this.slidingWindow);
	}

}
