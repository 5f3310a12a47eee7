package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Consumer;

import org.reactivestreams.Subscription;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import io.github.retryafter.boot.AttemptTimeouts;
import io.github.retryafter.boot.observation.RetryAfterObservations.AttemptObservation;

/**
 * One attempt's exchange, bounded by the attempt's time and observed: it emits one {@link Result}, the response or
 * what failed (a {@link TimeoutException} when the bound came first), or completes empty if the exchange did. One
 * operator and one subscriber in place of a chain of map, timeout, three peeks and an error resume, and its bound
 * costs a link in {@link AttemptTimeouts}, not a scheduled task: an attempt answered in time schedules nothing.
 * <p>
 * The response is handed to {@code arrived} as it leaves the exchange, before the bound may drop it, so that its
 * owner can release it whichever way the attempt ends. Subscribed once.
 */
final class TimedExchange extends Mono<TimedExchange.Result> {

	private final Mono<ClientResponse> exchange;

	private final Duration bound;

	private final AttemptTimeouts timeouts;

	private final AttemptObservation observation;

	private final Consumer<ClientResponse> arrived;

	/**
	 * Creates the attempt.
	 * @param exchange sends the attempt
	 * @param bound the time the attempt is given
	 * @param timeouts where the bound is armed
	 * @param observation told of the response, the failure, or a cancel
	 * @param arrived takes ownership of the response as it arrives
	 */
	TimedExchange(Mono<ClientResponse> exchange, Duration bound, AttemptTimeouts timeouts,
			AttemptObservation observation, Consumer<ClientResponse> arrived) {
		this.exchange = exchange;
		this.bound = bound;
		this.timeouts = timeouts;
		this.observation = observation;
		this.arrived = arrived;
	}

	@Override
	public void subscribe(CoreSubscriber<? super Result> actual) {
		this.exchange.subscribe(new Attempt(actual, this));
	}

	/**
	 * What an attempt ended with: a response, or what it threw.
	 *
	 * @param response the response, {@code null} if it failed
	 * @param failure what failed, {@code null} if a response arrived
	 */
	record Result(ClientResponse response, Throwable failure) {

		static Result response(ClientResponse response) {
			return new Result(response, null);
		}

		static Result failure(Throwable failure) {
			return new Result(null, failure);
		}

	}

	/**
	 * The subscriber to the exchange, the subscription of the attempt's subscriber, and the attempt's bound. Whichever
	 * of the exchange's signal, the bound and a cancel comes first ends the attempt; the others do nothing.
	 */
	private static final class Attempt extends AttemptTimeouts.Timeout
			implements CoreSubscriber<ClientResponse>, Subscription {

		private static final AtomicIntegerFieldUpdater<Attempt> STATE = AtomicIntegerFieldUpdater
			.newUpdater(Attempt.class, "state");

		private static final int RUNNING = 0;

		private static final int ENDED = 1;

		private final CoreSubscriber<? super Result> actual;

		private final TimedExchange attempt;

		private Subscription upstream;

		private volatile int state;

		Attempt(CoreSubscriber<? super Result> actual, TimedExchange attempt) {
			this.actual = actual;
			this.attempt = attempt;
		}

		@Override
		public Context currentContext() {
			return this.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				this.actual.onSubscribe(this);
				if (this.state == RUNNING) {
					this.attempt.timeouts.arm(this, this.attempt.bound);
					if (this.state != RUNNING) {
						this.attempt.timeouts.disarm(this);
					}
				}
			}
		}

		@Override
		public void onNext(ClientResponse response) {
			this.attempt.arrived.accept(response);
			if (!end()) {
				Operators.onNextDropped(response, currentContext());
				return;
			}
			Result result;
			try {
				this.attempt.observation.response(response.statusCode().value());
				result = Result.response(response);
			}
			catch (RuntimeException ex) {
				this.attempt.observation.failure(ex);
				result = Result.failure(ex);
			}
			this.actual.onNext(result);
			this.actual.onComplete();
		}

		@Override
		public void onError(Throwable failure) {
			if (!end()) {
				Operators.onErrorDropped(failure, currentContext());
				return;
			}
			failed(failure);
		}

		@Override
		public void onComplete() {
			if (end()) {
				this.actual.onComplete();
			}
		}

		/** The bound came first: the exchange is cancelled and the attempt fails as Reactor's timeout would. */
		@Override
		protected void expired() {
			if (STATE.compareAndSet(this, RUNNING, ENDED)) {
				this.upstream.cancel();
				failed(new TimeoutException("Did not observe any item or terminal signal within "
						+ this.attempt.bound.toMillis() + "ms in 'map' (and no fallback has been configured)"));
			}
		}

		@Override
		public void request(long n) {
			this.upstream.request(n);
		}

		@Override
		public void cancel() {
			if (end()) {
				this.upstream.cancel();
				this.attempt.observation.stop();
			}
		}

		/** Ends the attempt, disarming its bound, if nothing else ended it first. */
		private boolean end() {
			if (!STATE.compareAndSet(this, RUNNING, ENDED)) {
				return false;
			}
			this.attempt.timeouts.disarm(this);
			return true;
		}

		private void failed(Throwable failure) {
			this.attempt.observation.failure(failure);
			this.actual.onNext(Result.failure(failure));
			this.actual.onComplete();
		}

	}

}
