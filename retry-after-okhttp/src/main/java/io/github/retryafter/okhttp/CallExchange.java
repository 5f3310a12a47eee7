package io.github.retryafter.okhttp;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

import io.github.retryafter.BodySource;
import io.github.retryafter.Cancellation;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DrainBound;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.Ending;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.ReplaySafety;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;
import io.github.retryafter.request.ProviderRoute;

/**
 * One call's side of the core's {@link RetryLoop}, made only once its first attempt failed or was not sent at once
 * (the interceptor sends a first attempt itself): an attempt is {@code chain.proceed(request)} with OkHttp's connect,
 * read and write timeouts lowered to the engine's attempt timeout (unless the engine keeps the client's own: then a
 * first attempt keeps them, a retry has them lowered to what is left of the deadline); a failed response the engine retries is drained
 * within the core's {@link DrainBound} and closed ({@link FailedBodies}) before the wait, so {@code chain.proceed} may be called again; the
 * call's {@link Call#isCanceled()} is carried into the operation's {@link Cancellation} after every wait and on every
 * failure. Used by the call's thread only.
 */
final class CallExchange implements RetryLoop.Exchange<Response, Response, IOException> {

	private static final byte[] EMPTY = {};

	private final Interceptor.Chain chain;

	private final Request request;

	private final RetryOperation operation;

	private final ProviderRoute route;

	private final long maxReplayBody;

	private final long maxDrainBytes;

	private final CallObserver.Operation observed;

	private final Ticker ticker;

	private final WaitTracker waits;

	// whether the call's cancellation was given to the tracker, to be taken back when the call ends
	private boolean tracked;

	CallExchange(Interceptor.Chain chain, Request request, RetryOperation operation, ProviderRoute route,
			long maxReplayBody, long maxDrainBytes, CallObserver.Operation observed, Ticker ticker,
			WaitTracker waits) {
		this.chain = chain;
		this.request = request;
		this.operation = operation;
		this.route = route;
		this.maxReplayBody = maxReplayBody;
		this.maxDrainBytes = maxDrainBytes;
		this.observed = observed;
		this.ticker = ticker;
		this.waits = waits;
	}

	@Override
	public void beforeWait() {
		if (!this.tracked) {
			this.tracked = true;
			this.waits.waiting(this.operation.cancellation());
		}
	}

	/** Takes the call's cancellation back from the tracker, once, when the call ends whichever way. */
	void untrack() {
		if (this.tracked) {
			this.tracked = false;
			this.waits.ended(this.operation.cancellation());
		}
	}

	@Override
	public Response send(Permit.Proceed proceed) throws IOException {
		return proceed(this.chain, this.request, proceed, this.observed);
	}

	@Override
	public void retryScheduled(Decision.Retry retry) {
		this.observed.waiting(retry.delay(), retry.source().name());
	}

	@Override
	public void held(Permit.Wait wait) {
		this.observed.waiting(Duration.ofNanos(Math.max(0, wait.notBeforeNanos() - this.ticker.read())), "GATE");
	}

	/**
	 * Sends {@code request} once down {@code chain}, its timeouts lowered to the attempt's, with the retries before
	 * it in the provider's attempt header if it asks for one: the interceptor's first attempt and every one after it.
	 */
	static Response proceed(Interceptor.Chain chain, Request request, Permit.Proceed proceed,
			CallObserver.Operation observed) throws IOException {
		if (proceed.hasFields()) {
			Request.Builder fields = request.newBuilder();
			proceed.writeFields(fields::header);
			request = fields.build();
		}
		if (observed == CallObserver.Operation.NONE) {
			return proceed(chain, request, proceed);
		}
		Request.Builder traced = request.newBuilder();
		CallObserver.Attempt attempt = observed.attempt(proceed.attempt(), traced::header);
		try {
			Response response = proceed(chain, traced.build(), proceed);
			attempt.response(response.code());
			return response;
		}
		catch (IOException | RuntimeException ex) {
			attempt.failure(ex);
			throw ex;
		}
		finally {
			attempt.stop();
		}
	}

