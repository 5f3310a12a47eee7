package io.github.retryafter.boot.testing;

import java.net.ConnectException;

import io.github.retryafter.simulator.FakeClock;
import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;

/**
 * Drives one real {@link RetryOperation} of a provider's engine through scripted attempts on the core's
 * {@link RetryLoop}, waiting on the test clock (so nothing really waits) for retries and for the provider's gate. A
 * status of {@link #REFUSED} stands for a connection refused: an I/O failure before the request was sent, which every
 * method may retry and which needs no {@code Retry-After} planning.
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
		return RetryLoop.of(clock, clock).run(operation, new RetryLoop.Exchange<Integer, Outcome, RuntimeException>() {

			@Override
			public Integer send(Permit.Proceed proceed) throws ConnectException {
				int status = statuses[Math.min(proceed.attempt(), statuses.length) - 1];
				if (status == REFUSED) {
					throw new ConnectException("refused");
				}
				return status;
			}

			@Override
			public int status(Integer response) {
				return response;
			}

			@Override
			public HeaderSource headers(Integer response) {
				return headers;
			}

			@Override
			public Outcome end(Decision.Stop stop, Integer response, Throwable failure) {
				return stop.outcome();
			}

		});
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
