package io.github.retryafter.pacing;

import java.util.Objects;

/**
 * How one provider is paced: the cooldown mode and the bounds and shape of the adaptive admission rate.
 * <p>
 * The rate is off until the provider first throttles (a 429 or 503). It then starts at {@code decreaseFactor × maxRate}
 * (a measured send rate would be read while the burst that drew the throttle is still being sent, and understate it),
 * is multiplied by {@code decreaseFactor} again on every later throttle of a request sent after the previous decrease
 * once the provider has admitted a request since, never below {@code minRate}, and grows back on
 * successes along a cubic curve, {@code rate(t) = growthScale × (t − K)³ + rateBeforeDecrease} with
 * {@code K = ∛(rateBeforeDecrease × (1 − decreaseFactor) / growthScale)}: fast far from the last known good rate, flat
 * near it (CUBIC, as in the AWS SDKs' adaptive retry mode, whose constants 0.7 and 0.4 are the defaults). Once the
 * curve reaches {@code maxRate}, pacing lets go until the next throttle. While the rate is on, retries may use at most
 * {@code 1 − freshShare} of it, so a backlog of retries cannot starve fresh requests; fresh requests may use any of it.
 * <p>
 * Immutable and thread-safe. Build with {@link #builder()} or start from {@link #DEFAULTS} with {@link #toBuilder()};
 * every setter validates eagerly.
 *
 * @param mode what a request does while its provider cools down
 * @param minRate the lowest rate, in requests per second, the adaptive rate drops to
 * @param maxRate the rate, in requests per second, at or above which pacing lets go
 * @param burst how many requests each lane may send back to back when it has been idle
 * @param freshShare the share of the rate kept for fresh requests (first attempts), from 0 (none) to below 1
 * @param decreaseFactor what a throttle multiplies the rate by, strictly between 0 and 1
 * @param growthScale the cubic growth's scale, in requests per second per second cubed, above 0
 */
public record PacingSettings(PacingMode mode, double minRate, double maxRate, int burst, double freshShare,
		double decreaseFactor, double growthScale) {

	/** Hold requests during a cooldown; 1 to 1,000 requests per second, bursts of 10, 10% for fresh requests. */
	public static final PacingSettings DEFAULTS = new PacingSettings(PacingMode.HOLD, 1.0, 1000.0, 10, 0.1, 0.7, 0.4);

	/** No pacing: the defaults with {@link PacingMode#OFF}. */
	public static final PacingSettings OFF = DEFAULTS.toBuilder().mode(PacingMode.OFF).build();

	/**
	 * Checks the arguments.
	 * @throws IllegalArgumentException naming the setting and the bad value
	 * @param mode what a request does while its provider cools down
	 * @param minRate the lowest rate, in requests per second, the adaptive rate drops to
	 * @param maxRate the rate, in requests per second, at or above which pacing lets go
	 * @param burst how many requests each lane may send back to back when it has been idle
	 * @param freshShare the share of the rate kept for fresh requests (first attempts), from 0 (none) to below 1
	 * @param decreaseFactor what a throttle multiplies the rate by, strictly between 0 and 1
	 * @param growthScale the cubic growth's scale, in requests per second per second cubed, above 0
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

		private Builder(PacingSettings from) {
			this.mode = from.mode;
			this.minRate = from.minRate;
			this.maxRate = from.maxRate;
			this.burst = from.burst;
			this.freshShare = from.freshShare;
			this.decreaseFactor = from.decreaseFactor;
			this.growthScale = from.growthScale;
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
		 * Builds the settings.
		 * @return the settings
		 * @throws IllegalArgumentException if the min rate is above the max rate
		 */
		public PacingSettings build() {
			return new PacingSettings(this.mode, this.minRate, this.maxRate, this.burst, this.freshShare,
					this.decreaseFactor, this.growthScale);
		}

		private static double positive(String name, double value) {
			if (!(value > 0) || Double.isInfinite(value)) {
				throw new IllegalArgumentException(name + " must be a positive finite number but was " + value);
			}
			return value;
		}

	}

}
