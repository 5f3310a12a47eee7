package io.github.retryafter.engine;

import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The non-blocking loop on virtual time: a timer queue the test runs as it moves the fake clock, attempts that
 * complete when the test says. The same rules as the blocking loop: the wait the server asked for, a failed response
 * released before its wait, a cancel that sends nothing more.
 */
class AsyncRetryLoopTests {

	private final Sim sim = new Sim();

	private final VirtualTimer timer = new VirtualTimer();

	private final AsyncRetryLoop loop = AsyncRetryLoop.of(this.sim.clock, this.timer);

	@Test
	void a503WithRetryAfterIsWaitedOutOnTheTimerAndRetriedWithoutBlocking() {
		Script script = new Script(this.sim, 503, 200);
		CompletableFuture<String> result = this.loop.run(engine().start(OperationSpec.of("GET")), script);
		// nothing blocked: the first answer came, the retry waits on the timer
		assertThat(result).isNotDone();
		assertThat(script.sentAt).hasSize(1);
		this.timer.runUntilIdle(this.sim);
		assertThat(result).isCompletedWithValue("SUCCESS 200");
		// the server's second above its floor, spread by the scripted draw: sent when due, not a nanosecond before
		assertThat(script.sentAt).containsExactly(Duration.ZERO, Duration.ofMillis(1125));
		// the failed response was released before the wait, told it had until the retry was due
		assertThat(script.events).containsExactly("stand in for 503", "discard 503 within PT1.125S",
				"retry in 1125 ms");
	}

	@Test
	void aTimerThatFiresEarlyIsReArmedAndNoAttemptLeavesEarly() {
		Script script = new Script(this.sim, 503, 200);
		this.timer.early = true;
		CompletableFuture<String> result = this.loop.run(engine().start(OperationSpec.of("GET")), script);
		this.timer.runUntilIdle(this.sim);
		assertThat(result).isCompletedWithValue("SUCCESS 200");
		assertThat(script.sentAt).containsExactly(Duration.ZERO, Duration.ofMillis(1125));
		assertThat(this.timer.fired).isGreaterThan(2);
	}

	@Test
	void aRefusedConnectionIsRetriedAndTheLastFailureEndsTheOperation() {
		Script script = new Script(this.sim, -1, -1, -1, -1, -1);
		CompletableFuture<String> result = this.loop.run(engine().start(OperationSpec.of("GET")), script);
		this.timer.runUntilIdle(this.sim);
		assertThat(result).isCompletedWithValue("ATTEMPTS_EXHAUSTED after ConnectException");
		assertThat(script.sentAt).hasSize(RetryPolicy.DEFAULTS.maxAttempts());
	}

	@Test
	void cancellingTheResultDuringAWaitSendsNothingMoreAndEndsTheOperationCancelled() {
		Script script = new Script(this.sim, 503, 200);
		RetryOperation operation = engine().start(OperationSpec.of("GET"));
		CompletableFuture<String> result = this.loop.run(operation, script);
		result.cancel(false);
		this.timer.runUntilIdle(this.sim);
		assertThat(script.sentAt).hasSize(1);
		assertThat(operation.outcome()).contains(Outcome.CANCELLED);
		assertThat(this.timer.pending()).isZero();
	}

	@Test
	void aResponseArrivingAfterTheCallerCancelledIsReleasedAndNotRetried() {
		Script script = new Script(this.sim, 503, 200);
		script.hold = true;
		RetryOperation operation = engine().start(OperationSpec.of("GET"));
		CompletableFuture<String> result = this.loop.run(operation, script);
		result.cancel(false);
		script.release();
		this.timer.runUntilIdle(this.sim);
		assertThat(script.sentAt).hasSize(1);
		assertThat(script.events).containsExactly("discard 503 within PT0S");
		assertThat(operation.outcome()).contains(Outcome.CANCELLED);
	}

	@Test
	void whatEndingThrowsReachesTheCallerAndTheResponseIsReleased() {
		Script script = new Script(this.sim, 404);
		script.endThrows = true;
		CompletableFuture<String> result = this.loop.run(engine().start(OperationSpec.of("GET")), script);
		assertThat(result).isCompletedExceptionally();
		assertThat(result.handle((value, failure) -> failure).join()).isInstanceOf(IllegalStateException.class);
		assertThat(script.events).containsExactly("discard 404 within PT0S");
	}

