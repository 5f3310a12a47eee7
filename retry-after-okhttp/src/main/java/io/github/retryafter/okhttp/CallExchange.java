package io.github.retryafter.okhttp;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.ReplaySafety;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;

/**
 * One call's side of the core's {@link RetryLoop}: an attempt is {@code chain.proceed(request)} with OkHttp's connect,
 * read and write timeouts lowered to the engine's attempt timeout; a failed response the engine retries is drained
 * within its bound and closed ({@link FailedBodies}) before the wait, so {@code chain.proceed} may be called again; the
 * call's {@link Call#isCanceled()} is carried into the operation's {@link Cancellation} after every wait and on every
 * failure. Used by the call's thread only.
 */
final class CallExchange implements RetryLoop.Exchange<Response, Response, IOException> {

	private static final byte[] EMPTY = {};

	private final Interceptor.Chain chain;

	private final Request request;

	private final RetryOperation operation;

	private final String provider;

	private final long maxDrainBytes;

	/** Why the body cannot be replayed, and what to do; {@code null} when it can be. */
	private final String bodyProblem;

	/** The header each attempt's retry count is sent in; {@code null} when the provider asks for none. */
	private final String attemptHeader;

	CallExchange(Interceptor.Chain chain, Request request, RetryOperation operation, String provider,
			long maxDrainBytes, String bodyProblem, String attemptHeader) {
		this.chain = chain;
		this.request = request;
		this.operation = operation;
		this.provider = provider;
		this.maxDrainBytes = maxDrainBytes;
		this.bodyProblem = bodyProblem;
		this.attemptHeader = attemptHeader;
	}

	@Override
	public Response send(Permit.Proceed proceed) throws IOException {
		int millis = millis(proceed.timeout());
		Interceptor.Chain chain = this.chain;
		// each with*Timeout copies the chain: only a timeout the attempt actually lowers is set
		int connect = lower(chain.connectTimeoutMillis(), millis);
		if (connect != chain.connectTimeoutMillis()) {
			chain = chain.withConnectTimeout(connect, TimeUnit.MILLISECONDS);
		}
		int read = lower(chain.readTimeoutMillis(), millis);
		if (read != chain.readTimeoutMillis()) {
			chain = chain.withReadTimeout(read, TimeUnit.MILLISECONDS);
		}
		int write = lower(chain.writeTimeoutMillis(), millis);
		if (write != chain.writeTimeoutMillis()) {
			chain = chain.withWriteTimeout(write, TimeUnit.MILLISECONDS);
		}
		return chain.proceed(counted(proceed.attempt()));
	}

	/** The request with the retries before this attempt in the provider's attempt header, if it asks for one. */
	private Request counted(int attempt) {
		String header = this.attemptHeader;
		return (header == null) ? this.request
				: this.request.newBuilder().header(header, Integer.toString(attempt - 1)).build();
	}

	@Override
	public int status(Response response) {
		return response.code();
	}

	@Override
	public HeaderSource headers(Response response) {
		return response.headers()::values;
	}

	@Override
	public Optional<FailureKind> classify(Throwable failure) {
		// a cancelled call fails its attempt with IOException("Canceled"): the operation ends CANCELLED, not retried
		watchCancel();
		return FailureKind.classify(failure);
	}

	/** What the caller gets if the engine refuses the retry after the wait: the status and fields, an empty body. */
	@Override
	public Response standIn(Response response) {
		ResponseBody body = response.body();
		return response.newBuilder()
			.removeHeader("Content-Length")
			.body(ResponseBody.create(EMPTY, (body != null) ? body.contentType() : null))
			.build();
	}

	@Override
	public void discard(Response response) {
		FailedBodies.discard(response, Duration.ZERO, 0);
	}

	@Override
	public void discard(Response response, Duration drainWithin) {
		FailedBodies.discard(response, drainWithin, this.maxDrainBytes);
	}

	@Override
	public void afterWait() {
		watchCancel();
	}

	@Override
	public Response end(Decision.Stop stop, Response response, Throwable failure) throws IOException {
		if (response != null) {
			return response;
		}
		Decision.Stop explained = (this.bodyProblem != null) ? ReplaySafety.explained(stop, this.bodyProblem) : stop;
		RetryOutcomeException outcome = new RetryOutcomeException(explained, this.provider,
				this.operation.attempts());
		if (failure == null) {
			throw outcome;
		}
		failure.addSuppressed(outcome);
		if (failure instanceof IOException io) {
			throw io;
		}
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		throw new IOException(failure);
	}

	@Override
	public Response interrupted(Decision.Stop stop, Response response, Throwable failure,
			InterruptedException interruption) throws InterruptedIOException {
		InterruptedIOException interrupted = new InterruptedIOException(
				"interrupted while waiting to retry; no further request was sent");
		interrupted.initCause(interruption);
		throw interrupted;
	}

	/** Carries a cancelled call into the operation, whose next {@code beforeAttempt()} then refuses. */
	private void watchCancel() {
		if (this.chain.call().isCanceled()) {
			this.operation.cancellation().cancel();
		}
	}

	/** An attempt's timeout in OkHttp's whole milliseconds: at least 1 (0 means none to OkHttp), at most an int. */
	static int millis(Duration timeout) {
		if (timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) >= 0) {
			return Integer.MAX_VALUE;
		}
		long millis = timeout.toMillis() + ((timeout.toNanos() % 1_000_000 > 0) ? 1 : 0);
		return (int) Math.max(1, millis);
	}

	/** The lower of the client's timeout and the attempt's; the client's {@code 0} means no timeout. */
	static int lower(int client, int attempt) {
		return (client == 0) ? attempt : Math.min(client, attempt);
	}

}
