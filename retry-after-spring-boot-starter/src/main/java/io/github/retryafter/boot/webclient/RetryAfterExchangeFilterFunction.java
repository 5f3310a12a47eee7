package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.AttemptTimeouts;
import io.github.retryafter.boot.ProviderSettings;
import io.github.retryafter.boot.RetryAfterOperations;
import io.github.retryafter.boot.RetryAfterOperations.Prepared;
import io.github.retryafter.boot.RetryAfterOperations.Started;
import io.github.retryafter.boot.StandInResponse;
import io.github.retryafter.boot.observation.RetryAfterObservations.AttemptObservation;
import io.github.retryafter.boot.observation.RetryAfterObservations.OperationObservation;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.DrainBound;
import io.github.retryafter.engine.FailureKind;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryOperation;

/**
 * A WebClient filter that retries the careful way: it asks the provider's engine after every attempt, waits without
 * blocking on an injectable {@link Scheduler}, re-arming against the deadline on the engine's {@link Ticker} (a timer
 * that fires early costs an extra delay, never an early retry), and gives the caller the final response unchanged.
 * When the provider's gate holds a request ({@link Permit.Wait}: the provider is cooling down, or the request has a
 * slot in its rate), it waits the same way, on the scheduler, and asks again: no thread is held per waiting request.
 * <p>
 * <b>Bodies sent.</b> A request with a body has it recorded as the first attempt writes it ({@link RecordedBody}), at
 * most {@link ProviderSettings#maxReplayBodyBytes()}, and every retry writes exactly those bytes: a body read once
 * from a stream is never sent again empty or short. A body that was larger, streamed with flushes, failed or was still
 * being written when the response came back ends the operation {@code NOT_RETRYABLE} with a reason saying how to make
 * it retryable. A request without a body is sent as it is, at no extra cost.
 * <p>
 * <b>Bodies received.</b> A failed response that is retried has its body read and released ({@link Drain}) at most
 * {@link ProviderSettings#maxDrainBytes()}, for at most {@link DrainBound#MAX}, and never past the
 * instant its retry is due; a body that does not end by then is cancelled, which makes Reactor Netty close its
 * connection instead of returning it to the pool. Every response is released on every path: when the engine or a
 * listener throws, and when the subscriber cancels while a response is arriving.
 * <p>
 * Cancelling the subscriber ends the operation as {@code CANCELLED}, once, whatever it races with, and sends no
 * further request. For virtual-time tests, give it a {@code VirtualTimeScheduler} and a ticker reading that
 * scheduler's clock. Thread-safe.
 */
public final class RetryAfterExchangeFilterFunction implements ExchangeFilterFunction {

	/** The least time a failed response handed to the caller is given to deliver its body. */
	public static final Duration FINAL_BODY_GRACE = Duration.ofMillis(50);

	private final RetryAfterOperations operations;

	private final Ticker ticker;

	private final Scheduler scheduler;

	/** The bounds of this filter's attempts in flight, on the scheduler and the ticker. */
	private final AttemptTimeouts timeouts;

	/**
	 * Creates the filter.
	 * @param operations prepares the operation of each request
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param scheduler where waits, attempt timeouts and drain bounds are scheduled
	 */
	public RetryAfterExchangeFilterFunction(RetryAfterOperations operations, Ticker ticker, Scheduler scheduler) {
		this.operations = Objects.requireNonNull(operations, "operations");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.timeouts = new AttemptTimeouts(ticker, (task, delayNanos) -> {
			Disposable wake = scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
			return wake::dispose;
		});
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		boolean bodyless = request.body() == BodyInserters.empty();
		Prepared prepared = this.operations.prepare(request.method().name(), request.url(), request.headers(),
				HttpHeaders::getFirst, request.attributes(),
				bodyless ? 0 : RetryAfterOperations.BODY_RECORDED_WHEN_SENT);
		if (prepared.disabled()) {
			return next.exchange(request);
		}
		ClientRequest keyed = request;
		if (prepared.headerToAdd().isPresent()) {
			Map.Entry<String, String> header = prepared.headerToAdd().get();
			keyed = ClientRequest.from(request).header(header.getKey(), header.getValue()).build();
		}
		return new OperationMono(prepared, keyed, next, bodyless);
	}

	/**
	 * One logical operation per subscription: starts it, and runs its attempts.
	 */
	private final class OperationMono extends Mono<ClientResponse> {