	@Test
	void aTimerThatRefusesEndsTheOperationWithItsFailureInsteadOfHanging() {
		Script script = new Script(this.sim, 503, 200);
		AsyncRetryLoop refusing = AsyncRetryLoop.of(this.sim.clock, (task, delayNanos) -> {
			throw new java.util.concurrent.RejectedExecutionException("timer shut down");
		});
		RetryOperation operation = engine().start(OperationSpec.of("GET"));
		CompletableFuture<String> result = refusing.run(operation, script);
		assertThat(result).isCompletedExceptionally();
		assertThat(result.handle((value, failure) -> failure).join())
			.isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
		assertThat(operation.outcome()).contains(Outcome.CANCELLED);
		assertThat(script.sentAt).hasSize(1);
	}

	@Test
	void theDelayedTimerRunsATaskTheClosedExecutorRefusesOnItsOwnThread() throws Exception {
		java.util.concurrent.ExecutorService closed = java.util.concurrent.Executors.newSingleThreadExecutor();
		closed.shutdown();
		CompletableFuture<String> ran = new CompletableFuture<>();
		AsyncRetryLoop.Timer.delayed(closed).schedule(() -> ran.complete("ran"), 1);
		assertThat(ran.get(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("ran");
	}

	private RetryEngine engine() {
		return this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5, 0.5, 0.5, 0.5));
	}

	/** A timer queue on the fake clock: the test runs what is due as it moves the clock to the next task. */
	private static final class VirtualTimer implements AsyncRetryLoop.Timer {

		private final PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));

		private final List<Runnable> tasks = new ArrayList<>();

		/** Whether each timer fires at 60% of its delay, as a coarse or hurried timer might. */
		boolean early;

		int fired;

		private long now;

		@Override
		public synchronized Runnable schedule(Runnable task, long delayNanos) {
			long delay = this.early ? delayNanos * 6 / 10 : delayNanos;
			long[] entry = { this.now + Math.max(1, delay), this.tasks.size() };
			this.tasks.add(task);
			this.due.add(entry);
			return () -> this.due.remove(entry);
		}

		int pending() {
			return this.due.size();
		}

		/** Runs every task in order of its instant, moving the clock to each. */
		void runUntilIdle(Sim sim) {
			for (long[] next = this.due.poll(); next != null; next = this.due.poll()) {
				this.now = sim.clock.read();
				if (next[0] > this.now) {
					sim.clock.advance(Duration.ofNanos(next[0] - this.now));
				}
				this.now = sim.clock.read();
				this.fired++;
				this.tasks.get((int) next[1]).run();
			}
		}

	}

	/** The server: answers each attempt with the next status ({@code -1}: the connection is refused). */
	private static final class Script implements AsyncRetryLoop.Exchange<Integer, String> {

		private final Sim sim;

		private final int[] statuses;

		final List<Duration> sentAt = new ArrayList<>();

		final List<String> events = new ArrayList<>();

		boolean hold;

		boolean endThrows;

		private CompletableFuture<Integer> held;

		Script(Sim sim, int... statuses) {
			this.sim = sim;
			this.statuses = statuses;
		}

		@Override
		public CompletionStage<Integer> send(Permit.Proceed proceed) {
			this.sentAt.add(this.sim.clock.elapsed());
			int status = this.statuses[this.sentAt.size() - 1];
			if (status < 0) {
				return CompletableFuture.failedFuture(new CompletionException(new ConnectException("refused")));
			}
			if (this.hold) {
				this.held = new CompletableFuture<>();
				return this.held.thenApply((ignored) -> status);
			}
			return CompletableFuture.completedFuture(status);
		}

		void release() {
			this.held.complete(0);
		}

		@Override
		public int status(Integer response) {
			return response;
		}

		@Override
		public HeaderSource headers(Integer response) {
			return (response == 503) ? HeaderSource.of(Map.of("retry-after", List.of("1"))) : HeaderSource.empty();
		}

		@Override
		public Integer standIn(Integer response) {
			this.events.add("stand in for " + response);
			return response;
		}

		@Override
		public void discard(Integer response, Duration drainWithin) {
			this.events.add("discard " + response + " within " + drainWithin);
		}

		@Override
		public void retryScheduled(Decision.Retry retry) {
			this.events.add("retry in " + retry.delay().toMillis() + " ms");
		}

		@Override
		public String end(Decision.Stop stop, Integer response, Throwable failure) {
			if (this.endThrows) {
				throw new IllegalStateException("the caller's handler failed");
			}
			return stop.outcome() + ((response != null) ? " " + response : " after " + failure.getClass().getSimpleName());
		}

	}

}
