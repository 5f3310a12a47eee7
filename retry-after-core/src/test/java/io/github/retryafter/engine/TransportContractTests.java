package io.github.retryafter.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of an attempt every transport shares, written once in the core: the fields an attempt carries come with
 * its permit, the drain of a failed body is bounded once, and how an operation ends for its caller is one rule.
 */
class TransportContractTests {

	private final Sim sim = new Sim();

	@Test
	void everyPermitCarriesTheProvidersAttemptHeaderWithTheRetriesBeforeIt() {
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder()
			.conventions(ProviderConventions.NONE.withAttemptHeader("x-stainless-retry-count"))
			.build();
		RetryEngine engine = this.sim.engine(policy, ScriptedRandom.of(0.5, 0.5));
		List<String> sent = new ArrayList<>();
		this.sim.runner(engine).run(OperationSpec.of("GET"), new Statuses(), (context) -> {
			Map<String, String> fields = new LinkedHashMap<>();
			context.writeFields(fields::put);
			sent.add(fields.toString());
			return (context.attempt() < 3) ? 503 : 200;
		});
		assertThat(sent).containsExactly("{x-stainless-retry-count=0}", "{x-stainless-retry-count=1}",
				"{x-stainless-retry-count=2}");
	}

	@Test
	void aPermitOfAProviderThatAsksForNoAttemptHeaderWritesNothing() {
		Permit.Proceed proceed = new Permit.Proceed(3, Duration.ofSeconds(1));
		Map<String, String> fields = new LinkedHashMap<>();
		proceed.writeFields(fields::put);
		assertThat(proceed.hasFields()).isFalse();
		assertThat(fields).isEmpty();
	}

	@Test
	void theDrainWindowIsTheTimeUntilTheRetryIsDueBoundedAndNeverNegative() {
		assertThat(DrainBound.window(Duration.ofMillis(120))).isEqualTo(Duration.ofMillis(120));
		assertThat(DrainBound.window(Duration.ofSeconds(30))).isEqualTo(Duration.ofMillis(500));
		assertThat(DrainBound.window(Duration.ofMillis(-5))).isZero();
		assertThat(DrainBound.window(1_000_000_000L, 999_000_000L)).isEqualTo(Duration.ofMillis(1));
		assertThat(DrainBound.window(Long.MAX_VALUE, Long.MIN_VALUE + 1)).isEqualTo(DrainBound.MAX);
		assertThat(DrainBound.window(5L, 10L)).isZero();
	}

	@Test
	void aSuccessAndAPlainFirstRefusalSayNothingMoreThanTheirResponse() {
		RetryEngine engine = this.sim.engine(RetryPolicy.DEFAULTS, ScriptedRandom.of(0.5, 0.5, 0.5, 0.5, 0.5));
		RetryOperation ok = ended(engine, 200);
		assertThat(Ending.saysMore(ok, ok.finalStop().orElseThrow())).isFalse();
		RetryOperation notFound = ended(engine, 404);
		assertThat(Ending.saysMore(notFound, notFound.finalStop().orElseThrow())).isFalse();
		RetryOperation retried = ended(engine, 503, 503, 503, 503);
		assertThat(retried.finalStop()).map(Decision.Stop::outcome).contains(Outcome.ATTEMPTS_EXHAUSTED);
		assertThat(Ending.saysMore(retried, retried.finalStop().orElseThrow())).isTrue();
		RetryOperation stoppedOwnWay = engine.start(OperationSpec.of("GET"));
		Decision.Stop cancelled = stoppedOwnWay.cancel();
		assertThat(Ending.saysMore(stoppedOwnWay, cancelled)).isTrue();
	}

	@Test
	void aFailureKeepsItsOwnExceptionWithTheAccountAttached() {
		IOException reset = new IOException("connection reset");
		IllegalStateException account = new IllegalStateException("stopped: attempts exhausted");
		assertThat(Ending.attach(reset, account)).isSameAs(reset);
		assertThat(reset.getSuppressed()).containsExactly(account);
		assertThat(Ending.attach(null, account)).isSameAs(account);
	}

	/** Runs one operation to its end, answering each attempt with the next status. */
	private RetryOperation ended(RetryEngine engine, int... statuses) {
		RetryOperation operation = engine.start(OperationSpec.of("GET"));
		for (int status : statuses) {
			if (!(operation.beforeAttempt() instanceof Permit.Proceed)) {
				break;
			}
			long now = this.sim.clock.read();
			Decision decision = operation.afterAttempt(new AttemptOutcome.Response(status, HeaderSource.empty(), now, now));
			if (decision instanceof Decision.Retry retry) {
				this.sim.clock.advance(Duration.ofNanos(retry.notBeforeNanos() - this.sim.clock.read()));
			}
		}
		return operation;
	}

	/** Statuses as responses, read by the runner. */
	private static class Statuses implements RetryRunner.ResponseAdapter<Integer> {

		@Override
		public int status(Integer response) {
			return response;
		}

		@Override
		public HeaderSource headers(Integer response) {
			return HeaderSource.empty();
		}

	}

}
