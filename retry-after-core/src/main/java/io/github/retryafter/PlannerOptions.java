package io.github.retryafter;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of a {@link io.github.retryafter.hint.RetryAfterPlanner}: the longest wait the caller accepts, how
 * jitter spreads clients above the server's floor, and what to do when an HTTP-date arrives without a {@code Date}.
 * Immutable and thread-safe; build with {@link #builder()}.
 * <p>
 * The spread is {@code clamp(floor × spreadRatio, minSpread, maxSpread)}; the jitter is drawn in {@code [0, spread)}.
 *
 * @param maxWait the longest floor the caller accepts; a longer one is refused with {@link RetryAfterError#TOO_LONG},
 * never clamped. Empty means no limit
 * @param jitter how to spread clients above the floor
 * @param spreadRatio the spread as a fraction of the floor
 * @param minSpread the narrowest spread
 * @param maxSpread the widest spread
 * @param onMissingDate what to do with an HTTP-date on a response without {@code Date}
 * @param fields which of a response's fields are read for the wait (default {@link HintFields#STANDARD})
 */
public record PlannerOptions(Optional<Duration> maxWait, JitterMode jitter, double spreadRatio, Duration minSpread,
		Duration maxSpread, OnMissingDate onMissingDate, HintFields fields) {

	/** The defaults: no max wait, random jitter, spread 25% of the floor within [250 ms, 30 s], refuse missing Date. */
	public static final PlannerOptions DEFAULTS = builder().build();

	/**
	 * Validates the options eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param maxWait the longest floor the caller accepts; a longer one is refused with {@link
	 * RetryAfterError#TOO_LONG}, never clamped. Empty means no limit
	 * @param jitter how to spread clients above the floor
	 * @param spreadRatio the spread as a fraction of the floor
	 * @param minSpread the narrowest spread
	 * @param maxSpread the widest spread
	 * @param onMissingDate what to do with an HTTP-date on a response without {@code Date}
	 * @param fields which of a response's fields are read for the wait
	 */
	public PlannerOptions {
		Objects.requireNonNull(fields, "fields");
		Objects.requireNonNull(maxWait, "maxWait");
		Objects.requireNonNull(jitter, "jitter");
		Objects.requireNonNull(minSpread, "minSpread");
		Objects.requireNonNull(maxSpread, "maxSpread");
		Objects.requireNonNull(onMissingDate, "onMissingDate");
		maxWait.ifPresent(value -> {
			if (value.isNegative()) {
				throw new IllegalArgumentException("maxWait must not be negative but was " + value);
			}
		});
		if (!(spreadRatio >= 0) || Double.isInfinite(spreadRatio)) {
			throw new IllegalArgumentException("spreadRatio must be a finite number >= 0 but was " + spreadRatio);
		}
		if (minSpread.isNegative()) {
			throw new IllegalArgumentException("minSpread must not be negative but was " + minSpread);
		}
		if (maxSpread.compareTo(minSpread) < 0) {
			throw new IllegalArgumentException(
					"maxSpread (" + maxSpread + ") must not be less than minSpread (" + minSpread + ")");
		}
	}

	/**
	 * Options that read the {@link HintFields#STANDARD standard} fields.
	 * @param maxWait the longest floor the caller accepts; empty means no limit
	 * @param jitter how to spread clients above the floor
	 * @param spreadRatio the spread as a fraction of the floor
	 * @param minSpread the narrowest spread
	 * @param maxSpread the widest spread
	 * @param onMissingDate what to do with an HTTP-date on a response without {@code Date}
	 */
	public PlannerOptions(Optional<Duration> maxWait, JitterMode jitter, double spreadRatio, Duration minSpread,
			Duration maxSpread, OnMissingDate onMissingDate) {
		this(maxWait, jitter, spreadRatio, minSpread, maxSpread, onMissingDate, HintFields.STANDARD);
	}

	/**
	 * Returns a builder starting from the defaults.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns a builder starting from these options.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.maxWait = this.maxWait.orElse(null);
		builder.jitter = this.jitter;
		builder.spreadRatio = this.spreadRatio;
		builder.minSpread = this.minSpread;
		builder.maxSpread = this.maxSpread;
		builder.onMissingDate = this.onMissingDate;
		builder.fields = this.fields;
		return builder;
	}

	/**
	 * Builds {@link PlannerOptions}. Not thread-safe.
	 */
	public static final class Builder {

		private Duration maxWait;

		private JitterMode jitter = JitterMode.RANDOM;

		private double spreadRatio = 0.25;

		private Duration minSpread = Duration.ofMillis(250);

		private Duration maxSpread = Duration.ofSeconds(30);

		private OnMissingDate onMissingDate = OnMissingDate.REFUSE;

		private HintFields fields = HintFields.STANDARD;

		private Builder() {
		}

		/**
		 * Sets the longest floor accepted; a longer one is refused, never clamped.
		 * @param maxWait the limit, or {@code null} for none
		 * @return this builder
		 */
		public Builder maxWait(Duration maxWait) {
			this.maxWait = maxWait;
			return this;
		}

		/**
		 * Sets the jitter mode.
		 * @param jitter the mode
		 * @return this builder
		 */
		public Builder jitter(JitterMode jitter) {
			this.jitter = jitter;
			return this;
		}

		/**
		 * Sets the spread as a fraction of the floor.
		 * @param spreadRatio a finite number {@code >= 0}
		 * @return this builder
		 */
		public Builder spreadRatio(double spreadRatio) {
			this.spreadRatio = spreadRatio;
			return this;
		}

		/**
		 * Sets the narrowest spread.
		 * @param minSpread a non-negative duration
		 * @return this builder
		 */
		public Builder minSpread(Duration minSpread) {
			this.minSpread = minSpread;
			return this;
		}

		/**
		 * Sets the widest spread.
		 * @param maxSpread a duration not less than the min spread
		 * @return this builder
		 */
		public Builder maxSpread(Duration maxSpread) {
			this.maxSpread = maxSpread;
			return this;
		}

		/**
		 * Sets what to do with an HTTP-date on a response without {@code Date}.
		 * @param onMissingDate the choice
		 * @return this builder
		 */
		public Builder onMissingDate(OnMissingDate onMissingDate) {
			this.onMissingDate = onMissingDate;
			return this;
		}

		/**
		 * Sets which of a response's fields are read: the wait fields ({@code Retry-After}, {@code retry-after-ms},
		 * {@code x-ms-retry-after-ms}), and, for the engine, the should-retry fields and the rate-limit windows.
		 * @param fields the field groups read
		 * @return this builder
		 */
		public Builder fields(HintFields fields) {
			this.fields = fields;
			return this;
		}

		/**
		 * Builds the options.
		 * @return the options
		 * @throws IllegalArgumentException naming the bad value
		 */
		public PlannerOptions build() {
			return new PlannerOptions(Optional.ofNullable(this.maxWait), this.jitter, this.spreadRatio, this.minSpread,
					this.maxSpread, this.onMissingDate, this.fields);
		}

	}

}
