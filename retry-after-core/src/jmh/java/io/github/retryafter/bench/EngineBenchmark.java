package io.github.retryafter.bench;

import java.util.concurrent.TimeUnit;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryOperation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The engine's per-operation cost on the success path, the path almost every request takes: {@code start} (the
 * deadline), {@code beforeAttempt} (the permit and its timeout), {@code afterAttempt(200)} (classification, the
 * budget's success deposit, the listener's events, the trace). Default policy, a token-bucket budget, the system
 * ticker. Run with {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar EngineBenchmark -prof gc}
 * to see bytes per operation.
 * <p>
 * JMH creates and confines the state; benchmarks are not meant to be called from other code.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineBenchmark {

	private final Ticker ticker = Ticker.system();

	private final RetryEngine engine = RetryEngine.builder()
		.budget(TokenBucketRetryBudget.builder().ticker(this.ticker).build())
		.ticker(this.ticker)
		.build();

	private final OperationSpec spec = OperationSpec.of("GET");

	private final HeaderSource headers = HeaderSource.empty();

	/**
	 * One operation that succeeds on its first attempt.
	 * @return the final decision
	 */
	@Benchmark
	public Decision successOnFirstAttempt() {
		RetryOperation operation = this.engine.start(this.spec, Cancellation.never());
		if (!(operation.beforeAttempt() instanceof Permit.Proceed)) {
			throw new IllegalStateException("the first attempt was refused");
		}
		long sent = this.ticker.read();
		return operation.afterAttempt(new AttemptOutcome.Response(200, this.headers, sent, this.ticker.read()));
	}

}
