package io.github.retryafter.bench;

import java.util.concurrent.TimeUnit;

import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.TokenBucketRetryBudget;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * {@link TokenBucketRetryBudget#tryAcquire(String)} throughput with 1 and 2 threads, all on one provider or spread over
 * many. The buckets are sized so they never run dry (a capacity and refill far above what a run can take), so every call
 * takes the success path: a compare-and-set on the provider's bucket, then on the global one, which all threads share.
 * Run with {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar BudgetBenchmark}.
 * <p>
 * JMH creates and confines the state; benchmarks are not meant to be called from other code.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BudgetBenchmark {

	/** The budget, shared by every thread. */
	@State(Scope.Benchmark)
	public static class Budget {

		/** How many providers the threads spread their calls over. */
		@Param({ "1", "16" })
		public int providers;

		TokenBucketRetryBudget budget;

		String[] names;

		/** Builds a budget that never runs dry. */
		@Setup(Level.Trial)
		public void setUp() {
			BudgetSettings bottomless = new BudgetSettings(1e15, 0.2, 1e15);
			this.budget = TokenBucketRetryBudget.builder().providerDefaults(bottomless).global(bottomless).build();
			this.names = new String[this.providers];
			for (int i = 0; i < this.providers; i++) {
				this.names[i] = "provider-" + i;
				this.budget.tryAcquire(this.names[i]);
			}
		}

	}

	/** Each thread's position in the provider list, starting apart. */
	@State(Scope.Thread)
	public static class Cursor {

		int next;

		/**
		 * Starts each thread on a different provider.
		 */
		@Setup(Level.Trial)
		public void setUp() {
			this.next = (int) (Thread.currentThread().getId() % 7);
		}

	}

	/**
	 * One thread takes tokens.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return whether the token was taken
	 */
	@Benchmark
	@Threads(1)
	public boolean oneThread(Budget budget, Cursor cursor) {
		return take(budget, cursor);
	}

	/**
	 * Two threads take tokens from the same budget.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return whether the token was taken
	 */
	@Benchmark
	@Threads(2)
	public boolean twoThreads(Budget budget, Cursor cursor) {
		return take(budget, cursor);
	}

	private static boolean take(Budget budget, Cursor cursor) {
		int index = cursor.next++ % budget.providers;
		if (cursor.next == Integer.MAX_VALUE) {
			cursor.next = 0;
		}
		return budget.budget.tryAcquire(budget.names[index]);
	}

}
