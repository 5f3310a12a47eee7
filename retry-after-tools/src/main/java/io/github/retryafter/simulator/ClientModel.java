package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the simulated clients of a {@link Workload} behave, whatever their retry policy: each starts one operation at a
 * time drawn uniformly from {@code [0, startSpread)}, gives up at its {@code deadline} (measured from its start) or
 * after {@code maxAttempts} attempts, and reads a wall clock that is off by a skew drawn from {@code skew}. Every
 * message takes a one-way latency drawn uniformly from {@code [latencyMin, latencyMax]}.
 * <p>
 * Immutable and thread-safe.
 *
 * @param maxAttempts the attempt limit, the first attempt included (2 retries equal 3 attempts)
 * @param deadline the operation's deadline from its start
 * @param startSpread the window the clients' first attempts are spread over; zero for all at once
 * @param skew the distribution of the clients' wall-clock skew
 * @param latencyMin the shortest one-way latency
 * @param latencyMax the longest one-way latency
 */
public record ClientModel(int maxAttempts, Duration deadline, Duration startSpread, List<SkewBand> skew,
		Duration latencyMin, Duration latencyMax) {

	/**
	 * One band of a skew distribution: with probability proportional to {@code weight}, a client's wall clock is off
	 * by a skew drawn uniformly from {@code [min, max]} (positive: the client's clock is ahead of true time).
	 *
	 * @param weight the band's relative weight, positive
	 * @param min the smallest skew in the band
	 * @param max the largest skew in the band
	 */
	public record SkewBand(double weight, Duration min, Duration max) {

		/**
		 * Validates eagerly.
		 * @throws IllegalArgumentException when the weight is not positive or {@code max < min}
		 * @param weight the band's relative weight, positive
		 * @param min the smallest skew in the band
		 * @param max the largest skew in the band
		 */
		public SkewBand {
			Objects.requireNonNull(min, "min");
			Objects.requireNonNull(max, "max");
			if (!(weight > 0) || Double.isInfinite(weight)) {
				throw new IllegalArgumentException("skew band weight must be positive but was " + weight);
			}
			if (max.compareTo(min) < 0) {
				throw new IllegalArgumentException("skew band must satisfy min <= max but was [" + min + ", " + max + "]");
			}
		}

		/**
		 * Returns a band of skews up to {@code maxAbs} either way.
		 * @param weight the band's relative weight
		 * @param maxAbs the largest skew either way
		 * @return the band
		 */
		public static SkewBand within(double weight, Duration maxAbs) {
			return new SkewBand(weight, maxAbs.abs().negated(), maxAbs.abs());
		}

		/**
		 * Returns a band in which every clock is exactly {@code skew} out.
		 * @param skew the skew, positive for a clock ahead
		 * @return the band, of weight 1
		 */
		public static SkewBand exactly(Duration skew) {
			return new SkewBand(1, skew, skew);
		}

	}

	/**
	 * A fleet as a survey finds it: most clocks within half a second, a quarter within a minute, one in ten hours out
	 * (a VM resumed from a snapshot) and one in twenty days out (a container whose NTP client never came up).
	 */
	public static final List<SkewBand> SURVEYED_SKEW = List.of(SkewBand.within(60, Duration.ofMillis(500)),
			SkewBand.within(25, Duration.ofSeconds(60)), SkewBand.within(10, Duration.ofHours(2)),
			SkewBand.within(5, Duration.ofDays(3)));

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param maxAttempts the attempt limit, the first attempt included (2 retries equal 3 attempts)
	 * @param deadline the operation's deadline from its start
	 * @param startSpread the window the clients' first attempts are spread over; zero for all at once
	 * @param skew the distribution of the clients' wall-clock skew
	 * @param latencyMin the shortest one-way latency
	 * @param latencyMax the longest one-way latency
	 */
	public ClientModel {
		Objects.requireNonNull(deadline, "deadline");
		Objects.requireNonNull(startSpread, "startSpread");
		Objects.requireNonNull(latencyMin, "latencyMin");
		Objects.requireNonNull(latencyMax, "latencyMax");
		skew = List.copyOf(skew);
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1 but was " + maxAttempts);
		}
		if (deadline.isNegative() || deadline.isZero()) {
			throw new IllegalArgumentException("deadline must be positive but was " + deadline);
		}
		if (startSpread.isNegative()) {
			throw new IllegalArgumentException("startSpread must not be negative but was " + startSpread);
		}
		if (skew.isEmpty()) {
			throw new IllegalArgumentException("skew needs at least one band");
		}
		if (latencyMin.isNegative() || latencyMax.compareTo(latencyMin) < 0) {
			throw new IllegalArgumentException(
					"latency must satisfy 0 <= min <= max but was [" + latencyMin + ", " + latencyMax + "]");
		}
	}

	/**
	 * Returns the clients both default workloads use: 8 attempts, a 30 s deadline, the {@link #SURVEYED_SKEW} and a
	 * one-way latency of 1 to 5 ms, all starting at once.
	 * @return the model
	 */
	public static ClientModel defaults() {
		return new ClientModel(8, Duration.ofSeconds(30), Duration.ZERO, SURVEYED_SKEW, Duration.ofMillis(1),
				Duration.ofMillis(5));
	}

	/**
	 * Returns a copy whose clients start within {@code spread}.
	 * @param spread the start window
	 * @return a new model
	 */
	public ClientModel withStartSpread(Duration spread) {
		return new ClientModel(this.maxAttempts, this.deadline, spread, this.skew, this.latencyMin, this.latencyMax);
	}

	/**
	 * Returns a copy with another skew distribution.
	 * @param bands the bands
	 * @return a new model
	 */
	public ClientModel withSkew(List<SkewBand> bands) {
		return new ClientModel(this.maxAttempts, this.deadline, this.startSpread, bands, this.latencyMin,
				this.latencyMax);
	}

}
