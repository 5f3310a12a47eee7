package io.github.retryafter.bench;

import java.util.concurrent.TimeUnit;

import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
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
 * The retry budget under contention: the shipped lock-free {@link TokenBucketRetryBudget} (compare-and-set on an
 * immutable level per bucket) against {@link LockedRetryBudget} (the same buckets, each guarded by its own monitor),
 * with 1, 2 and 4 threads sharing one budget, all on one provider or spread over 16 (the global bucket is shared
 * either way). Each benchmark is exactly the sequence of budget calls {@code RetryOperation} makes for one attempt:
 * <ul>
 * <li>{@code firstAttempt}: {@code availableTokens} (the attempt event's "before") then {@code recordSuccess} (a
 * successful first attempt deposits): what every request that succeeds first time costs;</li>
 * <li>{@code retry}: {@code availableTokens}, {@code tryAcquire}, {@code availableTokens} (the event's "after"), then
 * {@code refund} (the retry succeeded): what a paced retry costs.</li>
 * </ul>
 * Buckets use the documented defaults and the system ticker, so refill is read from the real clock on every call; a
 * retry gives back what it took, so the buckets never run dry. Before measuring, {@link SameBehaviour#budgets()} checks
 * that both variants answer a random call sequence identically.
 * <p>
 * Run with {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar ContentionBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BudgetContentionBenchmark {

	/** The budget, shared by every thread. */
	@State(Scope.Benchmark)
	public static class Budget {

		/** {@code lockfree}: the shipped budget; {@code locked}: a monitor per bucket. */
		@Param({ "lockfree", "locked" })
		public String variant;

		/** How many providers the threads spread their calls over. */
		@Param({ "1", "16" })
		public int providers;

		RetryBudget budget;

		String[] names;

		/** Checks the variants agree, then builds the budget with the defaults. */
		@Setup(Level.Trial)
		public void setUp() {
			SameBehaviour.budgets();
			this.budget = switch (this.variant) {
				case "lockfree" -> TokenBucketRetryBudget.builder().build();
				case "locked" -> new LockedRetryBudget(BudgetSettings.PROVIDER_DEFAULTS, BudgetSettings.GLOBAL_DEFAULTS,
						Ticker.system());
				default -> throw new IllegalArgumentException("variant: " + this.variant);
			};
			this.names = new String[this.providers];
			for (int i = 0; i < this.providers; i++) {
				this.names[i] = "provider-" + i;
				this.budget.availableTokens(this.names[i]);
			}
		}

	}

	/** Each thread's position in the provider list, starting apart. */
	@State(Scope.Thread)
	public static class Cursor {

		int next;

		/** Starts each thread on a different provider. */
		@Setup(Level.Trial)
		public void setUp() {
			this.next = (int) (Thread.currentThread().getId() % 16);
		}

		String provider(Budget budget) {
			this.next = (this.next + 1) & 0xFFFF;
			return budget.names[this.next % budget.providers];
		}

	}

	/**
	 * One thread: a successful first attempt's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(1)
	public double firstAttempt_t1(Budget budget, Cursor cursor) {
		return firstAttempt(budget, cursor);
	}

	/**
	 * Two threads: a successful first attempt's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(2)
	public double firstAttempt_t2(Budget budget, Cursor cursor) {
		return firstAttempt(budget, cursor);
	}

	/**
	 * Four threads: a successful first attempt's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(4)
	public double firstAttempt_t4(Budget budget, Cursor cursor) {
		return firstAttempt(budget, cursor);
	}

	/**
	 * One thread: a successful retry's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(1)
	public double retry_t1(Budget budget, Cursor cursor) {
		return retry(budget, cursor);
	}

	/**
	 * Two threads: a successful retry's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(2)
	public double retry_t2(Budget budget, Cursor cursor) {
		return retry(budget, cursor);
	}

	/**
	 * Four threads: a successful retry's budget calls.
	 * @param budget the shared budget
	 * @param cursor this thread's provider cursor
	 * @return the tokens read
	 */
	@Benchmark
	@Threads(4)
	public double retry_t4(Budget budget, Cursor cursor) {
		return retry(budget, cursor);
	}

	private static double firstAttempt(Budget state, Cursor cursor) {
		String provider = cursor.provider(state);
		double before = state.budget.availableTokens(provider);
		state.budget.recordSuccess(provider);
		return before;
	}

	private static double retry(Budget state, Cursor cursor) {
		String provider = cursor.provider(state);
		RetryBudget budget = state.budget;
		double before = budget.availableTokens(provider);
		if (!budget.tryAcquire(provider)) {
			throw new IllegalStateException("the budget ran dry: a retry gives back what it took");
		}
		double after = budget.availableTokens(provider);
		budget.refund(provider);
		return before + after;
	}

}
