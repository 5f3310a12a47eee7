package io.github.retryafter.bench;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;

import io.github.retryafter.hint.HttpDate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The hand-written HTTP-date parser against {@link DateTimeFormatter#RFC_1123_DATE_TIME}, both parsing the same
 * IMF-fixdate to epoch seconds in the same run. Run with
 * {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar ParserBenchmark -prof gc}.
 * <p>
 * JMH creates and confines the state; benchmarks are not meant to be called from other code.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ParserBenchmark {

	/** Not a constant, so the JIT cannot fold the parse away. */
	public String imfFixdate = "Tue, 04 Aug 2026 12:00:30 GMT";

	/** The reference an RFC 850 year would be judged against; unused by IMF-fixdate. */
	public long reference = 1_785_844_800L;

	/**
	 * Parses with {@link HttpDate}.
	 * @return the instant in epoch seconds
	 */
	@Benchmark
	public long retryAfterParser() {
		return HttpDate.parse("Retry-After", this.imfFixdate, this.reference);
	}

	/**
	 * Parses with {@code java.time}'s RFC 1123 formatter, as a typical client would.
	 * @return the instant in epoch seconds
	 */
	@Benchmark
	public long javaTimeRfc1123() {
		return DateTimeFormatter.RFC_1123_DATE_TIME.parse(this.imfFixdate, Instant::from).getEpochSecond();
	}

}
