package io.github.retryafter.boot;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import io.github.retryafter.engine.FailureKind;

/**
 * Reads what a transport exception means for the request's side effects. Only I/O failures and timeouts are
 * classified; anything else (a codec error, a bug) is not retried.
 */
public final class IoFailures {

	private IoFailures() {
	}

	/**
	 * Classifies an exception from one attempt, looking through its causes.
	 * @param failure the exception
	 * @return what it means for side effects, or empty when it is not a transport failure
	 */
	public static Optional<FailureKind> classify(Throwable failure) {
		boolean io = false;
		for (Throwable each = failure; each != null; each = (each.getCause() == each) ? null : each.getCause()) {
			if (each instanceof ConnectException || each instanceof UnknownHostException
					|| each instanceof NoRouteToHostException || each instanceof HttpConnectTimeoutException) {
				return Optional.of(FailureKind.NOT_SENT);
			}
			if (each instanceof TimeoutException || each instanceof SocketTimeoutException
					|| each instanceof HttpTimeoutException) {
				return Optional.of(FailureKind.TIMED_OUT);
			}
			io = io || each instanceof IOException;
		}
		return io ? Optional.of(FailureKind.OUTCOME_UNKNOWN) : Optional.empty();
	}

}
