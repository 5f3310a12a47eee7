package io.github.retryafter.engine;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * What an I/O failure means for the request's side effects, which is what decides whether it may be replayed.
 */
public enum FailureKind {

	/** The request never left (connection refused, DNS failure): nothing was applied, so any method may be retried. */
	NOT_SENT,

	/** The request was sent and no response came back (connection reset, response lost): it may have been applied. */
	OUTCOME_UNKNOWN,

	/** The attempt timed out after sending: it may have been applied. */
	TIMED_OUT;

	/**
	 * The one classifier every adapter uses: it walks {@code failure} and its causes (transports wrap the JDK's
	 * exceptions: Spring's {@code ResourceAccessException}, {@code WebClientRequestException}, Reactor Netty's), and
	 * the first exception that says more than "I/O failed" decides:
	 * <ul>
	 * <li>{@link ConnectException} (Netty's {@code ConnectTimeoutException} is one), {@link UnknownHostException},
	 * {@link NoRouteToHostException}, {@link HttpConnectTimeoutException}: {@link #NOT_SENT};</li>
	 * <li>{@link SocketTimeoutException}, {@link HttpTimeoutException}, {@link TimeoutException} (Reactor's
	 * {@code timeout} operator raises it): {@link #TIMED_OUT};</li>
	 * <li>otherwise, when any exception in the chain is an {@link IOException} (a reset, a premature close):
	 * {@link #OUTCOME_UNKNOWN};</li>
	 * <li>otherwise (a codec error, a bug) it is not an I/O failure: empty, and the operation stops
	 * {@link Outcome#NOT_RETRYABLE}.</li>
	 * </ul>
	 * A cause chain that loops back on itself is read once. Stateless and thread-safe.
	 * @param failure what an attempt threw
	 * @return what it means for side effects, or empty when it is not an I/O failure
	 */
	public static Optional<FailureKind> classify(Throwable failure) {
		boolean io = false;
		int depth = 0;
		for (Throwable each = failure; each != null && depth < MAX_CAUSES; each = each.getCause(), depth++) {
			if (each instanceof ConnectException || each instanceof UnknownHostException
					|| each instanceof NoRouteToHostException || each instanceof HttpConnectTimeoutException) {
				return Optional.of(NOT_SENT);
			}
			if (each instanceof SocketTimeoutException || each instanceof HttpTimeoutException
					|| each instanceof TimeoutException) {
				return Optional.of(TIMED_OUT);
			}
			io = io || each instanceof IOException;
		}
		return io ? Optional.of(OUTCOME_UNKNOWN) : Optional.empty();
	}

	/** How deep {@link #classify} reads a cause chain: enough for any transport's wrapping, bounded against cycles. */
	private static final int MAX_CAUSES = 16;

}
