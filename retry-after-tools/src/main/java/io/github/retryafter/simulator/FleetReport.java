package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The result of a {@link FleetSimulation} run: one {@link PolicyResult} per policy, rendered as a markdown table and a
 * text histogram of retries reaching the provider. Immutable and thread-safe.
 *
 * @param workload the workload that ran
 * @param seed the seed it ran with
 * @param results one result per policy, in the order they ran
 */
public record FleetReport(Workload workload, long seed, List<PolicyResult> results) {

	/** The width of one histogram column. */
	public static final Duration BUCKET = Duration.ofMillis(500);

	private static final String LEVELS = " ▁▂▃▄▅▆▇█";

	/**
	 * Checks the arguments and copies the results.
	 * @param workload the workload that ran
	 * @param seed the seed it ran with
	 * @param results one result per policy, in the order they ran
	 */
	public FleetReport {
		Objects.requireNonNull(workload, "workload");
		results = List.copyOf(results);
	}

	/**
	 * Returns the result of one policy.
	 * @param policy the policy
	 * @return its result
	 * @throws IllegalArgumentException when the policy did not run
	 */
	public PolicyResult result(FleetPolicy policy) {
		return this.results.stream()
			.filter(result -> result.policy() == policy)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(policy + " did not run"));
	}

	/**
	 * Returns the heading, the workload's description, the markdown table and the histogram.
	 * @return the text, lines separated by {@code \n}
	 */
	public String render() {
		return "### Workload `" + this.workload.name() + "`, seed " + this.seed + "\n\n" + this.workload.describe()
				+ ".\n\n" + table() + "\n" + histogram();
	}

	/**
	 * Returns the markdown table: one row per policy.
	 * @return the table, lines separated by {@code \n}
	 */
	public String table() {
		StringBuilder out = new StringBuilder();
		out.append("| policy | success | herd (10 ms) | amplification | early retries | p50 to success | p99 to success |\n");
		out.append("|---|---:|---:|---:|---:|---:|---:|\n");
		for (PolicyResult r : this.results) {
			out.append("| ")
				.append(r.policy().label())
				.append(" | ")
				.append(format("%.1f%%", r.successRate() * 100))
				.append(" | ")
				.append((r.retries() == 0) ? "–" : format("%.2f%%", r.herd() * 100))
				.append(" | ")
				.append(format("%.2f", r.amplification()))
				.append(" | ")
				.append(r.earlyRetries())
				.append(" | ")
				.append(r.p50ToSuccess().map(FleetReport::seconds).orElse("–"))
				.append(" | ")
				.append(r.p99ToSuccess().map(FleetReport::seconds).orElse("–"))
				.append(" |\n");
		}
		if (this.workload.provider().rateLimit().filter(ProviderModel.RateLimit::announced).isPresent()) {
			out.append("\nRequests refused after the first second (the quota's first window):");
			for (PolicyResult r : this.results) {
				out.append(format(" %s %.2f%% (%d of %d);", r.policy().label(), r.lateRefusedShare() * 100,
						r.lateRefusals(), r.lateAttempts()));
			}
			out.setLength(out.length() - 1);
			out.append(".\n");
		}
		return out.toString();
	}

	/**
	 * Returns the histogram: per policy, one character per {@link #BUCKET}, its height the most retries that reached the
	 * provider in one 10 ms slice of that column, relative to the tallest column of any policy (so a herd stands out
	 * where a count per column would hide it); then the policy's retries and its busiest 10 ms window.
	 * @return the histogram, lines separated by {@code \n}
	 */
	public String histogram() {
		long max = this.results.stream().flatMap(r -> r.histogram().stream()).mapToLong(Long::longValue).max().orElse(0);
		int width = this.results.stream().mapToInt(r -> r.policy().label().length()).max().orElse(0);
		int columns = this.results.isEmpty() ? 0 : this.results.get(0).histogram().size();
		StringBuilder out = new StringBuilder();
		out.append("Retries reaching the provider from 0 to ")
			.append(columns * BUCKET.toMillis() / 1000)
			.append(" s, one column per ")
			.append(BUCKET.toMillis())
			.append(" ms; height: the most retries in one 10 ms slice of the column (full height: ")
			.append(max)
			.append("):\n\n```\n");
		for (PolicyResult r : this.results) {
			out.append(r.policy().label());
			out.append(" ".repeat(width - r.policy().label().length())).append(" |");
			for (long count : r.histogram()) {
				int level = (count == 0) ? 0 : (int) Math.max(1, Math.ceil(8.0 * count / max));
				out.append(LEVELS.charAt(level));
			}
			out.append("| ");
			if (r.retries() == 0) {
				out.append("no retries");
			}
			else {
				out.append(format("%d retries; busiest 10 ms: %d (%.2f%%) at %.3f s", r.retries(), r.herdRetries(),
						r.herd() * 100, r.herdAt().toNanos() / 1e9));
			}
			out.append('\n');
		}
		return out.append("```\n").toString();
	}

	private static String seconds(Duration duration) {
		return format("%.2f s", duration.toNanos() / 1e9);
	}

	private static String format(String pattern, Object... args) {
		return String.format(Locale.ROOT, pattern, args);
	}

}
