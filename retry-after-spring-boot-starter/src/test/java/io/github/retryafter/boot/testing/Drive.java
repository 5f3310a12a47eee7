package io.github.retryafter.boot.testing;

import java.net.ConnectException;
import java.net.URI;
import java.util.Map;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.test.FakeClock;

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
		return run(operation, clock, headers, statuses);
	}

	/**
	 * Runs one GET operation to {@code uri}, routed as the starter routes a request (its provider, and its origin
	 * when that provider keeps its state per origin), whose attempts get the given statuses, in order.
	 * @return how the operation ended
	 */
	public static Outcome operation(RetryAfterOperations operations, URI uri, FakeClock clock, HeaderSource headers,
			int... statuses) {
		RetryAfterOperations.Prepared prepared = operations.prepare("GET", uri, (name) -> null, Map.of(), 0);
		RetryOperation operation = prepared.provider().engine().start(prepared.spec(), Cancellation.create());
		return run(operation, clock, headers, statuses);
	}

	private static Outcome run(RetryOperation operation, FakeClock clock, HeaderSource headers, int... statuses) {
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
