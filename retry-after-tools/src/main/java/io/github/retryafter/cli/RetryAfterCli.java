package io.github.retryafter.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.JitterMode;
import io.github.retryafter.OnMissingDate;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.simulator.FleetReport;
import io.github.retryafter.simulator.FleetSimulation;
import io.github.retryafter.simulator.Workload;

/**
 * The command line of {@code retry-after-tools}' executable jar (classifier {@code cli}). {@code explain} reads
 * response header lines from standard input (as {@code curl -sI} prints them) and prints, as one line of JSON on
 * standard output, the plan the library would make, why it refused, or that the response carried no instruction. {@code simulate} runs the
 * deterministic {@link FleetSimulation} and prints its markdown table and histogram.
 * <p>
 * Exit codes: {@code 0} a plan (or a simulation printed), {@code 3} no {@code Retry-After}, {@code 2} a refusal, {@code 64} a usage error (help on
 * standard error). {@link #run} holds all the logic so tests drive it without a process. Stateless and thread-safe.
 */
public final class RetryAfterCli {

	/** A plan was printed. */
	public static final int EXIT_PLAN = 0;

	/** The header block was refused; the JSON names the error code. */
	public static final int EXIT_REFUSED = 2;

	/** The response had no {@code Retry-After}: the server gave no instruction. */
	public static final int EXIT_NO_INSTRUCTION = 3;

	/** The command line was wrong (sysexits' {@code EX_USAGE}). */
	public static final int EXIT_USAGE = 64;

	static final String USAGE = """
			Usage: java -jar retry-after-tools-cli.jar explain [options] < headers.txt

			Reads raw HTTP response header lines from standard input, exactly as `curl -sI URL` prints them
			(a status line and CRLF line endings are fine; when several responses are present, as with
			`curl -sIL` or a `100 Continue`, the last one is read), and prints on one line of standard output:

			  {"waitMs":…,"floorMs":…,"jitterMs":…,"spreadMs":…,"source":"http-date","instructedMs":…,
			   "ageMs":…,"skewMs":…,"clampedToZero":false}        exit 0: the plan
			  {"plan":null}                                       exit 3: no Retry-After, no instruction
			  {"error":"NON_GMT_ZONE","message":"…"}              exit 2: the header was refused

			source is delay-seconds, http-date or http-date-client-clock; skewMs (server Date minus the
			client's wall clock) is null without a usable Date. A usage error prints this help on standard
			error and exits 64.

			Options:
			  --now EPOCH_MS          the client's wall clock when the response arrived (default: now)
			  --max-wait MS           refuse (TOO_LONG) a floor longer than this; jitter is trimmed to it
			                          (default: no limit)
			  --jitter MODE           none | random | keyed (default: random)
			  --key K                 the client's identity for --jitter keyed (required by it)
			  --attempt N             the attempt the response answered, from 1 (default: 1)
			  --seed S                make --jitter random reproducible (within one build)
			  --round-trip MS         the measured request-to-response time, added to the response's age
			                          (default: not counted)
			  --on-missing-date WHAT  refuse | trust-client-clock, for an HTTP-date without Date
			                          (default: refuse)
			  --help                  print this help

			Example:
			  curl -sI https://example.com/busy | java -jar retry-after-tools-cli.jar explain --jitter none
			""";

	static final String SIMULATE_USAGE = """
			Usage: java -jar retry-after-tools-cli.jar simulate
			           [--workload episodes|shared|outage-rate-limit|announced-quota|openai|sliding-window]
			           [--clients N] [--seed S]

			Runs the deterministic fleet simulation (virtual time, no threads, no network) and prints a markdown
			table comparing every retry policy, then a text histogram of retries reaching the provider per
			policy. The same options always print the same output.

			Options:
			  --workload W   episodes: independent episodes, each with its own 1-25 s outage (seed 000's
			                 canonical workload); shared: a fleet hit by one 20 s outage at once;
			                 outage-rate-limit: one application's operations hit by a 2 s outage,
			                 then a provider admitting 250 requests/s; announced-quota: operations
			                 arriving at 500/s (for 6 s with 3000 clients) at a provider admitting 250/s
			                 that announces its quota in RateLimit fields; openai: a backlog of N
			                 requests at once against request and token windows announced in
			                 OpenAI's fields; sliding-window: N model calls at once against a provider
			                 admitting 5 in any second, 429 with Retry-After: 2 to the rest
			                 (default: episodes)
			  --clients N    episodes or clients, at least 1 (default: 1000)
			  --seed S       the seed every random draw derives from (default: 1)
			  --help         print this help
			""";