		/** Returns the filter, for the runs of this operation. */
		RetryAfterExchangeFilterFunction filter() {
			return RetryAfterExchangeFilterFunction.this;
		}

		private final Prepared prepared;

		private final ClientRequest request;

		private final ExchangeFunction next;

		private final boolean bodyless;

		OperationMono(Prepared prepared, ClientRequest request, ExchangeFunction next, boolean bodyless) {
			this.prepared = prepared;
			this.request = request;
			this.next = next;
			this.bodyless = bodyless;
		}

		@Override
		public void subscribe(CoreSubscriber<? super ClientResponse> actual) {
			Observation parent = actual.currentContext().getOrDefault(ObservationThreadLocalAccessor.KEY, null);
			Started started = RetryAfterExchangeFilterFunction.this.operations.start(this.prepared,
					this.request.url(), parent);
			RecordedBody body = this.bodyless ? null
					: new RecordedBody(this.prepared.provider().settings().maxReplayBodyBytes());
			Run run = new Run(actual, this, started, body);
			actual.onSubscribe(run);
			Publisher<ClientResponse> attempts;
			try {
				attempts = run.attempt(null);
			}
			catch (RuntimeException | Error ex) {
				run.onError(ex);
				return;
			}
			attempts.subscribe(run);
		}

	}

