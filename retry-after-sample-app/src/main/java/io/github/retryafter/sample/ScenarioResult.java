package io.github.retryafter.sample;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What one scenario run produced: what the client side saw (each operation's outcome and attempts) and what the
 * simulated provider recorded (every arrival), with the numbers derived from them. Immutable.
 *
 * @param scenario the scenario that ran
 * @param hintMode the hint mode of the scenario's retry-after provider
 * @param operations the outcome of each logical operation, as the client side reported it
 * @param arrivals every request the provider received, in time order
 * @param durationMillis how long the run took, from the first request to the last operation's end
 */
public record ScenarioResult(Scenario scenario, String hintMode, List<OperationResult> operations,
		List<Arrival> arrivals, long durationMillis) {

	/** Width of the window the herd is measured over and of the chart's bins. */
	public static final int BIN_MILLIS = 10;

	/**
	 * Copies the lists.
	 */
	public ScenarioResult {
		Objects.requireNonNull(scenario, "scenario");
		Objects.requireNonNull(hintMode, "hintMode");
		operations = List.copyOf(operations);
		arrivals = List.copyOf(arrivals);
	}

	/**
	 * Returns the HTTP attempts the client side counted over all operations.
	 * @return the attempts
	 */
	public int attempts() {
		return this.operations.stream().mapToInt(OperationResult::attempts).sum();
	}

	/**
	 * Returns the first attempts that arrived at the provider.
	 * @return the count
	 */
	public int firstArrivals() {
		return (int) this.arrivals.stream().filter((arrival) -> !arrival.isRetry()).count();
	}

	/**
	 * Returns the retries that arrived at the provider.
	 * @return the count
	 */
	public int retryArrivals() {
		return (int) this.arrivals.stream().filter(Arrival::isRetry).count();
	}

	/**
	 * Returns how long the burst took to arrive: from the first to the last first attempt. Retries in
	 * {@code exact} mode keep this shape, shifted by the server's floor.
	 * @return the spread in milliseconds; zero without arrivals
	 */
	public long burstMillis() {
		long[] times = this.arrivals.stream().filter((arrival) -> !arrival.isRetry()).mapToLong(Arrival::atMillis)
			.toArray();
		return (times.length == 0) ? 0 : java.util.Arrays.stream(times).max().getAsLong()
				- java.util.Arrays.stream(times).min().getAsLong();
	}

	/**
	 * Returns attempts per logical operation.
	 * @return the amplification; zero without operations
	 */
	public double amplification() {
		return this.operations.isEmpty() ? 0 : (double) attempts() / this.operations.size();
	}

	/**
	 * Returns how many operations ended with each outcome, by outcome name.
	 * @return the counts, sorted by name
	 */
	public Map<String, Long> outcomes() {
		return Collections.unmodifiableMap(this.operations.stream()
			.collect(Collectors.groupingBy(OperationResult::outcome, TreeMap::new, Collectors.counting())));
	}

	/**
	 * Returns the herd: the largest number of retries that arrived within any {@value #BIN_MILLIS} ms window (a sliding
	 * window, so a herd straddling two chart bins is still counted whole).
	 * @return the window and its count
	 */
	public Herd herd() {
		long[] times = this.arrivals.stream().filter(Arrival::isRetry).mapToLong(Arrival::atMillis).sorted().toArray();
		int best = 0;
		long bestStart = 0;
		int from = 0;
		for (int to = 0; to < times.length; to++) {
			while (times[to] - times[from] >= BIN_MILLIS) {
				from++;
			}
			if (to - from + 1 > best) {
				best = to - from + 1;
				bestStart = times[from];
			}
		}
		return new Herd(best, times.length, bestStart);
	}

	/**
	 * Returns the arrivals counted in {@value #BIN_MILLIS} ms bins from the scenario's start: index 0 counts first
	 * attempts, index 1 retries.
	 * @return two arrays of equal length, at least one bin long
	 */
	public int[][] bins() {
		long last = this.arrivals.stream().mapToLong(Arrival::atMillis).max().orElse(0);
		int count = (int) (last / BIN_MILLIS) + 1;
		int[][] bins = new int[2][count];
		for (Arrival arrival : this.arrivals) {
			bins[arrival.isRetry() ? 1 : 0][(int) (arrival.atMillis() / BIN_MILLIS)]++;
		}
		return bins;
	}

	/**
	 * Returns the short summary table printed by the runner and returned by {@code POST /scenarios/{name}}.
	 * @return the table, one row per line
	 */
	public String table() {
		Herd herd = herd();
		StringBuilder table = new StringBuilder();
		row(table, "scenario", this.scenario.name() + " (" + this.scenario.client().displayName() + ", provider "
				+ this.scenario.provider() + ", hint-mode " + this.hintMode + ")");
		row(table, "operations", Integer.toString(this.operations.size()));
		row(table, "attempts", attempts() + " (provider saw " + this.arrivals.size() + ": " + firstArrivals()
				+ " first, " + retryArrivals() + " retries)");
		row(table, "amplification", String.format(Locale.ROOT, "%.2f", amplification()));
		row(table, "outcomes", this.outcomes()
			.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.collect(Collectors.joining(" ")));
		row(table, "herd", herd.describe());
		row(table, "burst", "first attempts arrived within " + burstMillis() + " ms");
		row(table, "duration", this.durationMillis + " ms");
		return table.toString();
	}

	private static void row(StringBuilder table, String name, String value) {
		table.append(String.format(Locale.ROOT, "%-14s %s%n", name, value));
	}

	/**
	 * The JSON view of a run, without the arrivals.
	 * @return the summary
	 */
	public Summary summary() {
		Herd herd = herd();
		return new Summary(this.scenario.name(), this.scenario.provider(), this.hintMode,
				this.scenario.client().displayName(), this.operations.size(), attempts(), this.arrivals.size(),
				firstArrivals(), retryArrivals(), amplification(), outcomes(), herd.retries(), herd.share(),
				herd.atMillis(), this.durationMillis);
	}

	/**
	 * How one logical operation ended, as the client side's outcome listener reported it.
	 *
	 * @param operationId the operation's {@code Idempotency-Key}
	 * @param outcome the outcome's name ({@code SUCCESS}, {@code BUDGET_EXHAUSTED}...), or {@code ERROR} when the
	 * client failed without an outcome
	 * @param attempts the HTTP attempts sent
	 */
	public record OperationResult(String operationId, String outcome, int attempts) {
	}

	/**
	 * The largest number of retries within one {@value #BIN_MILLIS} ms window.
	 *
	 * @param retries the retries in that window
	 * @param of all retries
	 * @param atMillis where the window starts, in ms since the scenario's start
	 */
	public record Herd(int retries, int of, long atMillis) {

		/**
		 * Returns the window's share of all retries.
		 * @return a fraction from 0 to 1; zero without retries
		 */
		public double share() {
			return (this.of == 0) ? 0 : (double) this.retries / this.of;
		}

		String describe() {
			if (this.of == 0) {
				return "no retries";
			}
			return String.format(Locale.ROOT, "%.1f%% of retries (%d of %d) in one %d ms window, at %d ms", share() * 100,
					this.retries, this.of, BIN_MILLIS, this.atMillis);
		}

	}

	/**
	 * A scenario run's numbers, as returned in JSON.
	 *
	 * @param scenario the scenario's name
	 * @param provider the retry-after provider
	 * @param hintMode its hint mode
	 * @param client the client used
	 * @param operations logical operations
	 * @param attempts HTTP attempts the client side counted
	 * @param providerArrivals requests the provider recorded
	 * @param firstAttempts first attempts the provider recorded
	 * @param retries retries the provider recorded
	 * @param amplification attempts per operation
	 * @param outcomes operations by outcome
	 * @param herdRetries retries in the busiest 10 ms window
	 * @param herdShare their share of all retries
	 * @param herdAtMillis where that window starts
	 * @param durationMillis how long the run took
	 */
	public record Summary(String scenario, String provider, String hintMode, String client, int operations,
			int attempts, int providerArrivals, int firstAttempts, int retries, double amplification,
			Map<String, Long> outcomes, int herdRetries, double herdShare, long herdAtMillis, long durationMillis) {
	}

}
