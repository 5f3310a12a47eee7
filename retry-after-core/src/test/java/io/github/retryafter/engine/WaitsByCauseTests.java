package io.github.retryafter.engine;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.pacing.GateHold;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every wait between two attempts is reported with its real length on the engine's ticker, from the end of the attempt
 * before to the start of the next, and its cause (the part that lasted longest): a regression test for GitHub's
 * {@code 403} with {@code x-ratelimit-remaining: 0}, whose retries the gate held about 2 s each until the window's
 * reset while the only wait reported was the 78 ms backoff planned before the gate was asked. On a fake clock: each
 * test steps it to the instant the engine named, as a driver's wait would.
 */
class WaitsByCauseTests {

	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	/** The full-jitter backoff's first ceiling is 100 ms: a draw of 0.78 waits 78 ms. */
	private static final RetryPolicy PACED = RetryPolicy.DEFAULTS.toBuilder()
		.pacing(PacingSettings.DEFAULTS)
		.backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(8)))
		.build();

	/** GitHub's profile: {@code 403} retried as well. */
	private static final RetryPolicy GITHUB = PACED.toBuilder()
		.retryableStatuses(ProviderProfile.GITHUB.retryableStatuses(RetryPolicy.DEFAULT_RETRYABLE_STATUSES))
		.build();

	private final FakeClock clock = FakeClock.create();

	private final List<WaitedEvent> waits = new ArrayList<>();

	private final List<CooldownStartedEvent> cooldowns = new ArrayList<>();

	private RetryEngine engine(RetryPolicy policy, double... draws) {
		return RetryEngine.builder()
			.policy(policy)
			.random(ScriptedRandom.of(draws))
			.ticker(this.clock)
			.wallClock(this.clock)
			.listener(new RetryListener() {

				@Override
				public void onWaited(WaitedEvent event) {
					WaitsByCauseTests.this.waits.add(event);
				}

				@Override
				public void onCooldownStarted(CooldownStartedEvent event) {
					WaitsByCauseTests.this.cooldowns.add(event);
				}

			})
			.build();
	}

	private AttemptOutcome.Response response(int status, String... headerLines) {
		long now = this.clock.read();
		return new AttemptOutcome.Response(status, HeaderSource.parse(String.join("\n", headerLines) + "\n"), now, now);
	}

	private String date(Duration fromNow) {
		return HTTP_DATE.format(this.clock.instant().plus(fromNow));
	}

	private long epochSeconds(Duration fromNow) {
		return this.clock.instant().plus(fromNow).getEpochSecond();
	}

	/**
	 * Drives the operation's next attempt as a driver does: waits until the engine's instant and asks again, until the
	 * attempt is permitted.
	 */
	private Permit.Proceed sendNext(RetryOperation operation) {
		operation.pendingRetry().ifPresent((retry) -> advanceTo(retry.notBeforeNanos()));
		Permit permit = operation.beforeAttempt();
		while (permit instanceof Permit.Wait wait) {
			advanceTo(wait.notBeforeNanos());
			permit = operation.beforeAttempt();
		}
		assertThat(permit).isInstanceOf(Permit.Proceed.class);
		return (Permit.Proceed) permit;
	}

	private void advanceTo(long nanos) {
		long now = this.clock.read();
		if (nanos > now) {
			this.clock.advance(Duration.ofNanos(nanos - now));
		}
	}

	@Test
	void aRetryTheGateHeldUntilAWindowResetWaitedAbout2sForTheWindowResetNot78msOfBackoff() {
		RetryEngine engine = engine(GITHUB, 0.78);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(operation);
		Decision decision = operation.afterAttempt(response(403, "x-ratelimit-limit: 5000", "x-ratelimit-remaining: 0",
				"x-ratelimit-reset: " + epochSeconds(Duration.ofSeconds(2)), "Date: " + date(Duration.ZERO)));
		assertThat(decision).isInstanceOfSatisfying(Decision.Retry.class, (retry) -> {
			assertThat(retry.source()).isEqualTo(DelaySource.BACKOFF);
			assertThat(retry.delay()).isEqualTo(Duration.ofMillis(78));
		});
		long ended = this.clock.read();
		advanceTo(operation.pendingRetry().get().notBeforeNanos());
		assertThat(operation.beforeAttempt()).as("the gate the reset closed holds the retry")
			.isEqualTo(new Permit.Wait(ended + Duration.ofSeconds(2).toNanos(), GateHold.COOLDOWN));
		sendNext(operation);
		Duration real = Duration.ofNanos(this.clock.read() - ended);
		assertThat(real).isEqualTo(Duration.ofSeconds(2));
		assertThat(this.waits).singleElement().satisfies((wait) -> {
			assertThat(wait.attempt()).isEqualTo(2);
			assertThat(wait.waited()).isEqualTo(real);
			assertThat(wait.cause()).isEqualTo(WaitCause.WINDOW_RESET);
			assertThat(wait.parts()).containsExactly(Map.entry(WaitCause.BACKOFF, Duration.ofMillis(78)),
					Map.entry(WaitCause.WINDOW_RESET, Duration.ofMillis(1922)));
		});
		assertThat(this.cooldowns).singleElement().satisfies((cooldown) -> {
			assertThat(cooldown.status()).isEqualTo(403);
			assertThat(cooldown.cause()).isEqualTo(WaitCause.WINDOW_RESET);
			assertThat(cooldown.field()).isEqualTo("X-RateLimit-Reset");
			assertThat(cooldown.closedFor()).isEqualTo(Duration.ofSeconds(2));
			assertThat(cooldown.decision()).isEqualTo(decision);
			assertThat(cooldown.attempt()).isEqualTo(1);
		});
	}

	@Test
	void anAnthropicTokenWindowWithNothingLeftHoldsTheRetryUntilItsResetAndNamesItsField() {
		RetryPolicy anthropic = PACED.toBuilder()
			.planner(PACED.planner().toBuilder().fields(ProviderProfile.ANTHROPIC.fields()).build())
			.build();
		RetryEngine engine = engine(anthropic, 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(operation);
		operation.afterAttempt(response(429, "anthropic-ratelimit-requests-limit: 50",
				"anthropic-ratelimit-requests-remaining: 49", "anthropic-ratelimit-tokens-limit: 40000",
				"anthropic-ratelimit-tokens-remaining: 0",
				"anthropic-ratelimit-tokens-reset: " + this.clock.instant().plusSeconds(3),
				"Date: " + date(Duration.ZERO)));
		long ended = this.clock.read();
		sendNext(operation);
		assertThat(this.cooldowns).singleElement().satisfies((cooldown) -> {
			assertThat(cooldown.field()).isEqualTo("anthropic-ratelimit-tokens-reset");
			assertThat(cooldown.cause()).isEqualTo(WaitCause.WINDOW_RESET);
			assertThat(cooldown.closedFor()).isEqualTo(Duration.ofSeconds(3));
		});
		assertThat(this.waits).singleElement().satisfies((wait) -> {
			assertThat(wait.waited()).isEqualTo(Duration.ofNanos(this.clock.read() - ended))
				.isEqualTo(Duration.ofSeconds(3));
			assertThat(wait.cause()).isEqualTo(WaitCause.WINDOW_RESET);
		});
	}

	@Test
	void aRetryPlannedFromRetryAfterWaitedItsPlanForRetryAfterInBothForms() {
		RetryEngine engine = engine(PACED, 0.0, 0.0);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(operation);
		operation.afterAttempt(response(429, "Retry-After: 2"));
		long ended = this.clock.read();
		sendNext(operation);
		Duration first = Duration.ofNanos(this.clock.read() - ended);
		operation.afterAttempt(response(503, "Retry-After: " + date(Duration.ofSeconds(3)),
				"Date: " + date(Duration.ZERO)));
		ended = this.clock.read();
		sendNext(operation);
		Duration second = Duration.ofNanos(this.clock.read() - ended);
		assertThat(List.of(first, second)).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(3));
		assertThat(this.waits).extracting(WaitedEvent::waited).containsExactly(first, second);
		assertThat(this.waits).extracting(WaitedEvent::cause)
			.containsExactly(WaitCause.RETRY_AFTER, WaitCause.RETRY_AFTER);
		assertThat(this.waits).allSatisfy((wait) -> assertThat(wait.parts()).containsOnlyKeys(WaitCause.RETRY_AFTER));
		assertThat(this.cooldowns).extracting(CooldownStartedEvent::field).containsExactly("Retry-After", "Retry-After");
	}

	@Test
	void aBackoffAloneIsReportedAsTheRealWaitIncludingAWakeUpThatCameLate() {
		RetryEngine engine = engine(PACED, 0.5);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(operation);
		operation.afterAttempt(response(502));
		long ended = this.clock.read();
		this.clock.advance(Duration.ofMillis(57));
		sendNext(operation);
		assertThat(this.waits).singleElement().satisfies((wait) -> {
			assertThat(wait.waited()).isEqualTo(Duration.ofNanos(this.clock.read() - ended))
				.isEqualTo(Duration.ofMillis(57));
			assertThat(wait.cause()).isEqualTo(WaitCause.BACKOFF);
			assertThat(wait.parts()).containsExactly(Map.entry(WaitCause.BACKOFF, Duration.ofMillis(57)));
		});
		assertThat(this.cooldowns).isEmpty();
	}

	@Test
	void aRetryHeldForASlotOfTheRateWaitedForTheRate() {
		RetryPolicy oneAtATime = PACED.toBuilder()
			.pacing(PacingSettings.DEFAULTS.toBuilder().burst(1).build())
			.build();
		RetryEngine engine = engine(oneAtATime, 0.5);
		// an announced quota of 2 a second with nothing left: the gate paces at 0.95 × 2 a second
		engine.gate("default").onQuota(2.0, 0, this.clock.read());
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(operation);
		operation.afterAttempt(response(502));
		long ended = this.clock.read();
		sendNext(operation);
		Duration real = Duration.ofNanos(this.clock.read() - ended);
		assertThat(this.waits).singleElement().satisfies((wait) -> {
			assertThat(wait.waited()).isEqualTo(real);
			assertThat(wait.cause()).isEqualTo(WaitCause.RATE);
			assertThat(wait.parts()).containsOnlyKeys(WaitCause.BACKOFF, WaitCause.RATE);
			assertThat(wait.parts().get(WaitCause.BACKOFF)).isEqualTo(Duration.ofMillis(50));
		});
		assertThat(real).isGreaterThan(Duration.ofMillis(400));
	}

	@Test
	void aRetryHeldByAnotherOperationsCooldownWaitedForTheCooldownAndThenForTheProbe() {
		RetryEngine engine = engine(PACED, 0.5, 0.0);
		RetryOperation held = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(held);
		held.afterAttempt(response(502));
		long ended = this.clock.read();
		RetryOperation other = engine.start(OperationSpec.of("GET"), Cancellation.never());
		sendNext(other);
		other.afterAttempt(response(503, "Retry-After: 1"));
		// the other operation probes first, and its answer is slow to come
		advanceTo(held.pendingRetry().get().notBeforeNanos());
		Permit cooling = held.beforeAttempt();
		assertThat(cooling).isEqualTo(new Permit.Wait(ended + Duration.ofSeconds(1).toNanos(), GateHold.COOLDOWN));
		advanceTo(((Permit.Wait) cooling).notBeforeNanos());
		sendNext(other);
		Permit behindProbe = held.beforeAttempt();
		assertThat(behindProbe).isInstanceOf(Permit.Wait.class);
		this.clock.advance(Duration.ofMillis(300));
		other.afterAttempt(response(200));
		sendNext(held);
		WaitedEvent wait = this.waits.get(this.waits.size() - 1);
		assertThat(wait.waited()).isEqualTo(Duration.ofNanos(this.clock.read() - ended))
			.isEqualTo(Duration.ofMillis(1300));
		assertThat(wait.parts()).containsExactly(Map.entry(WaitCause.BACKOFF, Duration.ofMillis(50)),
				Map.entry(WaitCause.COOLDOWN, Duration.ofMillis(950)), Map.entry(WaitCause.PROBE, Duration.ofMillis(300)));
		assertThat(wait.cause()).isEqualTo(WaitCause.COOLDOWN);
	}

	@Test
	void theWaitsOfAnOperationAddUpToTheRealTimeBetweenItsAttempts() {
		RetryEngine engine = engine(GITHUB, 0.78, 0.3, 0.9);
		RetryOperation operation = engine.start(OperationSpec.of("GET"), Cancellation.never());
		long between = 0;
		sendNext(operation);
		String[] window = { "x-ratelimit-remaining: 0", "x-ratelimit-reset: " + epochSeconds(Duration.ofSeconds(2)),
				"Date: " + date(Duration.ZERO) };
		operation.afterAttempt(response(403, window));
		long ended = this.clock.read();
		sendNext(operation);
		between += this.clock.read() - ended;
		operation.afterAttempt(response(502));
		ended = this.clock.read();
		this.clock.advance(Duration.ofMillis(3));
		sendNext(operation);
		between += this.clock.read() - ended;
		long recorded = this.waits.stream().mapToLong((wait) -> wait.waited().toNanos()).sum();
		assertThat(recorded).isEqualTo(between);
		assertThat(this.waits).allSatisfy((wait) -> assertThat(
				wait.parts().values().stream().mapToLong(Duration::toNanos).sum()).isEqualTo(wait.waited().toNanos()));
	}

}
