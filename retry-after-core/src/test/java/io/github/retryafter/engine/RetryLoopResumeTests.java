package io.github.retryafter.engine;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The loop taking over from an adapter that asked for the first permit, sent the first attempt and reported it
 * itself (the OkHttp interceptor's fast path): what follows is what {@link RetryLoop#run} does from the start, the
 * same waits, hooks and end.
 */
class RetryLoopResumeTests {

	private final Sim sim = new Sim();

	private final List<String> calls = new ArrayList<>();

	@Test
	void aResponseTheCallerSentAndTheEngineRetriesIsStoodInForDiscardedAndWaitedOutByTheLoop() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0));
		RetryOperation operation = engine.start(OperationSpec.of("GET"));
		assertThat(operation.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
		Decision decision = operation.afterAttempt(new AttemptOutcome.Response(503, headers(503),
				this.sim.clock.read(), this.sim.clock.read()));
		assertThat(decision).isInstanceOf(Decision.Retry.class);

		String ended = loop().resume(operation, new Recording(200), decision, 503, null);

		assertThat(this.calls).containsExactly("stand in for 503", "discard 503 within PT2S", "retry in 2000 ms",
				"wait", "send 2");
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(2));
		assertThat(ended).isEqualTo("SUCCESS 200");
	}

	@Test
	void aFailureTheCallerReportedIsRetriedOrEndsWithTheFailureItself() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5));
		RetryOperation get = engine.start(OperationSpec.of("GET"));
		get.beforeAttempt();
		ConnectException refused = new ConnectException("refused");
		Decision retry = get.afterFailure(refused, FailureKind.classify(refused), 0, 0);

		assertThat(loop().resume(get, new Recording(200), retry, null, refused)).isEqualTo("SUCCESS 200");
		// no hint: the backoff's draw, half of its 100 ms first ceiling
		assertThat(this.calls).containsExactly("retry in 50 ms", "wait", "send 2");

		RetryOperation post = engine.start(OperationSpec.of("POST"));
		post.beforeAttempt();
		SocketTimeoutException lost = new SocketTimeoutException("read timed out");
		Decision stop = post.afterFailure(lost, FailureKind.classify(lost), 0, 0);
		assertThat(loop().resume(post, new Recording(200), stop, null, lost))
			.as("a POST without a key is not repeated: the end is told of the failure")
			.isEqualTo("OUTCOME_UNKNOWN null, failed with read timed out");
	}

	@Test
	void aFirstPermitThatHoldsIsWaitedOutAndOneThatRefusesEndsWithNothingSent() {
		RetryPolicy paced = RetryPolicy.DEFAULTS.toBuilder().pacing(PacingSettings.DEFAULTS).build();
		RetryEngine engine = this.sim.engine(paced, ScriptedRandom.of(0.0));
		engine.gate("default").closeUntil(Duration.ofSeconds(3).toNanos());
		RetryOperation held = engine.start(OperationSpec.of("GET"));
		Permit wait = held.beforeAttempt();
		assertThat(wait).isInstanceOf(Permit.Wait.class);

		assertThat(loop().resume(held, new Recording(200), wait)).isEqualTo("SUCCESS 200");
		assertThat(this.calls).containsExactly("held", "wait", "send 1");
		assertThat(this.sim.clock.sleeps()).containsExactly(Duration.ofSeconds(3));

		this.calls.clear();
		RetryOperation cancelled = engine.start(OperationSpec.of("GET"));
		cancelled.cancellation().cancel();
		assertThat(loop().resume(cancelled, new Recording(200), cancelled.beforeAttempt()))
			.isEqualTo("CANCELLED null");
		assertThat(this.calls).isEmpty();
	}

	@Test
	void resumingFromADecisionTakesTheAttemptsResponseOrItsFailure() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.0));
		RetryOperation operation = engine.start(OperationSpec.of("GET"));
		operation.beforeAttempt();
		Decision decision = operation.afterAttempt(new AttemptOutcome.Response(503, headers(503), 0, 0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> loop().resume(operation, new Recording(200), decision, null, null))
			.withMessageContaining("response or its failure");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> loop().resume(operation, new Recording(200), decision, 503, new IOException("and")))
			.withMessageContaining("not both");
	}

	private RetryLoop loop() {
		return RetryLoop.of(this.sim.clock, this.sim.clock);
	}

	private static HeaderSource headers(int status) {
		return (status == 503) ? HeaderSource.of(Map.of("Retry-After", List.of("2"))) : HeaderSource.empty();
	}

	/** An exchange whose every attempt answers {@code status}, recording what the loop asks of it. */
	private final class Recording implements RetryLoop.Exchange<Integer, String, RuntimeException> {

		private final int status;

		Recording(int status) {
			this.status = status;
		}

		@Override
		public Integer send(Permit.Proceed proceed) {
			RetryLoopResumeTests.this.calls.add("send " + proceed.attempt());
			return this.status;
		}

		@Override
		public int status(Integer response) {
			return response;
		}

		@Override
		public HeaderSource headers(Integer response) {
			return RetryLoopResumeTests.headers(response);
		}

		@Override
		public Integer standIn(Integer response) {
			RetryLoopResumeTests.this.calls.add("stand in for " + response);
			return response;
		}

		@Override
		public void discard(Integer response, Duration drainWithin) {
			RetryLoopResumeTests.this.calls.add("discard " + response + " within " + drainWithin);
		}

		@Override
		public void retryScheduled(Decision.Retry retry) {
			RetryLoopResumeTests.this.calls.add("retry in " + retry.delay().toMillis() + " ms");
		}

		@Override
		public void held(Permit.Wait wait) {
			RetryLoopResumeTests.this.calls.add("held");
		}

		@Override
		public void beforeWait() {
			RetryLoopResumeTests.this.calls.add("wait");
		}

		@Override
		public String end(Decision.Stop stop, Integer response, Throwable failure) {
			return stop.outcome() + " " + response + ((failure != null) ? ", failed with " + failure.getMessage() : "");
		}

	}

}
