package io.github.retryafter.bench;

import java.util.concurrent.TimeUnit;

import io.github.retryafter.Ticker;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.pacing.ProviderGate;
import io.github.retryafter.pacing.ProviderGate.Admission;
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
 * The shipped {@link ProviderGate} under contention (its cooldown and its rate and slot book read without a lock,
 * written under one lock per gate), with 1, 2 and 4 threads, all on one provider or spread over 16 gates. Each
 * operation is what the engine does per attempt with pacing on and a successful answer: {@code RetryOperation} reads
 * the ticker and calls {@code admit(fresh, now, latestStart, held)}, then {@code RetryEngine.observe} calls
 * {@code onSuccess(receivedAt)}. Half the calls are fresh (first attempts), half retries. It measures the real gate
 * only: the hand-made locked copy it was once compared with is gone (docs/performance.md has the figures that chose
 * the design).
 * <ul>
 * <li>{@code open}: the rate limit is off (no throttle seen, or it grew back to {@code maxRate}): what every request
 * costs in normal times;</li>
 * <li>{@code paced}: the rate limit is on, so every {@code admit} reserves a slot in a lane (a write to the shared
 * state) and every {@code onSuccess} evaluates the cubic growth. The rate is set so high (0.7 × 10<sup>12</sup>/s, one
 * slot per nanosecond) that slots do not run ahead of the clock: calls are admitted at once (a thread whose ticker
 * reading went stale while it was descheduled may rarely be held, and is not waited for), and the run measures the
 * reservation itself.</li>
 * </ul>
 * <p>
 * Run with {@code java -jar retry-after-core/target/retry-after-core-benchmarks.jar ContentionBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class GateContentionBenchmark {

	private static final long TEN_SECONDS = 10_000_000_000L;

	/** The gates, shared by every thread. */
	@State(Scope.Benchmark)
	public static class Gates {

		/** How many providers (one gate each) the threads spread their calls over. */
		@Param({ "1", "16" })
		public int providers;

		/** {@code open}: rate limit off; {@code paced}: rate limit on, every admission reserves a slot. */
		@Param({ "open", "paced" })
		public String pacing;

		final Ticker ticker = Ticker.system();

		ProviderGate[] shipped;

		/** Builds the gates, throttled once when paced. */
		@Setup(Level.Trial)
		public void setUp() {
			PacingSettings settings = PacingSettings.builder().maxRate(1e12).build();
			boolean paced = switch (this.pacing) {
				case "open" -> false;
				case "paced" -> true;
				default -> throw new IllegalArgumentException("pacing: " + this.pacing);
			};
			this.shipped = new ProviderGate[this.providers];
			for (int i = 0; i < this.providers; i++) {
				long now = this.ticker.read();
				this.shipped[i] = new ProviderGate("provider-" + i, settings, this.ticker);
				if (paced) {
					now = this.ticker.read();
					this.shipped[i].onThrottle(now, now);
					this.shipped[i].onSuccess(now);
				}
			}
			if (paced != this.shipped[0].rate().isPresent()) {
				throw new IllegalStateException("the rate limit should be " + (paced ? "on" : "off"));
			}
		}

	}

	/** Each thread's position in the provider list, starting apart, and whether its next call is fresh. */
	@State(Scope.Thread)
	public static class Cursor {

		int next;

		/** Starts each thread on a different provider. */
		@Setup(Level.Trial)
		public void setUp() {
			this.next = (int) (Thread.currentThread().getId() % 16);
		}

	}

	/**
	 * One thread: admit then success.
	 * @param gates the shared gates
	 * @param cursor this thread's provider cursor
	 * @return the admission
	 */
	@Benchmark
	@Threads(1)
	public Admission request_t1(Gates gates, Cursor cursor) {
		return request(gates, cursor);
	}

	/**
	 * Two threads: admit then success.
	 * @param gates the shared gates
	 * @param cursor this thread's provider cursor
	 * @return the admission
	 */
	@Benchmark
	@Threads(2)
	public Admission request_t2(Gates gates, Cursor cursor) {
		return request(gates, cursor);
	}

	/**
	 * Four threads: admit then success.
	 * @param gates the shared gates
	 * @param cursor this thread's provider cursor
	 * @return the admission
	 */
	@Benchmark
	@Threads(4)
	public Admission request_t4(Gates gates, Cursor cursor) {
		return request(gates, cursor);
	}

	private static Admission request(Gates gates, Cursor cursor) {
		int next = (cursor.next + 1) & 0xFFFF;
		cursor.next = next;
		int index = next % gates.providers;
		boolean fresh = (next & 1) == 0;
		long now = gates.ticker.read();
		ProviderGate gate = gates.shipped[index];
		Admission admission = gate.admit(fresh, now, now + TEN_SECONDS, null);
		gate.onSuccess(gates.ticker.read());
		return admission;
	}

}
