package io.github.retryafter.boot.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.HttpClientErrorException;

import io.github.retryafter.Sleeper;
import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code @Retryable(predicate = NotBeforeRetryPredicate.class)} in a plain Boot app: the starter's auto-configurations
 * as the application gets them, {@code @EnableResilientMethods}, and a bean whose methods fail as a client does when
 * retry-after hands on the provider's instant. What a caller relies on: the method can be called without a clock bean;
 * the wait happens only when a retry follows it (the last retry, the timeout counted from the call's start, the
 * annotation's {@code maxDelay}); an instant beyond the provider's {@code max-wait} is handed on, not waited. The waits
 * are a {@link FakeClock}'s or a recording {@link Sleeper}'s; nothing sleeps.
 */
class RetryablePredicateInABootAppTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(starterAutoConfigurations()))
		.withUserConfiguration(Service.class);

	@Test
	void aPlainBootAppWithoutAClockBeanCallsTheMethodAndRetriesIt() {
		this.contextRunner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			Instant past = Instant.now().minusSeconds(5);
			quotes.script((call) -> switch (call) {
				case 1 -> new IllegalStateException("no instant");
				case 2 -> refused("default", Outcome.ATTEMPTS_EXHAUSTED, past, Duration.ZERO);
				default -> null;
			});
			assertThat(quotes.threeAttempts()).isEqualTo("ok");
			assertThat(quotes.calls()).isEqualTo(3);
		});
	}

	@Test
	void theStarterProvidesTheWaitsEvenWithRetryAfterOffAndAnApplicationsOwnWaitsWin() {
		this.contextRunner.withPropertyValues("retry.after.enabled=false").run((context) -> {
			assertThat(context).hasSingleBean(NotBeforeWaits.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> (call == 1) ? new IllegalStateException("no instant") : null);
			assertThat(quotes.threeAttempts()).isEqualTo("ok");
		});
		NotBeforeWaits own = NotBeforeWaits.system();
		this.contextRunner.withBean(NotBeforeWaits.class, () -> own)
			.run((context) -> assertThat(context).getBean(NotBeforeWaits.class).isSameAs(own));
	}

	@Test
	void theApplicationsOwnWallClockAndSleeperAreTheOnesUsed() {
		Instant now = Instant.parse("2026-01-01T12:00:00Z");
		List<Duration> slept = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean(InstantSource.class, () -> Clock.fixed(now, ZoneOffset.UTC))
			.withBean(Sleeper.class, () -> (duration, cancellation) -> slept.add(duration))
			.run((context) -> {
				Quotes quotes = context.getBean(Quotes.class);
				quotes.script((call) -> (call == 1)
						? refused("default", Outcome.ATTEMPTS_EXHAUSTED, now.plusSeconds(3), Duration.ofSeconds(3))
						: null);
				assertThat(quotes.threeAttempts()).isEqualTo("ok");
				assertThat(slept).containsExactly(Duration.ofSeconds(3));
				assertThat(quotes.calls()).isEqualTo(2);
			});
	}

	@Test
	void afterTheLastAllowedRetryNothingIsWaited() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> refusedFor(clock, Duration.ofSeconds(3)));
			Throwable thrown = catchThrowable(quotes::threeAttempts);
			assertThat(thrown).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(NotBefore.find(thrown)).as("the instant reaches the caller").isPresent();
			assertThat(quotes.calls()).isEqualTo(3);
			assertThat(clock.sleeps()).as("one wait before each of the 2 retries, none after the last")
				.containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(3));
		});
	}

	@Test
	void retriesGivenByAPlaceholderAreCountedAsSpringCountsThem() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create)
			.withPropertyValues("quotes.retries=1")
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				Quotes quotes = context.getBean(Quotes.class);
				quotes.script((call) -> refusedFor(clock, Duration.ofSeconds(2)));
				assertThat(catchThrowable(quotes::configuredRetries))
					.isInstanceOf(HttpClientErrorException.TooManyRequests.class);
				assertThat(quotes.calls()).isEqualTo(2);
				assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2));
			});
	}

	@Test
	void aWaitThatWouldPassTheTimeoutIsNotWaited() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> refusedFor(clock, Duration.ofMillis(3500)));
			Throwable thrown = catchThrowable(quotes::withinOneSecond);
			assertThat(thrown).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(NotBefore.find(thrown)).map(NotBefore::remaining).contains(Duration.ofMillis(3500));
			assertThat(quotes.calls()).isEqualTo(1);
			assertThat(clock.sleeps()).as("3.5 s do not fit a 1 s timeout").isEmpty();
		});
	}

	@Test
	void theTimeoutCountsFromTheStartOfTheCallNotFromItsFirstFailure() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> {
				clock.advance(Duration.ofMillis(800));
				return refusedFor(clock, Duration.ofMillis(500));
			});
			assertThat(catchThrowable(quotes::withinOneSecond))
				.isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(quotes.calls()).isEqualTo(1);
			assertThat(clock.sleeps()).as("800 ms spent and 500 ms to wait pass 1 s").isEmpty();
		});
	}

	@Test
	void aWaitThatFitsTheTimeoutIsWaitedAndTheRetrySucceeds() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> (call == 1) ? refusedFor(clock, Duration.ofSeconds(3)) : null);
			assertThat(quotes.withinTenSeconds()).isEqualTo("ok");
			assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(3));
		});
	}

	@Test
	void aWaitLongerThanTheAnnotationsMaxDelayIsNotWaited() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script((call) -> (call == 1) ? refusedFor(clock, Duration.ofSeconds(5)) : null);
			assertThat(catchThrowable(quotes::pausesAtMostTwoSeconds))
				.isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(clock.sleeps()).isEmpty();
			quotes.script((call) -> (call == 1) ? refusedFor(clock, Duration.ofMillis(1500)) : null);
			assertThat(quotes.pausesAtMostTwoSeconds()).isEqualTo("ok");
			assertThat(clock.sleeps()).containsExactly(Duration.ofMillis(1500));
		});
	}

	@Test
	void anInstantBeyondTheProvidersMaxWaitIsHandedOnNotWaited() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			Quotes quotes = context.getBean(Quotes.class);
			// the budget ran out with the provider's 45 s ahead; max-wait is 30 s by default
			quotes.script((call) -> refused("default", Outcome.BUDGET_EXHAUSTED,
					clock.instant().plusSeconds(45), Duration.ofSeconds(45)));
			Throwable thrown = catchThrowable(quotes::threeAttempts);
			assertThat(thrown).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
			assertThat(NotBefore.find(thrown)).map(NotBefore::remaining).contains(Duration.ofSeconds(45));
			assertThat(quotes.calls()).isEqualTo(1);
			assertThat(clock.sleeps()).isEmpty();
		});
	}

	@Test
	void aProvidersOwnMaxWaitDecidesAndAWaitTooLongHandOverIsNeverWaited() {
		this.contextRunner.withBean(FakeClock.class, FakeClock::create)
			.withPropertyValues("retry.after.providers.quotes.hosts=quotes.example",
					"retry.after.providers.quotes.max-wait=60s")
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				Quotes quotes = context.getBean(Quotes.class);
				quotes.script((call) -> (call == 1) ? refused("quotes", Outcome.BUDGET_EXHAUSTED,
						clock.instant().plusSeconds(45), Duration.ofSeconds(45)) : null);
				assertThat(quotes.threeAttempts()).isEqualTo("ok");
				assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(45));
				quotes.script((call) -> refused("quotes", Outcome.WAIT_TOO_LONG, clock.instant().plusSeconds(20),
						Duration.ofSeconds(20)));
				assertThat(catchThrowable(quotes::threeAttempts))
					.isInstanceOf(HttpClientErrorException.TooManyRequests.class);
				assertThat(quotes.calls()).isEqualTo(1);
				assertThat(clock.sleeps()).as("nothing more").hasSize(1);
			});
	}

	private static HttpClientErrorException refusedFor(FakeClock clock, Duration remaining) {
		return refused("default", Outcome.ATTEMPTS_EXHAUSTED, clock.instant().plus(remaining), remaining);
	}

	private static HttpClientErrorException refused(String provider, Outcome outcome, Instant instant,
			Duration remaining) {
		HttpClientErrorException ex = HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS,
				"Too Many Requests", null, null, null);
		ex.addSuppressed(new RetryAfterOutcomeException(new RetryOutcome(provider, outcome, 1, "refused",
				Optional.empty(), Optional.of(new NotBefore(0, instant, remaining)))));
		return ex;
	}

	// the starter's auto-configurations as an application without Spring AI gets them (this module's tests have it)
	private static Class<?>[] starterAutoConfigurations() {
		ClassLoader loader = RetryablePredicateInABootAppTests.class.getClassLoader();
		return ImportCandidates.load(AutoConfiguration.class, loader)
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith("io.github.retryafter.") && !name.endsWith("SpringAiAutoConfiguration"))
			.map((name) -> ClassUtils.resolveClassName(name, loader))
			.toArray(Class<?>[]::new);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class Service {

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class Quotes {

		private final AtomicInteger calls = new AtomicInteger();

		private volatile IntFunction<RuntimeException> failures = (call) -> null;

		// public, so the proxy passes these to the instance the retried methods run on
		public void script(IntFunction<RuntimeException> failures) {
			this.calls.set(0);
			this.failures = failures;
		}

		public int calls() {
			return this.calls.get();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, maxRetries = 2, delay = 0)
		public String threeAttempts() {
			return call();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, maxRetriesString = "${quotes.retries}", delay = 0)
		public String configuredRetries() {
			return call();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, timeout = 1000, delay = 0)
		public String withinOneSecond() {
			return call();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, timeout = 10_000, delay = 0)
		public String withinTenSeconds() {
			return call();
		}

		@Retryable(predicate = NotBeforeRetryPredicate.class, maxDelay = 2000, delay = 0)
		public String pausesAtMostTwoSeconds() {
			return call();
		}

		private String call() {
			RuntimeException failure = this.failures.apply(this.calls.incrementAndGet());
			if (failure != null) {
				throw failure;
			}
			return "ok";
		}

	}

}
