package io.github.retryafter.engine;

import java.util.Objects;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.hint.ResponseHints;

/**
 * What one attempt produced: a response with a status and headers, or an I/O failure classified by what it means for
 * the request's side effects. Timestamps are readings of the engine's monotonic {@code Ticker}.
 */
public sealed interface AttemptOutcome {

	/**
	 * Returns when the request was sent.
	 * @return a ticker reading
	 */
	long sentAtNanos();

	/**
	 * A response arrived. Its header fields are wrapped once, here, in {@link ResponseHints}: every decision about
	 * the response reads its hints, so each hint field is read and parsed once however many parts look at it.
	 * @param status the HTTP status code
	 * @param hints the response's hint fields
	 * @param sentAtNanos when the request was sent
	 * @param receivedAtNanos when the response arrived
	 */
	record Response(int status, ResponseHints hints, long sentAtNanos, long receivedAtNanos) implements AttemptOutcome {

		/**
		 * Checks the arguments.
		 * @param status the HTTP status code
		 * @param hints the response's hint fields
		 * @param sentAtNanos when the request was sent
		 * @param receivedAtNanos when the response arrived
		 */
		public Response {
			Objects.requireNonNull(hints, "hints");
			if (status < 100 || status > 999) {
				throw new IllegalArgumentException("status must be a three-digit HTTP status but was " + status);
			}
		}

		/**
		 * Wraps a response's header fields in its {@link ResponseHints}.
		 * @param status the HTTP status code
		 * @param headers the response's header fields
		 * @param sentAtNanos when the request was sent
		 * @param receivedAtNanos when the response arrived
		 */
		public Response(int status, HeaderSource headers, long sentAtNanos, long receivedAtNanos) {
			this(status, ResponseHints.of(headers), sentAtNanos, receivedAtNanos);
		}

		/**
		 * Returns the raw header fields, for a {@link ResponseClassifier} that reads a field the hints do not parse;
		 * the same as {@code hints().headers()}.
		 * @return the response's header fields
		 */
		public HeaderSource headers() {
			return this.hints.headers();
		}

	}

	/**
	 * No response arrived.
	 * @param kind what the failure means for side effects
	 * @param cause the underlying exception, for the caller
	 * @param sentAtNanos when the request was sent (or was about to be)
	 * @param failedAtNanos when the failure was observed
	 */
	record Failure(FailureKind kind, Throwable cause, long sentAtNanos, long failedAtNanos) implements AttemptOutcome {

		/**
		 * Checks the arguments.
		 * @param kind what the failure means for side effects
		 * @param cause the underlying exception, for the caller
		 * @param sentAtNanos when the request was sent (or was about to be)
		 * @param failedAtNanos when the failure was observed
		 */
		public Failure {
			Objects.requireNonNull(kind, "kind");
			Objects.requireNonNull(cause, "cause");
		}

	}

}
