package io.github.retryafter.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.hint.RetryAfterPlanner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * {@link RetryAfterPlanner#plan(HeaderSource, PlanRequest)} end to end with the default options (random jitter, system
 * clocks), for delay-seconds and for an IMF-fixdate with its {@code Date}, reported separately. Run with
 * {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar PlanBenchmark -prof gc} to see bytes per
 * operation.
 * <p>
 * JMH creates and confines the state; benchmarks are not meant to be called from other code.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PlanBenchmark {

	private final RetryAfterPlanner planner = RetryAfterPlanner.builder().build();

	private final PlanRequest request = PlanRequest.forAttempt(1);

	private final HeaderSource delaySeconds = HeaderSource
		.of(Map.of("Retry-After", List.of("120"), "Date", List.of("Tue, 04 Aug 2026 12:00:00 GMT")));

	private final HeaderSource imfFixdate = HeaderSource.of(Map.of("Retry-After",
			List.of("Tue, 04 Aug 2026 12:00:30 GMT"), "Date", List.of("Tue, 04 Aug 2026 12:00:00 GMT")));

	/**
	 * Plans {@code Retry-After: 120}.
	 * @return the plan
	 */
	@Benchmark
	public RetryPlan delaySeconds() {
		return this.planner.plan(this.delaySeconds, this.request).orElseThrow();
	}

	/**
	 * Plans an IMF-fixdate against the response's {@code Date}.
	 * @return the plan
	 */
	@Benchmark
	public RetryPlan imfFixdate() {
		return this.planner.plan(this.imfFixdate, this.request).orElseThrow();
	}

}
