package io.github.retryafter;

import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a response's {@code Retry-After} into a {@link RetryPlan}: parsed strictly, measured skew-free against the
 * response's own {@code Date}, corrected for the response's age, jittered only above the server's floor, and held as a
 * deadline on the monotonic {@link Ticker}.
 * <p>
 * Immutable and thread-safe (as long as its {@link RandomSource} is). Build with {@link #builder()}.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public final class RetryAfterPlanner {

	private final PlannerOptions options;

	private final RandomSource random;

	private final Ticker ticker;

	private final InstantSource wallClock;

	private RetryAfterPlanner(Builder builder) {
		this.options = builder.options;
		this.random = builder.random;
		this.ticker = builder.ticker;
		this.wallClock = builder.wallClock;
	}

	/**
	 * Returns a builder with the default options, the thread-local random source and the system clocks.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the options this planner was built with.
	 * @return the options
	 */
	public PlannerOptions options() {
		return this.options;
	}

	/**
	 * Returns the monotonic clock this planner's deadlines are on.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Plans the wait for the first attempt's response, received now, with no jitter key.
	 * @param headers the response's header fields
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 */
	public Optional<RetryPlan> plan(HeaderSource headers) {
		return plan(headers, PlanRequest.forAttempt(1));
	}

	/**
	 * Plans the wait for one response.
	 * @param headers the response's header fields
	 * @param request the attempt number, jitter key and optional round-trip instants
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 */
	public Optional<RetryPlan> plan(HeaderSource headers, PlanRequest request) {
		Objects.requireNonNull(headers, "headers");
		Objects.requireNonNull(request, "request");
		throw new UnsupportedOperationException("planner not implemented yet");
	}

	/**
	 * Builds a {@link RetryAfterPlanner}. Not thread-safe.
	 */
	public static final class Builder {

		private PlannerOptions options = PlannerOptions.DEFAULTS;

		private RandomSource random = RandomSource.threadLocal();

		private Ticker ticker = Ticker.system();

		private InstantSource wallClock = InstantSource.system();

		private Builder() {
		}

		/**
		 * Sets the options.
		 * @param options the options
		 * @return this builder
		 */
		public Builder options(PlannerOptions options) {
			this.options = Objects.requireNonNull(options, "options");
			return this;
		}

		/**
		 * Sets the random source used by {@link JitterMode#RANDOM}.
		 * @param random the source
		 * @return this builder
		 */
		public Builder random(RandomSource random) {
			this.random = Objects.requireNonNull(random, "random");
			return this;
		}

		/**
		 * Sets the monotonic clock deadlines are held on.
		 * @param ticker the ticker
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets the client's wall clock, read only to report skew, to estimate {@link RetryPlan#estimatedWallAt()} and
		 * for {@link OnMissingDate#TRUST_CLIENT_CLOCK}.
		 * @param wallClock the wall clock
		 * @return this builder
		 */
		public Builder wallClock(InstantSource wallClock) {
			this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
			return this;
		}

		/**
		 * Builds the planner.
		 * @return the planner
		 */
		public RetryAfterPlanner build() {
			return new RetryAfterPlanner(this);
		}

	}

}