	/** The default number of clients of {@code simulate}. */
	static final int DEFAULT_CLIENTS = 1000;

	/** The default seed of {@code simulate}. */
	static final long DEFAULT_SEED = 1;

	private RetryAfterCli() {
	}

	/**
	 * Runs the command line and exits the JVM with its exit code.
	 * @param args the arguments
	 */
	public static void main(String[] args) {
		PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
		System.exit(run(args, System.in, out, err));
	}

	/**
	 * Runs the command line with the given streams and returns the exit code instead of exiting.
	 * @param args the arguments, the subcommand first
	 * @param in where the header lines are read from (UTF-8)
	 * @param out where results go
	 * @param err where usage errors go
	 * @return the exit code
	 */
	public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
		if (args.length == 0) {
			return usage(err, "missing subcommand");
		}
		String command = args[0];
		String[] rest = Arrays.copyOfRange(args, 1, args.length);
		switch (command) {
			case "explain":
				return explain(rest, in, out, err, InstantSource.system());
			case "simulate":
				return simulate(rest, out, err);
			case "--help", "-h", "help":
				out.print(USAGE);
				out.println();
				out.print(SIMULATE_USAGE);
				return EXIT_PLAN;
			default:
				return usage(err, "unknown subcommand \"" + command + "\"");
		}
	}

	static int explain(String[] args, InputStream in, PrintStream out, PrintStream err, InstantSource systemClock) {
		ExplainOptions options;
		try {
			options = ExplainOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			return usage(err, ex.getMessage());
		}
		if (options.help) {
			out.print(USAGE);
			return EXIT_PLAN;
		}
		String raw;
		try {
			raw = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			err.println("retry-after: could not read standard input: " + ex.getMessage());
			return EXIT_USAGE;
		}
		RetryAfterPlanner planner = planner(options, systemClock);
		// The ticker reads 0 at receipt: the round trip, if given, started that long before.
		PlanRequest request = PlanRequest.forAttempt(options.attempt).withJitterKey(options.key);
		if (options.roundTripMillis != null) {
			request = request.withRoundTrip(-options.roundTripMillis * 1_000_000, 0);
		}
		try {
			Optional<RetryPlan> plan = planner.plan(HeaderSource.parse(raw), request);
			if (plan.isEmpty()) {
				out.println("{\"plan\":null}");
				return EXIT_NO_INSTRUCTION;
			}
			out.println(json(plan.get()));
			return EXIT_PLAN;
		}
		catch (RetryAfterException ex) {
			out.println("{\"error\":" + quote(ex.code().name()) + ",\"message\":" + quote(ex.getMessage()) + "}");
			return EXIT_REFUSED;
		}
	}

	static int simulate(String[] args, PrintStream out, PrintStream err) {
		SimulateOptions options;
		try {
			options = SimulateOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			err.println("retry-after: " + ex.getMessage());
			err.println();
			err.print(SIMULATE_USAGE);
			return EXIT_USAGE;
		}
		if (options.help) {
			out.print(SIMULATE_USAGE);
			return EXIT_PLAN;
		}
		FleetReport report = FleetSimulation.run(Workload.named(options.workload, (int) options.clients), options.seed);
		out.print(report.render());
		return EXIT_PLAN;
	}

	private static RetryAfterPlanner planner(ExplainOptions options, InstantSource systemClock) {
		PlannerOptions.Builder plannerOptions = PlannerOptions.builder()
			.jitter(options.jitter)
			.onMissingDate(options.onMissingDate);
		if (options.maxWaitMillis != null) {
			plannerOptions.maxWait(Duration.ofMillis(options.maxWaitMillis));
		}
		InstantSource wallClock = (options.nowMillis != null)
				? InstantSource.fixed(Instant.ofEpochMilli(options.nowMillis)) : systemClock;
		RandomSource random = RandomSource.threadLocal();
		if (options.seed != null) {
			SplittableRandom seeded = new SplittableRandom(options.seed);
			random = seeded::nextDouble;
		}
		return RetryAfterPlanner.builder()
			.options(plannerOptions.build())
			.wallClock(wallClock)
			.ticker(() -> 0L)
			.random(random)
			.build();
	}

	static String json(RetryPlan plan) {
		StringBuilder out = new StringBuilder(200);
		out.append("{\"waitMs\":").append(plan.waitTime().toMillis());
		out.append(",\"floorMs\":").append(plan.floor().toMillis());
		out.append(",\"jitterMs\":").append(plan.jitter().toMillis());
		out.append(",\"spreadMs\":").append(plan.spread().toMillis());
		out.append(",\"source\":").append(quote(plan.source().name().toLowerCase(Locale.ROOT).replace('_', '-')));
		out.append(",\"instructedMs\":").append(plan.instructed().toMillis());
		out.append(",\"ageMs\":").append(plan.age().toMillis());
		out.append(",\"skewMs\":").append(plan.skew().map(skew -> Long.toString(skew.toMillis())).orElse("null"));
		out.append(",\"clampedToZero\":").append(plan.clampedToZero());
		return out.append('}').toString();
	}

	static String quote(String text) {
		StringBuilder out = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029') {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

	private static int usage(PrintStream err, String problem) {
		err.println("retry-after: " + problem);
		err.println();
		err.print(USAGE);
		return EXIT_USAGE;
	}

	/** The parsed options of {@code explain}. */
	private static final class ExplainOptions {

		private Long nowMillis;

		private Long maxWaitMillis;

		private JitterMode jitter = JitterMode.RANDOM;

		private String key;

		private int attempt = 1;

		private Long seed;

		private Long roundTripMillis;

		private OnMissingDate onMissingDate = OnMissingDate.REFUSE;

		private boolean help;

		static ExplainOptions parse(String[] args) {
			ExplainOptions options = new ExplainOptions();
			options.help = new Options(false)
				.option("--now", (name, value) -> options.nowMillis = Options.number(name, value, Long.MIN_VALUE))
				.option("--max-wait", (name, value) -> options.maxWaitMillis = Options.number(name, value, 0))
				.option("--jitter", (name, value) -> options.jitter = Options.spelled(name, value, JitterMode.values()))
				.option("--key", (name, value) -> options.key = value)
				.option("--attempt", (name, value) -> options.attempt = attempt(name, value))
				.option("--seed", (name, value) -> options.seed = Options.number(name, value, Long.MIN_VALUE))
				.option("--round-trip", (name, value) -> options.roundTripMillis = Options.number(name, value, 0))
				.option("--on-missing-date",
						(name, value) -> options.onMissingDate = Options.spelled(name, value, OnMissingDate.values()))
				.parse(args);
			if (options.jitter == JitterMode.KEYED && options.key == null) {
				throw new IllegalArgumentException("--jitter keyed needs --key K, the client's identity");
			}
			if (options.roundTripMillis != null && options.roundTripMillis > Long.MAX_VALUE / 1_000_000) {
				throw new IllegalArgumentException("--round-trip is too large: " + options.roundTripMillis);
			}
			return options;
		}

		private static int attempt(String name, String value) {
			long attempt = Options.number(name, value, 1);
			if (attempt > Integer.MAX_VALUE) {
				throw new IllegalArgumentException("--attempt is too large: " + value);
			}
			return (int) attempt;
		}

	}

	/** The parsed options of {@code simulate}. */
	private static final class SimulateOptions {

		private String workload = "episodes";

		private long clients = DEFAULT_CLIENTS;

		private long seed = DEFAULT_SEED;

		private boolean help;

		static SimulateOptions parse(String[] args) {
			SimulateOptions options = new SimulateOptions();
			options.help = new Options(true).option("--workload", (name, value) -> options.workload = workload(value))
				.option("--clients", (name, value) -> options.clients = clients(name, value))
				.option("--seed", (name, value) -> options.seed = Options.number(name, value, Long.MIN_VALUE))
				.parse(args);
			return options;
		}

		private static String workload(String value) {
			if (!Workload.names().contains(value)) {
				throw new IllegalArgumentException(
						"--workload must be episodes, shared, outage-rate-limit, announced-quota, openai or sliding-window, "
								+ "not \"" + value + "\"");
			}
			return value;
		}

		private static long clients(String name, String value) {
			long clients = Options.number(name, value, 1);
			if (clients > 1_000_000) {
				throw new IllegalArgumentException("--clients must be at most 1000000, not " + clients);
			}
			return clients;
		}

	}

}
