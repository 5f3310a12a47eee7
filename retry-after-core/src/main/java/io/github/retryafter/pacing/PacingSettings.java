package io.github.retryafter.pacing;

import java.time.Duration;
import java.util.Objects;

import io.github.retryafter.hint.RateLimitFields;

/**
 * How one provider is paced: the cooldown mode and the bounds and shape of the adaptive admission rate.
 * <p>
 * The rate is off until the provider first throttles (a 429 or 503). It then starts at {@code decreaseFactor × maxRate}
 * and follows what the provider admits (see {@link ProviderGate}): a refusal from a provider that is admitting starts a
 * measurement of the successes per second it admits and lowers the rate by {@code decreaseFactor}; the measurement
 * sets the rate just below the measured capacity, in proportion to the overshoot (the AWS SDKs' adaptive mode measures
 * its own send rate instead, which a burst of requests in flight inflates). Other throttles (a provider that is down,
 * or a cooldown in force) multiply the rate by {@code decreaseFactor} once the provider has admitted a request since
 * the previous decrease, never below {@code minRate}. Successes grow it back: doubling every second while the
 * provider has not refused at this rate, and around a measured capacity along the cubic curve
 * {@code rate(t) = growthScale × (t − K)³ + target} with {@code K = ∛((target − base) / growthScale)}, flat near the
 * capacity and probing ever faster above it (CUBIC; 0.7 and 0.4 are the AWS SDKs' constants). Once the rate reaches
 * {@code maxRate}, pacing lets go until the next throttle. While the rate is on, retries may use all of it while no
 * fresh request comes, and at most {@code 1 − freshShare} of it within a second of one, so a backlog of retries cannot
 * starve fresh requests; fresh requests may use any of it.
 * <p>
 * No cooldown lasts longer than {@code maxCooldown}, whatever a server asks: a longer hint closes the gate for
 * {@code maxCooldown} (and still ends its own operation if the planner finds it too long). When a cooldown ends, one
 * request goes first as a probe and the others wait for its answer.
 * <p>
 * Immutable and thread-safe. Build with {@link #builder()} or start from {@link #DEFAULTS} with {@link #toBuilder()};
 * every setter validates eagerly.
 *
 * @param mode what a request does while its provider cools down
 * @param minRate the lowest rate, in requests per second, the adaptive rate drops to
 * @param maxRate the rate, in requests per second, at or above which pacing lets go (unless more than {@code burst}
 * requests are held: a backlog drains at {@code maxRate}, not all at once)
 * @param burst how many requests each lane may send back to back when it has been idle
 * @param freshShare the share of the rate kept for fresh requests (first attempts), from 0 (none) to below 1
 * @param decreaseFactor what a throttle multiplies the rate by, strictly between 0 and 1
 * @param growthScale the cubic growth's scale, in requests per second per second cubed, above 0
 * @param rateLimitFields whether the provider's {@link RateLimitFields rate-limit fields} pace it before its first
 * refusal: once it has at most {@code burst} requests left, its quota ({@code limit / window}, else
 * {@code remaining / reset}) sets the rate and caps its growth, and a remaining of zero closes the gate until the
 * reset (capped at {@code maxCooldown})
 * @param maxCooldown the longest a cooldown may close the gate, not negative (zero: hints never close it)
 * @param maxQueued the most requests one gate holds at once (waiting for a cooldown, a probe or a slot), at least 1:
 * a request that would be held beyond it ends {@code PROVIDER_COOLING_DOWN} at once, unsent; while more than
 * {@code burst} requests are held, the rate limit stays on even at {@code maxRate}
 */
