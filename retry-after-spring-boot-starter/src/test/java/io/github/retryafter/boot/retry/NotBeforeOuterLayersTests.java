package io.github.retryafter.boot.retry;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.web.client.HttpClientErrorException;

import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Issue 30 item 4: Spring Framework 7's outer retry layers honour the instant retry-after hands on, read from the
 * client's exception as the caller catches it (a {@code TooManyRequests} with the outcome suppressed on it). The
 * back-off is asked as {@code RetryTemplate} asks it; nothing sleeps.
 */
class NotBeforeOuterLayersTests {

	private final FakeClock clock = FakeClock.create();

	private NotBeforeWaits waits() {
		return NotBeforeWaits.of(this.clock, this.clock, this.clock, Duration.ofSeconds(30));
	}

	private HttpClientErrorException tooManyRequests(Duration remaining) {
		return tooManyRequests(remaining, Outcome.ATTEMPTS_EXHAUSTED);
	}

	private HttpClientErrorException tooManyRequests(Duration remaining, Outcome outcome) {
		HttpClientErrorException ex = HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
				null, null, null);
		NotBefore notBefore = new NotBefore(0, this.clock.instant().plus(remaining), remaining);
		ex.addSuppressed(new RetryAfterOutcomeException(new RetryOutcome("openai", outcome, 1,
				"the provider refused", Optional.empty(), Optional.of(notBefore))));
		return ex;
	}

	@Test
	void templateBackOffWaitsForTheProvidersInstantWhenItIsLaterThanItsOwn() {
		RetryPolicy policy = NotBeforeRetryPolicy.of(RetryPolicy.builder().delay(Duration.ofMillis(200)).build(),
				this.clock);
		BackOffExecution execution = policy.getBackOff().start();
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofMillis(2500)))).isTrue();
		assertThat(execution.nextBackOff()).isEqualTo(2500);
		this.clock.advance(Duration.ofMillis(2400));
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofMillis(100)))).isTrue();
		assertThat(execution.nextBackOff()).as("its own back-off, once that is the later").isEqualTo(200);
		assertThat(policy.shouldRetry(new IllegalStateException("no instant"))).isTrue();
		assertThat(execution.nextBackOff()).isEqualTo(200);
	}

	@Test
	void templateBackOffRoundsThePartialMillisecondUpAndKeepsTheDelegatesStop() {
		RetryPolicy policy = NotBeforeRetryPolicy.of(
				RetryPolicy.builder().maxRetries(1).delay(Duration.ofMillis(10)).build(), this.clock);
		BackOffExecution execution = policy.getBackOff().start();
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofNanos(1_500_000_001L)))).isTrue();
		assertThat(execution.nextBackOff()).isEqualTo(1501);
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofSeconds(5)))).isTrue();
		assertThat(execution.nextBackOff()).as("the delegate's retries are spent").isEqualTo(BackOffExecution.STOP);
	}

	@Test
	void aRetryTemplateRetriesThroughThePolicyAndTheInstantOnTheCaughtException() {
		// the instant has passed by the time the template asks (the fixed clock is past it): nothing is waited out
		RetryTemplate template = new RetryTemplate(NotBeforeRetryPolicy
			.of(RetryPolicy.builder().maxRetries(2).delay(Duration.ofMillis(1)).build(), this.clock));
		AtomicInteger calls = new AtomicInteger();
		String result = template.invoke(() -> {
			if (calls.incrementAndGet() == 1) {
				throw tooManyRequests(Duration.ZERO);
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(calls).hasValue(2);
	}

	@Test
	void retryablePredicateWaitsOutTheProvidersInstantThenAllowsTheRetry() throws Exception {
		NotBeforeRetryPredicate predicate = new NotBeforeRetryPredicate(waits());
		Predicate<Throwable> call = predicate.forMethod(Annotated.class.getDeclaredMethod("call"));
		assertThat(call.test(tooManyRequests(Duration.ofMillis(2500)))).isTrue();
		assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(2500));
		assertThat(call.test(new IllegalStateException("no instant"))).isTrue();
		HttpClientErrorException past = tooManyRequests(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(call.test(past)).isTrue();
		assertThat(this.clock.sleeps()).as("nothing more waited").hasSize(1);
	}

	@Test
	void retryablePredicateLeavesRoomForTheDelaySpringWaitsAfterIt() throws Exception {
		NotBeforeRetryPredicate predicate = new NotBeforeRetryPredicate(waits());
		Method method = Annotated.class.getDeclaredMethod("delayedWithinFiveSeconds");
		assertThat(predicate.forMethod(method).test(tooManyRequests(Duration.ofMillis(2500)))).isTrue();
		assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(2500));
		assertThat(predicate.forMethod(method).test(tooManyRequests(Duration.ofMillis(3500))))
			.as("3.5 s and Spring's 2 s delay reach the 5 s timeout")
			.isFalse();
		assertThat(this.clock.sleeps()).hasSize(1);
	}

	@Test
	void retryablePredicateDeclinesAnEarlyRetryOfAMethodItMustNotBlock() throws Exception {
		NotBeforeRetryPredicate predicate = new NotBeforeRetryPredicate(waits());
		for (String name : List.of("reactive", "future")) {
			Method method = Annotated.class.getDeclaredMethod(name);
			assertThat(predicate.forMethod(method).test(tooManyRequests(Duration.ofSeconds(3)))).as(name).isFalse();
			assertThat(predicate.shouldRetry(method, tooManyRequests(Duration.ofSeconds(3)))).as(name).isFalse();
			assertThat(predicate.shouldRetry(method, new IllegalStateException("no instant"))).as(name).isTrue();
		}
		assertThat(this.clock.sleeps()).isEmpty();
	}

	@Test
	void retryablePredicateAskedWithoutItsCallDeclinesAnEarlyRetryRatherThanBlock() throws Exception {
		// Spring's reactive retry asks shouldRetry directly: it cannot tell which retry of which call it decides
		NotBeforeRetryPredicate predicate = new NotBeforeRetryPredicate(waits());
		Method call = Annotated.class.getDeclaredMethod("call");
		assertThat(predicate.shouldRetry(call, tooManyRequests(Duration.ofSeconds(3)))).isFalse();
		assertThat(predicate.shouldRetry(call, tooManyRequests(Duration.ZERO))).isTrue();
		assertThat(this.clock.sleeps()).isEmpty();
	}

	@Test
	void retryablePredicateDeclinesForAMethodWithoutRetryable() throws Exception {
		NotBeforeRetryPredicate predicate = new NotBeforeRetryPredicate(waits());
		Predicate<Throwable> call = predicate.forMethod(Object.class.getDeclaredMethod("toString"));
		assertThat(call.test(tooManyRequests(Duration.ofSeconds(3)))).isFalse();
		assertThat(this.clock.sleeps()).isEmpty();
	}

	@Test
	void templatePolicyDeclinesAnInstantBeyondTheMaxWaitInsteadOfBlockingForIt() {
		RetryPolicy policy = NotBeforeRetryPolicy.of(RetryPolicy.builder().delay(Duration.ofMillis(200)).build(),
				this.clock);
		BackOffExecution execution = policy.getBackOff().start();
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofSeconds(45)))).as("beyond the default 30 s")
			.isFalse();
		assertThat(policy.shouldRetry(tooManyRequests(Duration.ofSeconds(20), Outcome.WAIT_TOO_LONG)))
			.as("handed over as WAIT_TOO_LONG")
			.isFalse();
		assertThat(policy.shouldRetry(new IllegalStateException("no instant"))).isTrue();
		assertThat(execution.nextBackOff()).isEqualTo(200);
		RetryPolicy patient = NotBeforeRetryPolicy.of(RetryPolicy.builder().delay(Duration.ofMillis(200)).build(),
				NotBeforeWaits.of(this.clock, this.clock, this.clock, Duration.ofMinutes(1)));
		assertThat(patient.shouldRetry(tooManyRequests(Duration.ofSeconds(45)))).isTrue();
		assertThat(patient.getBackOff().start().nextBackOff()).isEqualTo(45_000);
	}

	@Test
	void aTemplateDoesNotWaitForAnInstantPastItsTimeout() {
		// the template refuses a back-off that would pass its timeout before it sleeps: nothing is slept here
		RetryTemplate template = new RetryTemplate(NotBeforeRetryPolicy.of(
				RetryPolicy.builder().maxRetries(3).delay(Duration.ofMillis(1)).timeout(Duration.ofSeconds(1)).build(),
				this.clock));
		AtomicInteger calls = new AtomicInteger();
		assertThatExceptionOfType(RetryException.class).isThrownBy(() -> template.execute(() -> {
			calls.incrementAndGet();
			throw tooManyRequests(Duration.ofSeconds(3));
		})).satisfies((ex) -> assertThat(NotBefore.find(ex.getCause())).isPresent());
		assertThat(calls).hasValue(1);
	}

	@Test
	void theInstantIsFoundWhereverTheCallerCaughtIt() {
		HttpClientErrorException ex = tooManyRequests(Duration.ofSeconds(7));
		RuntimeException wrapped = new RuntimeException("service failed", ex);
		assertThat(NotBefore.find(wrapped)).map(NotBefore::remaining).contains(Duration.ofSeconds(7));
		assertThat(List.of(ex.getSuppressed())).hasSize(1);
		assertThat(NotBefore.find(wrapped).get().instant()).isEqualTo(Instant.parse("2025-01-01T10:00:07Z"));
	}

	static class Annotated {

		@Retryable(predicate = NotBeforeRetryPredicate.class)
		void call() {
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, delay = 2000, timeout = 5000)
		void delayedWithinFiveSeconds() {
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class)
		reactor.core.publisher.Mono<String> reactive() {
			return reactor.core.publisher.Mono.empty();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class)
		java.util.concurrent.CompletableFuture<String> future() {
			return java.util.concurrent.CompletableFuture.completedFuture("");
		}

	}

}
