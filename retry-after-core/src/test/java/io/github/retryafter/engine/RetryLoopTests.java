package io.github.retryafter.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The one blocking loop and the one failure classifier: what every adapter (runner, RestClient, JDK client) shares.
 */
class RetryLoopTests {

	private final Sim sim = new Sim();

	@Test
	void classifierWalksTheCauseChainAndTheMostTellingCauseDecides() {
		assertThat(FailureKind.classify(new IOException("wrapped", new ConnectException("refused"))))
			.contains(FailureKind.NOT_SENT);
		assertThat(FailureKind.classify(new RuntimeException(new SocketTimeoutException()))).contains(FailureKind.TIMED_OUT);
		assertThat(FailureKind.classify(new IllegalStateException(new TimeoutException()))).contains(FailureKind.TIMED_OUT);
		assertThat(FailureKind.classify(new HttpConnectTimeoutException("connect"))).contains(FailureKind.NOT_SENT);
		assertThat(FailureKind.classify(new UncheckedIOException(new IOException("reset"))))
			.contains(FailureKind.OUTCOME_UNKNOWN);
		assertThat(FailureKind.classify(new IllegalArgumentException("bad body"))).isEmpty();
	}

	@Test
	void classifierReadsACyclicCauseChainOnce() {
		IllegalStateException first = new IllegalStateException("first");
		IllegalStateException second = new IllegalStateException("second", first);
		first.initCause(second);
		assertThat(FailureKind.classify(first)).isEmpty();
	}

