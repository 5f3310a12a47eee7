package io.github.retryafter.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The vendor windows through the engine's gate on a fake clock: an exhausted window holds, a token window paces. */
class VendorWindowPacingTests {

	private static final RetryPolicy OPENAI = RetryPolicy.DEFAULTS.toBuilder()
		.pacing(PacingSettings.DEFAULTS)
		.planner(PlannerOptions.builder()
			.maxWait(Duration.ofSeconds(30))
			.fields(HintFields.STANDARD.with(HintField.OPENAI_WINDOWS))
			.build())
		.build();

	private final Sim sim = new Sim();

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.sim.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	private RetryOperation start(RetryEngine engine) {
		return engine.start(OperationSpec.of("GET"), Cancellation.never());
	}

	@Test
	void aRemainingOfZeroWithAResetOf1point5sOnA200HoldsTheNextRequestExactly1point5s() {
		RetryEngine engine = this.sim.engine(OPENAI, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(200, "x-ratelimit-limit-requests: 500", "x-ratelimit-remaining-requests: 0",
				"x-ratelimit-reset-requests: 1.5s"));
		RetryOperation next = start(engine);
		assertThat(next.beforeAttempt()).isEqualTo(new Permit.Wait(Duration.ofMillis(1500).toNanos(), GateHold.COOLDOWN));
		this.sim.clock.advance(Duration.ofMillis(1499));
		assertThat(next.beforeAttempt()).isInstanceOf(Permit.Wait.class);
		this.sim.clock.advance(Duration.ofMillis(1));
		assertThat(next.beforeAttempt()).isInstanceOf(Permit.Proceed.class);
	}

	@Test
	void anExhaustedTokenWindowHoldsThoughRequestsRemain() {
		RetryEngine engine = this.sim.engine(OPENAI, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(200, "x-ratelimit-remaining-requests: 499", "x-ratelimit-reset-requests: 120ms",
				"x-ratelimit-limit-tokens: 30000", "x-ratelimit-remaining-tokens: 0", "x-ratelimit-reset-tokens: 6s"));
		assertThat(engine.gate("default").cooldownRemaining()).isEqualTo(Duration.ofSeconds(6));
	}

	@Test
	void aLowTokenWindowPacesAtTheRequestWindowsRateScaledByTheShareOfTokensLeft() {
		RetryEngine engine = this.sim.engine(OPENAI, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(200, "x-ratelimit-limit-requests: 500", "x-ratelimit-remaining-requests: 80",
				"x-ratelimit-reset-requests: 1s", "x-ratelimit-limit-tokens: 10000",
				"x-ratelimit-remaining-tokens: 1000", "x-ratelimit-reset-tokens: 10s"));
		assertThat(engine.gate("default").rate()).as("0.95 (the gate's headroom) × 80 × 10% / 1 s")
			.hasValueCloseTo(0.95 * 8, within(1e-9));
		RetryEngine roomy = this.sim.engine(OPENAI, ScriptedRandom.of(0.0));
		RetryOperation plenty = start(roomy);
		plenty.beforeAttempt();
		plenty.afterAttempt(response(200, "x-ratelimit-limit-requests: 500", "x-ratelimit-remaining-requests: 80",
				"x-ratelimit-reset-requests: 1s", "x-ratelimit-limit-tokens: 10000",
				"x-ratelimit-remaining-tokens: 10000", "x-ratelimit-reset-tokens: 10s"));
		assertThat(roomy.gate("default").rate()).as("80 requests left, tokens untouched: more than a burst, not paced")
			.isEmpty();
	}

	@Test
	void underTheStandardFieldsTheSameResponseHoldsNobody() {
		RetryPolicy standard = OPENAI.toBuilder().planner(PlannerOptions.builder().build()).build();
		RetryEngine engine = this.sim.engine(standard, ScriptedRandom.of(0.0));
		RetryOperation first = start(engine);
		first.beforeAttempt();
		first.afterAttempt(response(200, "x-ratelimit-remaining-requests: 0", "x-ratelimit-reset-requests: 1.5s"));
		assertThat(engine.gate("default").cooldownRemaining()).isZero();
	}

}
