package io.github.retryafter.boot.testing;

import java.net.ConnectException;
import java.time.Duration;

import io.github.retryafter.simulator.FakeClock;
import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryOperation;

/**
 * Drives one real {@link RetryOperation} of a provider's engine through scripted attempts, waiting on the test clock
 * (so nothing really waits) for retries and for the provider's gate. A status of {@link #REFUSED} stands for a connection refused: an I/O failure before the
 * request was sent, which every method may retry and which needs no {@code Retry-After} planning.
 */
public final class Drive {

	/** The pseudo-status of an attempt whose connection was refused. */
	public static final int REFUSED = 0;

	private Drive() {
	}

	/**
	 * Runs one GET operation whose attempts get the given statuses, in order (the last repeats).
	 * @return how the operation ended
	 */
	public static Outcome operation(RetryAfterProviders providers, String provider, FakeClock clock,
			HeaderSource headers, int... statuses) {
		RetryOperation operation = providers.get(provider)
			.orElseThrow()
			.engine()
			.start(OperationSpec.of("GET").withProvider(provider), Cancellation.create());
		int index = 0;
		while (true) {
			Permit permit = operation.beforeAttempt();
			if (permit instanceof Permit.Wait wait) {
				clock.sleep(Duration.ofNanos(wait.notBeforeNanos() - clock.read()), Cancellation.never());
				continue;
			}
			if (!(permit instanceof Permit.Proceed)) {
				break;
			}
			int status = statuses[Math.min(index++, statuses.length - 1)];
			long sent = clock.read();
			AttemptOutcome outcome = (status == REFUSED)
					? new AttemptOutcome.Failure(FailureKind.NOT_SENT, new ConnectException("refused"), sent, sent)
					: new AttemptOutcome.Response(status, headers, sent, sent);
			Decision decision = operation.afterAttempt(outcome);
			if (decision instanceof Decision.Retry retry) {
				clock.sleep(Duration.ofNanos(retry.notBeforeNanos() - clock.read()), Cancellation.never());
			}
		}
		return operation.outcome().orElseThrow();
	}

	/**
	 * Runs one GET operation whose attempts get the given statuses, without headers.
	 * @return how the operation ended
	 */
	public static Outcome operation(RetryAfterProviders providers, String provider, FakeClock clock,
			int... statuses) {
		return operation(providers, provider, clock, HeaderSource.empty(), statuses);
	}

}
