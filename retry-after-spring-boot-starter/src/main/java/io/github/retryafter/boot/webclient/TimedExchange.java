package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.boot.AttemptTimeouts;
import io.github.retryafter.boot.observation.RetryAfterObservations.AttemptObservation;

/**
 * One attempt: its exchange, bounded by the attempt's time (unless the client's own timeouts alone bound it) and
 * observed, then what its owner makes of the result
 * (the final response delivered, or the wait and the next attempt). One object, the publisher, its subscription, the
 * subscriber to the exchange and the attempt's bound at once, in place of a chain of map, timeout, three peeks, an
 * error resume and a flat map; its bound costs a link in {@link AttemptTimeouts}, not a scheduled task, so an attempt
 * answered in time schedules nothing.
 * <p>
 * The response is handed to {@link Owner#arrived} as it leaves the exchange, before the bound may drop it, so that
 * its owner can release it whichever way the attempt ends. Whichever of the exchange's signal, the bound and a cancel
 * comes first ends the attempt; the others do nothing. The bound ends with the response's arrival, its headers: the
 * body, a stream included, is the caller's to read at the client's own pace. When the bound comes first the exchange
 * is cancelled and the
 * owner is given the same {@link TimeoutException} Reactor's {@code timeout} operator raises. What the owner returns
 * is relayed to the attempt's subscriber. Subscribed once: the owner makes a new one per attempt. It is also the
 * header source of its response's outcome, so the engine reads the response's header fields through it.
 */