public record PacingSettings(PacingMode mode, double minRate, double maxRate, int burst, double freshShare,
		double decreaseFactor, double growthScale, boolean rateLimitFields, Duration maxCooldown, int maxQueued) {

	/** What {@code maxCooldown} is unless set: 30 s, the engine's default max wait. */
	public static final Duration DEFAULT_MAX_COOLDOWN = Duration.ofSeconds(30);

	/**
	 * What {@code maxQueued} is unless set: 10,000 requests held per gate, 33 to 70 MB of heap at the 3.3 to 7 KB a
	 * held WebClient request costs (docs/pacing.md).
	 */
	public static final int DEFAULT_MAX_QUEUED = 10_000;

	/**
	 * Hold requests during a cooldown of at most 30 s; 1 to 1,000 requests per second, bursts of 10, 10% for fresh
	 * requests; rate-limit fields read.
	 */
	public static final PacingSettings DEFAULTS = new PacingSettings(PacingMode.HOLD, 1.0, 1000.0, 10, 0.1, 0.7, 0.4,
			true, DEFAULT_MAX_COOLDOWN, DEFAULT_MAX_QUEUED);

	/** No pacing: the defaults with {@link PacingMode#OFF}. */
	public static final PacingSettings OFF = DEFAULTS.toBuilder().mode(PacingMode.OFF).build();

	/**
	 * Checks the arguments.
	 * @param rateLimitFields whether the provider's {@link RateLimitFields rate-limit fields} pace it before its first
	 * refusal: once it has at most {@code burst} requests left, its quota ({@code limit / window}, else {@code remaining
	 * / reset}) sets the rate and caps its growth, and a remaining of zero closes the gate until the reset (capped at
	 * {@code maxCooldown})
	 * @param maxCooldown the longest a cooldown may close the gate, not negative (zero: hints never close it)
	 * @throws IllegalArgumentException naming the setting and the bad value
	 * @param mode what a request does while its provider cools down
	 * @param minRate the lowest rate, in requests per second, the adaptive rate drops to
	 * @param maxRate the rate, in requests per second, at or above which pacing lets go
	 * @param burst how many requests each lane may send back to back when it has been idle
	 * @param freshShare the share of the rate kept for fresh requests (first attempts), from 0 (none) to below 1
	 * @param decreaseFactor what a throttle multiplies the rate by, strictly between 0 and 1
	 * @param growthScale the cubic growth's scale, in requests per second per second cubed, above 0
	 * @param maxQueued the most requests one gate holds at once, at least 1
	 */
	public PacingSettings {
		Objects.requireNonNull(mode, "mode");
		if (!(minRate > 0) || Double.isInfinite(minRate)) {
			throw new IllegalArgumentException("minRate must be a positive number of requests per second but was " + minRate);
		}
		if (!(maxRate >= minRate) || Double.isInfinite(maxRate)) {
			throw new IllegalArgumentException("maxRate must be finite and at least minRate (" + minRate + ") but was " + maxRate);
		}
		if (burst < 1) {
			throw new IllegalArgumentException("burst must be at least 1 but was " + burst);
		}
		if (!(freshShare >= 0 && freshShare < 1)) {
			throw new IllegalArgumentException("freshShare must be at least 0 and below 1 but was " + freshShare);
		}
		if (!(decreaseFactor > 0 && decreaseFactor < 1)) {
			throw new IllegalArgumentException("decreaseFactor must be strictly between 0 and 1 but was " + decreaseFactor);
		}
		if (!(growthScale > 0) || Double.isInfinite(growthScale)) {
			throw new IllegalArgumentException("growthScale must be a positive number but was " + growthScale);
		}
		requireNotNegative(maxCooldown);
		requireMaxQueued(maxQueued);
	}

	private static int requireMaxQueued(int maxQueued) {
		if (maxQueued < 1) {
			throw new IllegalArgumentException("maxQueued must be at least 1 but was " + maxQueued);
		}
		return maxQueued;
	}

	private static Duration requireNotNegative(Duration maxCooldown) {
		Objects.requireNonNull(maxCooldown, "maxCooldown");
		if (maxCooldown.isNegative()) {
			throw new IllegalArgumentException("maxCooldown must not be negative but was " + maxCooldown);
		}
		return maxCooldown;
	}

	/**
	 * Returns a builder starting from {@link #DEFAULTS}.
	 * @return a new builder
	 */
	public static Builder builder() {
		return DEFAULTS.toBuilder();
	}

	/**
	 * Returns a builder starting from these settings.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		return new Builder(this);
	}

	/**
	 * Returns whether pacing is on.
	 * @return {@code false} for {@link PacingMode#OFF}
	 */
	public boolean enabled() {
		return this.mode != PacingMode.OFF;
	}

	/**
	 * Builds {@link PacingSettings}, checking each value as it is set. Not thread-safe.
	 */
	public static final class Builder {

		private PacingMode mode;

		private double minRate;

		private double maxRate;

		private int burst;

		private double freshShare;

		private double decreaseFactor;

		private double growthScale;

		private boolean rateLimitFields;

		private Duration maxCooldown;

		private int maxQueued;

		private Builder(PacingSettings from) {
			this.mode = from.mode;
			this.minRate = from.minRate;
			this.maxRate = from.maxRate;
			this.burst = from.burst;
			this.freshShare = from.freshShare;
			this.decreaseFactor = from.decreaseFactor;
			this.growthScale = from.growthScale;
			this.rateLimitFields = from.rateLimitFields;
			this.maxCooldown = from.maxCooldown;
			this.maxQueued = from.maxQueued;
		}

		/**
		 * Sets the mode.
		 * @param mode the mode
		 * @return this builder
		 */
		public Builder mode(PacingMode mode) {
			this.mode = Objects.requireNonNull(mode, "mode");
			return this;
		}

		/**
		 * Sets the lowest rate.
		 * @param minRate requests per second, above 0
		 * @return this builder
		 * @throws IllegalArgumentException if not a positive finite number
		 */
		public Builder minRate(double minRate) {
			this.minRate = positive("minRate", minRate);
			return this;
		}

		/**
		 * Sets the rate at which pacing lets go.
		 * @param maxRate requests per second, above 0; checked against the min rate when built
		 * @return this builder
		 * @throws IllegalArgumentException if not a positive finite number
		 */
		public Builder maxRate(double maxRate) {
			this.maxRate = positive("maxRate", maxRate);
			return this;
		}

		/**
		 * Sets the burst.
		 * @param burst requests, at least 1
		 * @return this builder
		 * @throws IllegalArgumentException if below 1
		 */
		public Builder burst(int burst) {
			if (burst < 1) {
				throw new IllegalArgumentException("burst must be at least 1 but was " + burst);
			}
			this.burst = burst;
			return this;
		}

		/**
		 * Sets the share of the rate kept for fresh requests.
		 * @param freshShare from 0 to below 1
		 * @return this builder
		 * @throws IllegalArgumentException if outside {@code [0, 1)}
		 */
		public Builder freshShare(double freshShare) {
			if (!(freshShare >= 0 && freshShare < 1)) {
				throw new IllegalArgumentException("freshShare must be at least 0 and below 1 but was " + freshShare);
			}
			this.freshShare = freshShare;
			return this;
		}

		/**
		 * Sets the multiplicative decrease.
		 * @param decreaseFactor strictly between 0 and 1
		 * @return this builder
		 * @throws IllegalArgumentException if outside {@code (0, 1)}
		 */
		public Builder decreaseFactor(double decreaseFactor) {
			if (!(decreaseFactor > 0 && decreaseFactor < 1)) {
				throw new IllegalArgumentException(
						"decreaseFactor must be strictly between 0 and 1 but was " + decreaseFactor);
			}
			this.decreaseFactor = decreaseFactor;
			return this;
		}

		/**
		 * Sets the cubic growth's scale.
		 * @param growthScale above 0
		 * @return this builder
		 * @throws IllegalArgumentException if not a positive finite number
		 */
		public Builder growthScale(double growthScale) {
			this.growthScale = positive("growthScale", growthScale);
			return this;
		}

		/**
		 * Sets whether the provider's rate-limit fields pace it.
		 * @param rateLimitFields {@code false} to ignore {@code RateLimit}, {@code RateLimit-*} and
		 * {@code X-RateLimit-*}
		 * @return this builder
		 */
		public Builder rateLimitFields(boolean rateLimitFields) {
			this.rateLimitFields = rateLimitFields;
			return this;
		}

		/**
		 * Sets the longest a cooldown may close the gate, whatever a server asks.
		 * @param maxCooldown not negative; zero means no hint closes the gate
		 * @return this builder
		 * @throws IllegalArgumentException if it is negative
		 */
		public Builder maxCooldown(Duration maxCooldown) {
			this.maxCooldown = requireNotNegative(maxCooldown);
			return this;
		}

		/**
		 * Sets the most requests one gate holds at once.
		 * @param maxQueued at least 1
		 * @return this builder
		 * @throws IllegalArgumentException if below 1
		 */
		public Builder maxQueued(int maxQueued) {
			this.maxQueued = requireMaxQueued(maxQueued);
			return this;
		}

		/**
		 * Builds the settings.
		 * @return the settings
		 * @throws IllegalArgumentException if the min rate is above the max rate
		 */
		public PacingSettings build() {
			return new PacingSettings(this.mode, this.minRate, this.maxRate, this.burst, this.freshShare,
					this.decreaseFactor, this.growthScale, this.rateLimitFields, this.maxCooldown, this.maxQueued);
		}

		private static double positive(String name, double value) {
			if (!(value > 0) || Double.isInfinite(value)) {
				throw new IllegalArgumentException(name + " must be a positive finite number but was " + value);
			}
			return value;
		}

	}

}