	/**
	 * Sends {@code request} once down {@code chain}, its timeouts lowered to the attempt's, or as the client has them
	 * when its own timeouts alone bound the attempt.
	 */
	private static Response proceed(Interceptor.Chain chain, Request request, Permit.Proceed proceed)
			throws IOException {
		if (proceed.clientTimeouts()) {
			return chain.proceed(request);
		}
		int millis = millis(proceed.timeout());
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
		return chain.proceed(request);
	}

	@Override
	public int status(Response response) {
		return response.code();
	}

	@Override
	public HeaderSource headers(Response response) {
		return headerSource(response);
	}

	/** A response's header fields as the engine reads them: OkHttp's own lists, no copy. */
	static HeaderSource headerSource(Response response) {
		return response.headers()::values;
	}

	@Override
	public BodySource body(Response response) {
		return bodySource(response, this.route);
	}

	/**
	 * A response's body as the engine reads it for a body hint field: a peek at its first bytes, leaving the body
	 * whole for the caller, and only for a refusal of a provider whose fields read the body.
	 */
	static BodySource bodySource(Response response, ProviderRoute route) {
		if (response.body() == null || !route.policy().planner().fields().readsBodyOf(response.code())) {
			return BodySource.none();
		}
		return (maxBytes) -> response.peekBody(maxBytes).bytes();
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
		FailedBodies.discard(response, DrainBound.window(drainWithin), this.maxDrainBytes);
	}

	/**
	 * The failed response the call ended on, its request tagged with how the call ended when retry-after has more
	 * to say than the response (it retried, stopped for a reason of its own, or the provider named an instant).
	 */
	static Response endedOn(Decision.Stop stop, Response response, String provider, RetryOperation operation) {
		if (!Ending.saysMore(operation, stop)) {
			return response;
		}
		RetryOutcomeException outcome = new RetryOutcomeException(stop, provider, operation.attempts(),
				operation.notBefore());
		return response.newBuilder()
			.request(response.request().newBuilder().tag(RetryOutcomeException.class, outcome).build())
			.build();
	}

	@Override
	public void afterWait() {
		watchCancel();
	}

	@Override
	public Response end(Decision.Stop stop, Response response, Throwable failure) throws IOException {
		if (response != null) {
			return endedOn(stop, response, this.route.name(), this.operation);
		}
		RequestBody body = this.request.body();
		Decision.Stop explained = (body != null && !this.operation.spec().replayable())
				? ReplaySafety.explained(stop, unreplayable(body)) : stop;
		RetryOutcomeException outcome = new RetryOutcomeException(explained, this.route.name(),
				this.operation.attempts(), this.operation.notBefore());
		Throwable thrown = Ending.attach(failure, outcome);
		if (thrown instanceof IOException io) {
			throw io;
		}
		if (thrown instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (thrown instanceof Error error) {
			throw error;
		}
		throw new IOException(thrown);
	}

	@Override
	public Response interrupted(Decision.Stop stop, Response response, Throwable failure,
			InterruptedException interruption) throws InterruptedIOException {
		InterruptedIOException interrupted = new InterruptedIOException(
				"interrupted while waiting to retry; no further request was sent");
		interrupted.initCause(interruption);
		throw interrupted;
	}

	/** Says why a body is not replayed, and what to do: asked only when a call ends without a response. */
	private String unreplayable(RequestBody body) throws IOException {
		if (body.isOneShot()) {
			return "the request body is one-shot (RequestBody.isOneShot()), so it was sent once; send a body OkHttp"
					+ " may write again (RequestBody.create(...)) to make the request retryable";
		}
		long length = body.contentLength();
		if (length < 0) {
			return "the request body's length is unknown (contentLength() is -1), so it was sent once; give the body"
					+ " its length to make the request retryable";
		}
		return "the request body (" + length + " bytes) is larger than maxReplayBody ("
				+ Math.min(this.maxReplayBody, this.route.maxReplayBodyBytes()) + " bytes), so it was sent once; raise"
				+ " RetryAfterInterceptor.Builder.maxReplayBody(...) or the provider's bound";
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