final class TimedExchange extends AttemptTimeouts.Timeout
		implements Publisher<ClientResponse>, CoreSubscriber<ClientResponse>, Subscription, HeaderSource {

	private static final AtomicIntegerFieldUpdater<TimedExchange> STATE = AtomicIntegerFieldUpdater
		.newUpdater(TimedExchange.class, "state");

	private static final AtomicReferenceFieldUpdater<TimedExchange, Subscription> NEXT = AtomicReferenceFieldUpdater
		.newUpdater(TimedExchange.class, Subscription.class, "next");

	private static final int RUNNING = 0;

	private static final int ENDED = 1;

	private final Mono<ClientResponse> exchange;

	/** The attempt's bound, or {@code null} when the client's own timeouts alone bound it. */
	private final Duration bound;

	private final AttemptObservation observation;

	private final Owner owner;

	private final long sentAtNanos;

	private CoreSubscriber<? super ClientResponse> actual;

	private Subscription upstream;

	private volatile int state;

	/** The response's header fields, once it arrived; published to other threads with the owner's decision. */
	private HttpHeaders headers;

	/** The subscription to what the owner returned; cancelled (and so refused) once the subscriber cancels. */
	private volatile Subscription next;

	/**
	 * Creates the attempt.
	 * @param exchange sends the attempt
	 * @param bound the time the attempt is given, or {@code null} for none of its own
	 * @param observation told of the response, the failure, or a cancel
	 * @param owner takes the response as it arrives, says what follows the attempt, and arms its bound
	 * @param sentAtNanos when the attempt was sent, on the owner's ticker
	 */
	TimedExchange(Mono<ClientResponse> exchange, Duration bound, AttemptObservation observation, Owner owner,
			long sentAtNanos) {
		this.exchange = exchange;
		this.bound = bound;
		this.observation = observation;
		this.owner = owner;
		this.sentAtNanos = sentAtNanos;
	}

	@Override
	public void subscribe(Subscriber<? super ClientResponse> subscriber) {
		this.actual = Operators.toCoreSubscriber(subscriber);
		this.exchange.subscribe(this);
	}

	/**
	 * The operation an attempt belongs to.
	 */
	interface Owner {

		/**
		 * Returns where the attempt's bound is armed.
		 * @return the timeouts
		 */
		AttemptTimeouts timeouts();

		/**
		 * Takes ownership of the response as it leaves the exchange.
		 * @param response the response
		 */
		void arrived(ClientResponse response);

		/**
		 * Says what follows a response.
		 * @param response the response
		 * @param headers its header fields, for the engine
		 * @param sentAtNanos when its attempt was sent
		 * @return what the attempt's subscriber gets next
		 */
		Mono<ClientResponse> onResponse(ClientResponse response, HeaderSource headers, long sentAtNanos);

		/**
		 * Says what follows a failed attempt.
		 * @param failure what failed
		 * @param sentAtNanos when the attempt was sent
		 * @return what the attempt's subscriber gets next
		 */
		Mono<ClientResponse> onFailure(Throwable failure, long sentAtNanos);

	}

	/** The response's values of a header field: its outcome's header source. */
	@Override
	public List<String> values(String name) {
		return this.headers.getOrEmpty(name);
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
			if (this.state == RUNNING && this.bound != null) {
				AttemptTimeouts timeouts = this.owner.timeouts();
				timeouts.arm(this, this.bound);
				if (this.state != RUNNING) {
					timeouts.disarm(this);
				}
			}
		}
	}

	@Override
	public void onNext(ClientResponse response) {
		this.owner.arrived(response);
		if (!end()) {
			Operators.onNextDropped(response, currentContext());
			return;
		}
		try {
			this.observation.response(response.statusCode().value());
		}
		catch (RuntimeException ex) {
			failed(ex);
			return;
		}
		Mono<ClientResponse> then;
		try {
			this.headers = response.headers().asHttpHeaders();
			then = this.owner.onResponse(response, this, this.sentAtNanos);
		}
		catch (Throwable ex) {
			this.actual.onError(Operators.onOperatorError(null, ex, null, currentContext()));
			return;
		}
		relay(then);
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
					+ this.bound.toMillis() + "ms in 'map' (and no fallback has been configured)"));
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
		}
		else {
			Operators.terminate(NEXT, this);
		}
		this.observation.stop();
	}

	/** Ends the attempt, disarming its bound, if nothing else ended it first. */
	private boolean end() {
		if (!STATE.compareAndSet(this, RUNNING, ENDED)) {
			return false;
		}
		this.owner.timeouts().disarm(this);
		return true;
	}

	private void failed(Throwable failure) {
		this.observation.failure(failure);
		Mono<ClientResponse> then;
		try {
			then = this.owner.onFailure(failure, this.sentAtNanos);
		}
		catch (Throwable ex) {
			this.actual.onError(Operators.onOperatorError(null, ex, null, currentContext()));
			return;
		}
		relay(then);
	}

	/**
	 * Relays what the owner returned: at once when it is a value or nothing (the final response was delivered
	 * by the owner itself, the common case), else by subscribing to it.
	 */
	private void relay(Mono<ClientResponse> then) {
		if (then instanceof Callable<?> callable) {
			Object value;
			try {
				value = callable.call();
			}
			catch (Throwable ex) {
				this.actual.onError(Operators.onOperatorError(null, ex, null, currentContext()));
				return;
			}
			if (value != null) {
				this.actual.onNext((ClientResponse) value);
			}
			this.actual.onComplete();
			return;
		}
		then.subscribe(new Next(this));
	}

	/** Relays the signals of what the owner returned to the attempt's subscriber. */
	private static final class Next implements CoreSubscriber<ClientResponse> {

		private final TimedExchange attempt;

		Next(TimedExchange attempt) {
			this.attempt = attempt;
		}

		@Override
		public Context currentContext() {
			return this.attempt.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.setOnce(TimedExchange.NEXT, this.attempt, subscription)) {
				subscription.request(Long.MAX_VALUE);
			}
		}

		@Override
		public void onNext(ClientResponse response) {
			this.attempt.actual.onNext(response);
		}

		@Override
		public void onError(Throwable failure) {
			this.attempt.actual.onError(failure);
		}

		@Override
		public void onComplete() {
			this.attempt.actual.onComplete();
		}

	}

}