	@Test
	void runnerDiscardsEachRetriedResponseBeforeItsWaitAndReturnsTheLastOneOpen() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5));
		List<Closing> sent = new ArrayList<>();
		RetryRunner.Result<Closing> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), Closing.ADAPTER, (context) -> {
				Closing response = new Closing((context.attempt() < 3) ? 503 : 200, this.sim.clock);
				sent.add(response);
				return response;
			});
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(sent).extracting(Closing::closedAfterSleeps).containsExactly(0, 1, -1);
		assertThat(result.response()).containsSame(sent.get(2));
	}

	@Test
	void discardHookIsToldHowLongUntilTheRetryIsDue() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5));
		List<Duration> drains = new ArrayList<>();
		RetryRunner.Result<Closing> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), new RetryRunner.ResponseAdapter<Closing>() {

				@Override
				public int status(Closing response) {
					return response.status;
				}

				@Override
				public HeaderSource headers(Closing response) {
					return HeaderSource.empty();
				}

				@Override
				public void discard(Closing response, Duration drainWithin) {
					drains.add(drainWithin);
					response.close();
				}

			}, (context) -> new Closing((context.attempt() < 3) ? 503 : 200, this.sim.clock));
		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		// backoff ceilings 100 ms then 200 ms, draw 0.5: the drain may take until the retry is due, no longer
		assertThat(drains).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
	}

	@Test
	void responseIsDiscardedWithoutDrainingWhenReadingItThrows() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		List<Duration> drains = new ArrayList<>();
		List<Closing> sent = new ArrayList<>();
		assertThatIllegalStateException().isThrownBy(() -> this.sim.runner(engine)
			.run(OperationSpec.of("GET"), new RetryRunner.ResponseAdapter<Closing>() {

				@Override
				public int status(Closing response) {
					return response.status;
				}

				@Override
				public HeaderSource headers(Closing response) {
					throw new IllegalStateException("unreadable headers");
				}

				@Override
				public void discard(Closing response, Duration drainWithin) {
					drains.add(drainWithin);
					response.close();
				}

			}, (context) -> {
				Closing response = new Closing(200, this.sim.clock);
				sent.add(response);
				return response;
			}))
			.withMessage("unreadable headers");
		assertThat(drains).containsExactly(Duration.ZERO);
		assertThat(sent).extracting(Closing::closedAfterSleeps).containsExactly(0);
	}

	@Test
	void responseTheLoopStopsOnIsDiscardedWhenEndingThrows() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		List<String> calls = new ArrayList<>();
		assertThatIllegalStateException()
			.isThrownBy(() -> RetryLoop.of(this.sim.clock, this.sim.clock)
				.run(operation, new RetryLoop.Exchange<Integer, String, RuntimeException>() {

					@Override
					public Integer send(Permit.Proceed proceed) {
						return 200;
					}

					@Override
					public int status(Integer response) {
						return response;
					}

					@Override
					public HeaderSource headers(Integer response) {
						return HeaderSource.empty();
					}

					@Override
					public void discard(Integer response, Duration drainWithin) {
						calls.add("discard " + response + " within " + drainWithin);
					}

					@Override
					public String end(Decision.Stop stop, Integer response, Throwable failure) {
						throw new IllegalStateException("outcome listener failed");
					}

				}))
			.withMessage("outcome listener failed");
		assertThat(calls).containsExactly("discard 200 within PT0S");
	}

	@Test
	void cancelledWaitEndsBeforeTheNextAttemptAndEachWaitIsBracketedByTheHooks() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.9));
		Cancellation cancellation = Cancellation.create();
		this.sim.clock.cancelAfter(Duration.ofMillis(50), cancellation);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), cancellation);
		List<String> calls = new ArrayList<>();
		String ended = RetryLoop.of(this.sim.clock, this.sim.clock)
			.run(operation, new RetryLoop.Exchange<Integer, String, RuntimeException>() {

				@Override
				public Integer send(Permit.Proceed proceed) {
					calls.add("send " + proceed.attempt());
					return 503;
				}

				@Override
				public int status(Integer response) {
					return response;
				}

				@Override
				public HeaderSource headers(Integer response) {
					return HeaderSource.empty();
				}

				@Override
				public void discard(Integer response) {
					calls.add("discard " + response);
				}

				@Override
				public void beforeWait() {
					calls.add("before wait");
				}

				@Override
				public void afterWait() {
					calls.add("after wait");
				}

				@Override
				public String end(Decision.Stop stop, Integer response, Throwable failure) {
					return stop.outcome() + " " + response;
				}

			});
		assertThat(calls).containsExactly("send 1", "discard 503", "before wait", "after wait");
		assertThat(ended).isEqualTo("CANCELLED 503");
	}

	@Test
	void eachScheduledRetryIsAnnouncedWithItsDelayAndSourceBeforeItsWait() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0, 0.5));
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.create());
		List<String> calls = new ArrayList<>();
		String ended = RetryLoop.of(this.sim.clock, this.sim.clock)
			.run(operation, new RetryLoop.Exchange<Integer, String, RuntimeException>() {

				@Override
				public Integer send(Permit.Proceed proceed) throws IOException {
					calls.add("send " + proceed.attempt());
					if (proceed.attempt() == 2) {
						throw new ConnectException("refused");
					}
					return (proceed.attempt() == 1) ? 503 : 200;
				}

				@Override
				public int status(Integer response) {
					return response;
				}

				@Override
				public HeaderSource headers(Integer response) {
					return (response == 503) ? HeaderSource.of(java.util.Map.of("Retry-After", List.of("2")))
							: HeaderSource.empty();
				}

				@Override
				public void retryScheduled(Decision.Retry retry) {
					calls.add("retry in " + retry.delay().toMillis() + " ms (" + retry.source() + ")");
				}

				@Override
				public void beforeWait() {
					calls.add("wait");
				}

				@Override
				public String end(Decision.Stop stop, Integer response, Throwable failure) {
					return stop.outcome() + " " + response;
				}

			});
		// the server's two seconds (no jitter drawn above the floor), then the backoff's 200 ms ceiling at draw 0.5
		assertThat(calls).containsExactly("send 1", "retry in 2000 ms (RETRY_AFTER)", "wait", "send 2",
				"retry in 100 ms (BACKOFF)", "wait", "send 3");
		assertThat(ended).isEqualTo("SUCCESS 200");
	}

	@Test
	void cancellationForgetsACallbackWhoseWaitEnded() {
		Cancellation cancellation = Cancellation.create();
		List<String> ran = new ArrayList<>();
		Runnable kept = () -> ran.add("kept");
		Runnable forgotten = () -> ran.add("forgotten");
		cancellation.onCancel(kept);
		cancellation.onCancel(forgotten);
		cancellation.removeCallback(forgotten);
		assertThat(cancellation.pendingCallbacks()).isEqualTo(1);
		cancellation.cancel();
		assertThat(ran).containsExactly("kept");
		assertThat(cancellation.pendingCallbacks()).isZero();
	}

	/** A response that records how many sleeps had happened when it was closed ({@code -1}: never closed). */
	private static final class Closing implements AutoCloseable {

		static final RetryRunner.ResponseAdapter<Closing> ADAPTER = new RetryRunner.ResponseAdapter<>() {

			@Override
			public int status(Closing response) {
				return response.status;
			}

			@Override
			public HeaderSource headers(Closing response) {
				return HeaderSource.empty();
			}

		};

		private final int status;

		private final FakeClock clock;

		private int closedAfterSleeps = -1;

		Closing(int status, FakeClock clock) {
			this.status = status;
			this.clock = clock;
		}

		int closedAfterSleeps() {
			return this.closedAfterSleeps;
		}

		@Override
		public void close() {
			this.closedAfterSleeps = this.clock.sleeps().size();
		}

	}

}