	/**
	 * One logical operation in flight, and the caller's subscription to it. The chain of attempts emits nothing: the
	 * final response is handed to the caller by {@link #deliver}, which releases it instead if the caller has
	 * cancelled (the race is settled by {@link Operators.MonoSubscriber}). Every call into the engine's
	 * {@link RetryOperation}, which is not thread-safe, is made holding this object's monitor, so a cancel from
	 * the caller's thread cannot interleave with a response being decided on an event loop. It reaches the filter,
	 * the request and the exchange through its {@link OperationMono}, so it holds one reference for the three.
	 */
	private static final class Run extends Operators.MonoSubscriber<ClientResponse, ClientResponse>
			implements TimedExchange.Owner {

		private final OperationMono mono;

		private final Started started;

		/** The first attempt's body as written; {@code null} for a request without a body. */
		private final RecordedBody body;

		private volatile Subscription upstream;

		/** Whether the caller cancelled; guarded by this object's monitor. */
		private boolean cancelled;

		/** The response of the attempt in flight, from its arrival until it is claimed; guarded by the monitor. */
		private ClientResponse arrived;

		Run(CoreSubscriber<? super ClientResponse> actual, OperationMono mono, Started started, RecordedBody body) {
			super(actual);
			this.mono = mono;
			this.started = started;
			this.body = body;
		}

		private RetryAfterExchangeFilterFunction filter() {
			return this.mono.filter();
		}

		@Override
		public AttemptTimeouts timeouts() {
			return filter().timeouts;
		}

		private RetryOperation operation() {
			return this.started.operation();
		}

		private long maxDrainBytes() {
			return this.started.prepared().provider().settings().maxDrainBytes();
		}

		/**
		 * Sends the next attempt.
		 * @param previous the status and headers of the previous failed response, returned (with an empty body) if
		 * the engine refuses this attempt: the original's body was released before the wait
		 */
		Publisher<ClientResponse> attempt(StandInResponse previous) {
			Permit permit = ask();
			if (permit instanceof Permit.Wait wait) {
				// held at the gate: ask again each time the wait ends, in one loop at one level (no chain that grows)
				observeHold(wait);
				RetryAfterExchangeFilterFunction filter = filter();
				return TickerWait.<Permit>until(wait.notBeforeNanos(), filter.ticker, filter.scheduler,
						this.started.cancellation(), this::askAgain)
					.flatMap((admitted) -> Mono.fromDirect(send(admitted, previous)));
			}
			return (permit != null) ? send(permit, previous) : Mono.empty();
		}

		/** The engine's permit for the next attempt, or {@code null} once the caller has cancelled. */
		private Permit ask() {
			synchronized (this) {
				return this.cancelled ? null : operation().beforeAttempt();
			}
		}

		/** A wake of a request held at the gate: waits again while the gate holds, else hands the permit on. */
		private OptionalLong askAgain(MonoSink<Permit> sink) {
			Permit permit = ask();
			if (permit instanceof Permit.Wait wait) {
				observeHold(wait);
				return OptionalLong.of(wait.notBeforeNanos());
			}
			if (permit == null) {
				sink.success();
			}
			else {
				sink.success(permit);
			}
			return OptionalLong.empty();
		}

		private void observeHold(Permit.Wait wait) {
			this.started.beforeWait();
			this.started.held(wait, filter().ticker.read());
		}

		/** Sends the attempt the engine admitted, or ends the operation it refused. */
		private Publisher<ClientResponse> send(Permit permit, StandInResponse previous) {
			if (permit instanceof Permit.Refused refused) {
				return stopped(refused.stop(), (previous != null) ? EndedClientResponse.of(previous) : null, null);
			}
			Permit.Proceed proceed = (Permit.Proceed) permit;
			OperationObservation operation = this.started.observation();
			// without an observation there are no trace headers to write: no carrier is made for them
			Map<String, String> trace = operation.isObserved() ? new LinkedHashMap<>() : Map.of();
			AttemptObservation observed = operation.isObserved() ? operation.attempt(proceed.attempt(), trace::put)
					: AttemptObservation.none();
			ClientRequest attemptRequest = requestFor(proceed, trace);
			long sentAt = filter().ticker.read();
			return new TimedExchange(this.mono.next.exchange(attemptRequest), proceed.bound().orElse(null), observed,
					this, sentAt);
		}

		/**
		 * Takes ownership of a response as it leaves the exchange, before any operator that may drop it (a timeout
		 * firing, a cancel): from here exactly one of {@link #onResponse}, {@link #onFailure} (the timeout won) and
		 * {@link #cancel()} claims it, under the monitor, and the one that does not deliver it releases it.
		 */
		@Override
		public void arrived(ClientResponse response) {
			synchronized (this) {
				if (this.cancelled) {
					Drain.discard(response);
				}
				else {
					this.arrived = response;
				}
			}
		}

		/** Releases the response that arrived and was not claimed; call holding the monitor. */
		private void releaseUnclaimed() {
			ClientResponse unclaimed = this.arrived;
			if (unclaimed != null) {
				this.arrived = null;
				Drain.discard(unclaimed);
			}
		}

		/**
		 * The request with the fields the permit says the attempt carries and the attempt's trace context; the first
		 * attempt records its body as it writes it, every later one writes the recording.
		 */
		private ClientRequest requestFor(Permit.Proceed proceed, Map<String, String> trace) {
			ClientRequest request = (!proceed.hasFields() && trace.isEmpty()) ? this.mono.request
					: ClientRequest.from(this.mono.request).headers((headers) -> {
						proceed.writeFields(headers::set);
						trace.forEach(headers::set);
					}).build();
			if (this.body == null) {
				return request;
			}
			return (proceed.attempt() == 1) ? this.body.recording(request) : this.body.replaying(request);
		}

		@Override
		public Mono<ClientResponse> onResponse(ClientResponse response, HeaderSource headers, long sentAt) {
			long receivedAt = filter().ticker.read();
			Decision decision;
			try {
				synchronized (this) {
					if (this.cancelled || this.arrived != response) {
						return Mono.empty();
					}
					this.arrived = null;
					AttemptOutcome outcome = new AttemptOutcome.Response(response.statusCode().value(), headers,
							sentAt, receivedAt);
					Optional<Decision.Stop> stop = unreplayable(outcome);
					decision = stop.isPresent() ? stop.get() : operation().afterAttempt(outcome);
				}
			}
			catch (RuntimeException | Error ex) {
				Drain.discard(response);
				return Mono.error(ex);
			}
			if (decision instanceof Decision.Retry retry) {
				this.started.retryScheduled(retry);
				StandInResponse failed = StandInResponse.of(response.statusCode(), "",
						response.headers().asHttpHeaders(), response.request());
				return drain(response, retry.notBeforeNanos()).then(waitUntil(retry.notBeforeNanos()))
					.then(Mono.defer(() -> Mono.fromDirect(attempt(failed))));
			}
			return stopped((Decision.Stop) decision, response, null);
		}

		@Override
		public Mono<ClientResponse> onFailure(Throwable failure, long sentAt) {
			Decision decision;
			synchronized (this) {
				releaseUnclaimed();
				if (this.cancelled) {
					return Mono.empty();
				}
				long failedAt = filter().ticker.read();
				Optional<FailureKind> kind = FailureKind.classify(failure);
				AttemptOutcome outcome = kind.map((k) -> new AttemptOutcome.Failure(k, failure, sentAt, failedAt))
					.orElse(null);
				Optional<Decision.Stop> stop = unreplayable(outcome);
				decision = stop.isPresent() ? stop.get() : operation().afterFailure(failure, kind, sentAt, failedAt);
			}
			if (decision instanceof Decision.Retry retry) {
				this.started.retryScheduled(retry);
				return waitUntil(retry.notBeforeNanos()).then(Mono.defer(() -> Mono.fromDirect(attempt(null))));
			}
			return stopped((Decision.Stop) decision, null, failure);
		}

		/** Ends the operation when its body cannot be sent again ({@link RecordedBody#refusal}); free without one. */
		private Optional<Decision.Stop> unreplayable(AttemptOutcome outcome) {
			return (this.body == null || outcome == null) ? Optional.empty()
					: this.body.refusal(this.started.prepared().provider().engine(), operation(), outcome);
		}

		/**
		 * Reads the failed body within its bounds: at most max-drain bytes, for at most the drain timeout, and never
		 * past the instant the retry is due.
		 */
		private Mono<Void> drain(ClientResponse response, long notBeforeNanos) {
			Duration window = DrainBound.window(notBeforeNanos, filter().ticker.read());
			return Drain.of(response, maxDrainBytes(), window, filter().scheduler);
		}

		private Mono<ClientResponse> stopped(Decision.Stop stop, ClientResponse response, Throwable failure) {
			try {
				this.started.report(stop);
			}
			catch (RuntimeException | Error ex) {
				if (response != null) {
					Drain.discard(response);
				}
				return Mono.error(ex);
			}
			if (response != null) {
				deliver((stop.outcome() == Outcome.SUCCESS) ? response : ended(stop, bounded(response)));
				return Mono.empty();
			}
			return Mono.error(this.started.endedWithout(stop, failure));
		}

		/**
		 * Bounds the body of a failed response the operation ends on by the operation's deadline (or
		 * {@link #FINAL_BODY_GRACE} when less is left). A successful response's body is the caller's, and is not
		 * bounded.
		 */
		private ClientResponse bounded(ClientResponse response) {
			RetryAfterExchangeFilterFunction filter = filter();
			long endNanos = Math.max(operation().deadlineNanos(), filter.ticker.read() + FINAL_BODY_GRACE.toNanos());
			return EndedClientResponse.bounded(response, endNanos, filter.ticker, filter.scheduler);
		}

		/** The failed response the operation ended on, carrying how it ended when that says more than it does. */
		private ClientResponse ended(Decision.Stop stop, ClientResponse response) {
			return this.started.endedOn(stop).<ClientResponse>map((outcome) -> new EndedClientResponse(response, outcome))
				.orElse(response);
		}

		/** Hands the final response to the caller, or releases it if the caller has cancelled. */
		private void deliver(ClientResponse response) {
			complete(response);
		}

		@Override
		protected void discard(ClientResponse response) {
			if (response != null) {
				Drain.discard(response);
			}
		}

		/**
		 * Completes once the ticker has reached {@code deadlineNanos}, re-arming if a timer fires early, or at once
		 * when the operation is cancelled (the next {@code beforeAttempt} then refuses). The cancellation callback
		 * lives as long as the wait: it is removed when the wait ends, however it ends.
		 */
		private Mono<Void> waitUntil(long deadlineNanos) {
			this.started.beforeWait();
			RetryAfterExchangeFilterFunction filter = filter();
			return TickerWait.until(deadlineNanos, filter.ticker, filter.scheduler, this.started.cancellation(),
					(sink) -> {
						sink.success();
						return OptionalLong.empty();
					});
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				if (isCancelled()) {
					subscription.cancel();
					return;
				}
				subscription.request(Long.MAX_VALUE);
			}
		}

		@Override
		public void onNext(ClientResponse response) {
			deliver(response);
		}

		@Override
		public void onComplete() {
			this.started.end();
		}

		@Override
		public void onError(Throwable failure) {
			this.started.end();
			if (isCancelled()) {
				Operators.onErrorDropped(failure, currentContext());
				return;
			}
			this.actual.onError(failure);
		}

		@Override
		public void cancel() {
			synchronized (this) {
				releaseUnclaimed();
				if (!this.cancelled) {
					this.cancelled = true;
					operation().cancel();
				}
			}
			super.cancel();
			Subscription subscription = this.upstream;
			if (subscription != null) {
				subscription.cancel();
			}
			this.started.end();
		}

	}

}
