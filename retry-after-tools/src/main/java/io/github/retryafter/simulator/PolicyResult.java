package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one policy did on one workload of a {@link FleetSimulation}. Immutable and thread-safe.
 *
 * @param policy the policy
 * @param operations how many operations ran (one per client)
 * @param successes how many ended with a {@code 200}
 * @param attempts how many requests reached the provider, first attempts included
 * @param retries how many of them were retries
 * @param earlyRetries how many retries reached the provider before the instant it had instructed that client to wait
 * for, measured on the provider's own time line
 * @param herdRetries the largest number of retries that reached the provider within one 10 ms window
 * @param herdAt when that window opened, from the workload's start
 * @param p50ToSuccess the median time from an operation's start to its success
 * @param p99ToSuccess the 99th percentile of the same
 * @param histogram per {@link FleetReport#BUCKET} from the workload's start, the most retries that reached the provider
 * in one 10 ms slice of it (slices aligned on the start); the last column also covers every later slice
 * @param lateAttempts how many requests reached the provider after {@link #FIRST_WINDOW}
 * @param lateRefusals how many of those it refused ({@code 429} or {@code 503})
 * @param lastSuccess the time from the workload's start until the last operation succeeded (a backlog's drain time)
 */
public record PolicyResult(FleetPolicy policy, int operations, int successes, long attempts, long retries,
		long earlyRetries, long herdRetries, Duration herdAt, Optional<Duration> p50ToSuccess,
		Optional<Duration> p99ToSuccess, List<Long> histogram, long lateAttempts, long lateRefusals,
		Optional<Duration> lastSuccess) {

	/** The window the herd is measured in. */
	public static final Duration HERD_WINDOW = Duration.ofMillis(10);

	/**
	 * The first second of the workload, when nobody can know the provider's quota yet (an announced quota's window is
	 * a second in the simulator): refusals after it are counted on their own.
	 */
	public static final Duration FIRST_WINDOW = Duration.ofSeconds(1);

	/**
	 * Checks the arguments and copies the histogram.
	 * @param policy the policy
	 * @param operations how many operations ran (one per client)
	 * @param successes how many ended with a {@code 200}
	 * @param attempts how many requests reached the provider, first attempts included
	 * @param retries how many of them were retries
	 * @param earlyRetries how many retries reached the provider before the instant it had instructed that client to
	 * wait for, measured on the provider's own time line
	 * @param herdRetries the largest number of retries that reached the provider within one 10 ms window
	 * @param herdAt when that window opened, from the workload's start
	 * @param p50ToSuccess the median time from an operation's start to its success
	 * @param p99ToSuccess the 99th percentile of the same
	 * @param histogram per {@link FleetReport#BUCKET} from the workload's start, the most retries that reached the
	 * provider in one 10 ms slice of it (slices aligned on the start); the last column also covers every later slice
	 * @param lateAttempts how many requests reached the provider after {@link #FIRST_WINDOW}
	 * @param lateRefusals how many of those it refused ({@code 429} or {@code 503})
	 * @param lastSuccess the time from the workload's start until the last operation succeeded (a backlog's drain
	 * time)
	 */
	public PolicyResult {
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(herdAt, "herdAt");
		Objects.requireNonNull(p50ToSuccess, "p50ToSuccess");
		Objects.requireNonNull(p99ToSuccess, "p99ToSuccess");
		Objects.requireNonNull(lastSuccess, "lastSuccess");
		histogram = List.copyOf(histogram);
	}

	/**
	 * Returns the share of operations that succeeded.
	 * @return a number in {@code [0, 1]}
	 */
	public double successRate() {
		return (double) this.successes / this.operations;
	}

	/**
	 * Returns the largest share of all retries that reached the provider in one 10 ms window.
	 * @return a number in {@code [0, 1]}; 0 without retries
	 */
	public double herd() {
		return (this.retries == 0) ? 0 : (double) this.herdRetries / this.retries;
	}

	/**
	 * Returns the share of the requests reaching the provider after {@link #FIRST_WINDOW} that it refused.
	 * @return a number in {@code [0, 1]}; 0 without such requests
	 */
	public double lateRefusedShare() {
		return (this.lateAttempts == 0) ? 0 : (double) this.lateRefusals / this.lateAttempts;
	}

	/**
	 * Returns the retry amplification: attempts per operation.
	 * @return at least 1
	 */
	public double amplification() {
		return (double) this.attempts / this.operations;
	}

}
