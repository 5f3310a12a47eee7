package io.github.retryafter.boot;

import java.net.URI;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.testing.Drive;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The debug line per retry, and the warning for an outcome a person has to look up.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryAfterLoggingTests {

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class))
		.withBean(Ticker.class, () -> this.clock)
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("retry.after.providers.payments.hosts=api.pay.example");

	private final Logger logger = (Logger) LoggerFactory.getLogger("io.github.retryafter");

	private Level before;

	@BeforeEach
	void debug() {
		this.before = this.logger.getLevel();
		this.logger.setLevel(Level.DEBUG);
	}

	@AfterEach
	void restore() {
		this.logger.setLevel(this.before);
	}

	@Test
	void logsEachScheduledRetryWithItsWaitAndFloor(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RetryOperation operation = context.getBean(RetryAfterProviders.class)
				.get("payments")
				.orElseThrow()
				.engine()
				.start(OperationSpec.of("GET").withProvider("payments"), Cancellation.create());
			operation.beforeAttempt();
			long now = this.clock.read();
			Decision decision = operation.afterAttempt(new AttemptOutcome.Response(429,
					HeaderSource.of(Map.of("Retry-After", List.of("3"))), now, now));
			assertThat(decision).isInstanceOf(Decision.Retry.class);
			assertThat(output).contains("retry-after: provider 'payments' GET attempt 1 failed; retry planned in 3375 ms")
				.contains("server floor 3000 ms");
		});
	}

	@Test
	void logsTheWaitAsItHappenedAndItsCauseWhenTheRetryIsSentAndTheGateThatClosed(CapturedOutput output) {
		String date = java.time.format.DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)
			.withZone(java.time.ZoneOffset.UTC)
			.format(this.clock.instant());
		HeaderSource exhausted = HeaderSource.of(Map.of("X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset",
				List.of(Long.toString(this.clock.instant().getEpochSecond() + 2)), "Date", List.of(date)));
		this.contextRunner.withPropertyValues("retry.after.providers.github.hosts=api.github.com",
				"retry.after.providers.github.profile=github")
			.run((context) -> {
				Drive.operation(context.getBean(RetryAfterProviders.class), "github", this.clock, exhausted, 403, 200);
				assertThat(output)
					.contains("provider 'github' GET attempt 1 failed; retry planned in 50 ms (BACKOFF), status 403")
					.contains("provider 'github' GET attempt 1 got status 403 whose X-RateLimit-Reset closed the gate"
							+ " of 'github' for 2000 ms (window-reset)")
					.contains("provider 'github' GET attempt 2 sent after waiting 2000 ms (window-reset): 50 ms backoff,"
							+ " then 1950 ms window-reset");
			});
	}

	@Test
	void eachLineNamesProviderHostStatusAndAttemptAndTheMdcCarriesThemAsFields(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RetryAfterOperations operations = context.getBean(RetryAfterOperations.class);
			RetryAfterOperations.Prepared prepared = operations.prepare("GET",
					URI.create("https://user:secret@api.pay.example/charges/42?token=abc"), (name) -> null, Map.of(), 0);
			RetryOperation operation = prepared.provider().engine().start(prepared.spec(), Cancellation.create());
			Map<String, String> fields = new java.util.HashMap<>();
			ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender = new ch.qos.logback.core.read.ListAppender<>();
			appender.start();
			this.logger.addAppender(appender);
			try {
				operation.beforeAttempt();
				long now = this.clock.read();
				operation.afterAttempt(new AttemptOutcome.Response(503,
						HeaderSource.of(Map.of("Retry-After", List.of("3"))), now, now));
			}
			finally {
				this.logger.detachAppender(appender);
			}
			assertThat(output).contains("retry-after: provider 'payments' host 'api.pay.example' GET attempt 1 failed;")
				.contains("status 503")
				.doesNotContain("charges")
				.doesNotContain("token")
				.doesNotContain("secret");
			fields.putAll(appender.list.get(0).getMDCPropertyMap());
			assertThat(fields).containsEntry(RetryAfterLogging.PROVIDER, "payments")
				.containsEntry(RetryAfterLogging.ATTEMPT, "1")
				.containsKey(RetryAfterLogging.OPERATION);
			assertThat(org.slf4j.MDC.get(RetryAfterLogging.PROVIDER)).as("taken out again").isNull();
		});
	}

	@Test
	void warnsWhenAnUnsafeRequestMayHaveBeenApplied(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RetryOperation operation = context.getBean(RetryAfterProviders.class)
				.get("default")
				.orElseThrow()
				.engine()
				.start(OperationSpec.of("POST"), Cancellation.create());
			operation.beforeAttempt();
			long now = this.clock.read();
			operation.afterAttempt(new AttemptOutcome.Failure(FailureKind.TIMED_OUT,
					new java.net.SocketTimeoutException("read timed out"), now, now));
			assertThat(output).contains("WARN").contains("retry-after: provider 'default' POST may have been applied");
		});
	}

}
