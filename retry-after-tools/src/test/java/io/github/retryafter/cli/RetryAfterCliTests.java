package io.github.retryafter.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterCliTests {

	/** 2026-09-08T12:00:00Z in epoch milliseconds. */
	private static final long SERVER_NOW = Instant.parse("2026-09-08T12:00:00Z").toEpochMilli();

	private static final String CURL = "HTTP/1.1 429 Too Many Requests\r\n" + "Date: Tue, 08 Sep 2026 12:00:00 GMT\r\n"
			+ "Retry-After: Tue, 08 Sep 2026 12:00:30 GMT\r\n" + "Content-Length: 0\r\n" + "\r\n";

	private final ByteArrayOutputStream out = new ByteArrayOutputStream();

	private final ByteArrayOutputStream err = new ByteArrayOutputStream();

	private int run(String stdin, String... args) {
		return RetryAfterCli.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
				new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8));
	}

	private String out() {
		return this.out.toString(StandardCharsets.UTF_8);
	}

	private String err() {
		return this.err.toString(StandardCharsets.UTF_8);
	}

	@Test
	void explainsAnHttpDateSkewFreeOnOneLine() {
		int exit = run(CURL, "explain", "--now", Long.toString(SERVER_NOW + 41_204), "--jitter", "none");
		assertThat(exit).isEqualTo(0);
		assertThat(out()).isEqualTo("{\"waitMs\":30000,\"floorMs\":30000,\"jitterMs\":0,\"spreadMs\":7500,"
				+ "\"source\":\"http-date\",\"instructedMs\":30000,\"ageMs\":0,\"skewMs\":-41204,"
				+ "\"clampedToZero\":false}" + System.lineSeparator());
		assertThat(err()).isEmpty();
	}

	@Test
	void explainsDelaySecondsWithNullSkewWithoutDate() {
		int exit = run("HTTP/2 503\nretry-after: 120\nage: 20\n", "explain", "--jitter", "none");
		assertThat(exit).isEqualTo(0);
		assertThat(out().strip()).isEqualTo("{\"waitMs\":100000,\"floorMs\":100000,\"jitterMs\":0,\"spreadMs\":25000,"
				+ "\"source\":\"delay-seconds\",\"instructedMs\":120000,\"ageMs\":20000,\"skewMs\":null,"
				+ "\"clampedToZero\":false}");
	}

	@Test
	void theRoundTripCountsInTheAge() {
		run("Retry-After: 1\n", "explain", "--jitter", "none", "--round-trip", "1500");
		assertThat(out()).contains("\"floorMs\":0,").contains("\"ageMs\":1500,").contains("\"clampedToZero\":true");
	}

	@Test
	void seededRandomJitterIsReproducibleAndAboveTheFloor() {
		run(CURL, "explain", "--now", Long.toString(SERVER_NOW), "--seed", "7");
		String first = out();
		this.out.reset();
		run(CURL, "explain", "--now", Long.toString(SERVER_NOW), "--seed", "7");
		assertThat(out()).isEqualTo(first);
		assertThat(first).contains("\"floorMs\":30000,").contains("\"spreadMs\":7500,");
		long jitter = Long.parseLong(first.replaceAll(".*\"jitterMs\":(\\d+),.*\\s*", "$1"));
		assertThat(jitter).isBetween(0L, 7_499L);
		assertThat(first).contains("\"waitMs\":" + (30_000 + jitter) + ",");
	}

	@Test
	void keyedJitterDependsOnKeyAndAttempt() {
		run("Retry-After: 30\n", "explain", "--jitter", "keyed", "--key", "instance-7", "--attempt", "2");
		String first = out();
		this.out.reset();
		run("Retry-After: 30\n", "explain", "--jitter=keyed", "--key=instance-7", "--attempt=2");
		assertThat(out()).isEqualTo(first);
		this.out.reset();
		run("Retry-After: 30\n", "explain", "--jitter", "keyed", "--key", "instance-7", "--attempt", "3");
		assertThat(out()).isNotEqualTo(first);
	}

	@Test
	void noRetryAfterPrintsANullPlanAndExitsThree() {
		assertThat(run("HTTP/1.1 200 OK\r\nDate: Tue, 08 Sep 2026 12:00:00 GMT\r\n\r\n", "explain")).isEqualTo(3);
		assertThat(out()).isEqualTo("{\"plan\":null}" + System.lineSeparator());
		this.out.reset();
		assertThat(run("", "explain")).isEqualTo(3);
	}

	@Test
	void aRefusalIsJsonOnStdoutWithExitTwo() {
		int exit = run("Date: Tue, 08 Sep 2026 12:00:00 GMT\nRetry-After: Tue, 08 Sep 2026 12:00:30 UTC\n", "explain");
		assertThat(exit).isEqualTo(2);
		assertThat(out()).startsWith("{\"error\":\"NON_GMT_ZONE\",\"message\":\"Retry-After \\\"Tue, 08 Sep 2026 12:00:30 UTC\\\"")
			.endsWith("\"}" + System.lineSeparator());
		assertThat(out().strip()).doesNotContain("\n");
		assertThat(err()).isEmpty();
	}

	@Test
	void missingDateIsRefusedUnlessTheClientClockIsTrusted() {
		String noDate = "Retry-After: Tue, 08 Sep 2026 12:00:30 GMT\n";
		assertThat(run(noDate, "explain", "--now", Long.toString(SERVER_NOW))).isEqualTo(2);
		assertThat(out()).contains("\"error\":\"MISSING_DATE_HEADER\"");
		this.out.reset();
		assertThat(run(noDate, "explain", "--now", Long.toString(SERVER_NOW + 10_000), "--jitter", "none",
				"--on-missing-date", "trust-client-clock"))
			.isEqualTo(0);
		assertThat(out()).contains("\"floorMs\":20000,").contains("\"source\":\"http-date-client-clock\"")
			.contains("\"skewMs\":null");
	}

	@Test
	void maxWaitRefusesWithTheNumbers() {
		assertThat(run("Retry-After: 7200\n", "explain", "--max-wait", "300000")).isEqualTo(2);
		assertThat(out()).contains("\"error\":\"TOO_LONG\"").contains("7200000 ms").contains("300000 ms");
	}

	@Test
	void theLastOfSeveralResponsesIsRead() {
		String curlIL = "HTTP/1.1 100 Continue\r\n\r\n" + "HTTP/1.1 302 Found\r\nLocation: /next\r\nRetry-After: 5\r\n\r\n"
				+ "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 9\r\n\r\n";
		run(curlIL, "explain", "--jitter", "none");
		assertThat(out()).contains("\"floorMs\":9000,");
		this.out.reset();
		assertThat(run("HTTP/1.1 302 Found\r\nRetry-After: 5\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", "explain")).isEqualTo(3);
	}

	@Test
	void theSystemClockIsTheDefaultWallClock() {
		int exit = RetryAfterCli.explain(new String[] { "--jitter", "none" },
				new ByteArrayInputStream(CURL.getBytes(StandardCharsets.UTF_8)),
				new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8),
				InstantSource.fixed(Instant.ofEpochMilli(SERVER_NOW - 40_000)));
		assertThat(exit).isEqualTo(0);
		assertThat(out()).contains("\"floorMs\":30000,").contains("\"skewMs\":40000,");
	}

	@Test
	void helpGoesToStdoutAndDocumentsEveryOption() {
		assertThat(run("", "explain", "--help")).isEqualTo(0);
		assertThat(out()).contains("--now EPOCH_MS", "--max-wait MS", "--jitter MODE", "--key K", "--attempt N",
				"--seed S", "--round-trip MS", "--on-missing-date", "exit 0", "exit 2", "exit 3", "64");
		this.out.reset();
		assertThat(run("", "--help")).isEqualTo(0);
		assertThat(out()).contains("explain");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "frobnicate", "explain --bogus 1", "explain --bogus", "explain --now",
			"explain --now soon", "explain --jitter keyed", "explain --jitter sometimes", "explain --attempt 0",
			"explain --max-wait -1", "explain --on-missing-date guess", "explain --round-trip x",
			"explain --round-trip 99999999999999" })
	void usageErrorsPrintHelpOnStderrAndExitSixtyFour(String commandLine) {
		String[] args = commandLine.isEmpty() ? new String[0] : commandLine.split(" ");
		assertThat(run("Retry-After: 1\n", args)).isEqualTo(64);
		assertThat(out()).isEmpty();
		assertThat(err()).startsWith("retry-after: ").contains("Usage:");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			explain --bogus 1                       | unknown option "--bogus"
			explain --bogus=1                       | unknown option "--bogus"
			explain --now                           | --now needs a value
			explain --now soon                      | --now needs a whole number, not "soon"
			explain --max-wait=-1                   | --max-wait must be at least 0, not -1
			explain --jitter sometimes              | --jitter must be none, random or keyed, not "sometimes"
			explain --jitter NONE                   | --jitter must be none, random or keyed, not "NONE"
			explain --on-missing-date guess         | --on-missing-date must be refuse or trust-client-clock, not "guess"
			explain --attempt 2147483648            | --attempt is too large: 2147483648
			explain --jitter keyed                  | --jitter keyed needs --key K, the client's identity
			explain --help --bogus                  | unknown option "--bogus"
			explain --help --jitter keyed           | --jitter keyed needs --key K, the client's identity
			explain --round-trip 99999999999999     | --round-trip is too large: 99999999999999
			simulate --workload storm               | --workload must be episodes, shared, outage-rate-limit, announced-quota, openai or sliding-window, not "storm"
			simulate --workload Shared              | --workload must be episodes, shared, outage-rate-limit, announced-quota, openai or sliding-window, not "Shared"
			simulate --clients=0                    | --clients must be at least 1, not 0
			simulate --clients 1000001              | --clients must be at most 1000000, not 1000001
			simulate --seed                         | --seed needs a value
			simulate --verbose 1                    | unknown option "--verbose"
			simulate -x=1                           | unknown option "-x=1"
			""")
	void usageErrorsSayWhatWasWrong(String commandLine, String problem) {
		assertThat(run("Retry-After: 1\n", commandLine.split(" "))).isEqualTo(64);
		assertThat(err()).startsWith("retry-after: " + problem + System.lineSeparator());
	}

	@Test
	void simulateHelpStopsTheParseWhileExplainHelpChecksTheRest() {
		assertThat(run("", "simulate", "--help", "--bogus")).isEqualTo(0);
		assertThat(out()).startsWith("Usage: java -jar retry-after-tools-cli.jar simulate");
		this.out.reset();
		assertThat(run("", "explain", "--jitter=none", "--help", "--seed", "3")).isEqualTo(0);
		assertThat(out()).startsWith("Usage: java -jar retry-after-tools-cli.jar explain");
	}

	@Test
	void jsonStringsAreEscaped() {
		assertThat(RetryAfterCli.quote("a\"b\\c\n\t\u0001\u2028é")).isEqualTo("\"a\\\"b\\\\c\\n\\t\\u0001\\u2028é\"");
	}

	@Test
	void simulatePrintsTheTableAndTheHistogramTheSameWayEveryTime() {
		int exit = run("", "simulate", "--workload", "shared", "--clients", "50", "--seed", "7");
		assertThat(exit).isEqualTo(0);
		String first = out();
		assertThat(first).contains("### Workload `shared`, seed 7")
			.contains("| policy | success | herd (10 ms) | amplification | early retries | p50 to success | p99 to success |")
			.contains("| FLOOR_PLUS_JITTER random (default) | 100.0% |")
			.contains("busiest 10 ms:");
		this.out.reset();
		assertThat(run("", "simulate", "--workload=shared", "--clients=50", "--seed=7")).isEqualTo(0);
		assertThat(out()).isEqualTo(first);
		assertThat(err()).isEmpty();
	}

	@Test
	void simulateRunsTheEpisodesByDefault() {
		assertThat(run("", "simulate", "--clients", "20")).isEqualTo(0);
		assertThat(out()).startsWith("### Workload `episodes`, seed 1");
	}

	@Test
	void simulateRunsTheOutageThenRateLimitWorkloadWithThePacedPolicy() {
		assertThat(run("", "simulate", "--workload", "outage-rate-limit", "--clients", "200")).isEqualTo(0);
		assertThat(out()).startsWith("### Workload `outage-rate-limit`, seed 1")
			.contains("| FLOOR_PLUS_JITTER + pacing (starter) | 100.0% |");
	}

	@Test
	void simulateRunsTheAnnouncedQuotaWorkloadAndReportsRefusalsAfterTheFirstWindow() {
		assertThat(run("", "simulate", "--workload", "announced-quota", "--clients", "600")).isEqualTo(0);
		assertThat(out()).startsWith("### Workload `announced-quota`, seed 1")
			.contains("announced in RateLimit fields")
			.contains("Requests refused after the first second (the quota's first window):")
			.contains("FLOOR_PLUS_JITTER + pacing (starter) 0.00% (0 of ");
	}

	@Test
	void simulateHelpGoesToStandardOutput() {
		assertThat(run("", "simulate", "--help")).isEqualTo(0);
		assertThat(out()).startsWith("Usage: java -jar retry-after-tools-cli.jar simulate");
		assertThat(err()).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "--workload=storm", "--clients=0", "--clients=x", "--seed", "--verbose" })
	void simulateUsageErrorsExit64WithHelpOnStandardError(String argument) {
		assertThat(run("", "simulate", argument)).isEqualTo(64);
		assertThat(out()).isEmpty();
		assertThat(err()).startsWith("retry-after: ").contains("Usage: java -jar retry-after-tools-cli.jar simulate");
	}

}
