package io.github.retryafter.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An engine that keeps the client's own timeouts, for calls long by nature: the first attempt is given no bound of
 * the engine's (neither the 10 s attempt timeout nor the deadline cuts it), a retry is bounded by what is left of the
 * deadline only, and the attempt's record and event say so. Without it, every attempt is bounded as before.
 */
class ClientTimeoutsTests {

	private final FakeClock clock = FakeClock.create();

	private final RetryPolicy policy = RetryPolicy.builder()
		.deadline(CallTimeouts.MODEL_DEADLINE)
		.conventions(ProviderConventions.NONE.withRetryRefusedRequests(true))
		.build();

	@Test
	void theFirstAttemptHasNoBoundOfTheEnginesAndARetryWhatIsLeftOfTheDeadline() {
		RetryEngine engine = engine(true);
		RetryOperation operation = engine.start(OperationSpec.of("POST"), Cancellation.never());
		Permit.Proceed first = (Permit.Proceed) operation.beforeAttempt();
		assertThat(first.clientTimeouts()).isTrue();
		assertThat(first.bound()).isEmpty();
		assertThat(first.timeout()).isEqualTo(Duration.ofMinutes(10));
		// a 429 after a long first attempt: the retry is bounded by the deadline left, not the attempt timeout
		this.clock.advance(Duration.ofSeconds(90));
		Decision decision = operation.afterAttempt(response(429, "Retry-After: 1"));
		assertThat(decision).isInstanceOf(Decision.Retry.class);
		this.clock.advance(((Decision.Retry) decision).delay());
		Permit.Proceed retry = (Permit.Proceed) operation.beforeAttempt();
		assertThat(retry.clientTimeouts()).isFalse();
		Duration left = Duration.ofMinutes(10).minus(this.clock.elapsed());
		assertThat(retry.bound()).contains(left);
		assertThat(operation.afterAttempt(response(200))).isInstanceOf(Decision.Stop.class);
		assertThat(operation.trace()).extracting(AttemptRecord::timeout)
			.containsExactly(Duration.ofMinutes(10), left);
	}

	@Test
	void withoutItEveryAttemptIsBoundedByTheAttemptTimeoutAsBefore() {
		RetryEngine engine = engine(false);
		assertThat(engine.clientTimeouts()).isFalse();
		RetryOperation operation = engine.start(OperationSpec.of("POST"), Cancellation.never());
		Permit.Proceed first = (Permit.Proceed) operation.beforeAttempt();
		assertThat(first).isEqualTo(new Permit.Proceed(1, Duration.ofSeconds(10)));
		assertThat(first.bound()).contains(Duration.ofSeconds(10));
	}

	@Test
	void aDeadlineOfTheOperationsOwnDoesNotBoundItsFirstAttemptEither() {
		RetryEngine engine = engine(true);
		RetryOperation operation = engine.start(new OperationSpec("default", "POST", Optional.empty(),
				Optional.of(Duration.ofSeconds(3)), Optional.empty(), true), Cancellation.never());
		Permit.Proceed first = (Permit.Proceed) operation.beforeAttempt();
		assertThat(first.bound()).isEmpty();
		assertThat(first.timeout()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void theModelProfilesKeepTheClientsOwnTimeoutsAndTheOthersDoNot() {
		for (ProviderProfile profile : List.of(ProviderProfile.OPENAI, ProviderProfile.ANTHROPIC,
				ProviderProfile.AZURE)) {
			assertThat(profile.timeouts()).as(profile.name()).isEqualTo(CallTimeouts.MODEL_CALLS);
		}
		for (ProviderProfile profile : List.of(ProviderProfile.STANDARD, ProviderProfile.STRIPE,
				ProviderProfile.GITHUB)) {
			assertThat(profile.timeouts()).as(profile.name()).isEqualTo(CallTimeouts.STANDARD);
		}
		assertThat(CallTimeouts.MODEL_CALLS.deadline()).contains(Duration.ofMinutes(10));
		assertThat(new ProviderProfile("teapot", ProviderProfile.STANDARD.fields(), java.util.Set.of(),
				ProviderConventions.NONE).timeouts()).isEqualTo(CallTimeouts.STANDARD);
	}

	private RetryEngine engine(boolean clientTimeouts) {
		RandomSource half = () -> 0.5;
		return RetryEngine.builder()
			.policy(this.policy)
			.clientTimeouts(clientTimeouts)
			.budget(RetryBudget.unlimited())
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(half)
			.build();
	}

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

}
