package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.reactivestreams.Subscription;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Scheduler;

/**
 * Reads and releases a response body the caller will not see, within bounds: at most {@code maxBytes}, and no longer
 * than {@code window}. A body that ends within both leaves its connection to go back to the pool; one that does not
 * is cancelled, and Reactor Netty closes a connection whose response body was cancelled rather than reuse it. A
 * window of zero or less reads only what is delivered at once, then cancels.
 * <p>
 * The {@link Mono} it completes never fails: a body that errors is as finished as one that ends. Each subscription
 * drives its own subscriber; the subscriber is used by one body, and may be stopped from any thread.
 */
final class Drain extends BaseSubscriber<DataBuffer> {

	private final long maxBytes;

	private final MonoSink<Void> done;

	/** Bytes read so far; written only by the body's signals, which Reactive Streams serializes. */
	private long drained;

	private Drain(long maxBytes, MonoSink<Void> done) {
		this.maxBytes = maxBytes;
		this.done = done;
	}

	/**
	 * Returns a {@link Mono} that drains {@code response}'s body within the bounds when subscribed, and completes when
	 * the body has ended or been cancelled. Cancelling the Mono cancels the body.
	 * @param response the response whose body to drain
	 * @param maxBytes the most bytes read
	 * @param window the longest time spent reading
	 * @param scheduler where the window's timer runs
	 * @return a Mono completing when the body is done with
	 */
	static Mono<Void> of(ClientResponse response, long maxBytes, Duration window, Scheduler scheduler) {
		return Mono.create((sink) -> {
			Drain drain = new Drain(maxBytes, sink);
			if (window.isNegative() || window.isZero()) {
				sink.onDispose(drain);
				response.body(BodyExtractors.toDataBuffers()).subscribe(drain);
				drain.stop();
				return;
			}
			Disposable timer = scheduler.schedule(drain::stop, window.toNanos(), TimeUnit.NANOSECONDS);
			sink.onDispose(() -> {
				timer.dispose();
				drain.dispose();
			});
			response.body(BodyExtractors.toDataBuffers()).subscribe(drain);
		});
	}

	/**
	 * Releases a body at once, reading only what has already arrived: for a response nobody will read.
	 * @param response the response to release
	 */
	static void discard(ClientResponse response) {
		Drain drain = new Drain(0, null);
		response.body(BodyExtractors.toDataBuffers()).subscribe(drain);
		drain.dispose();
	}

	/**
	 * Ends the drain: cancels the body and completes the drain's {@link Mono}. A body may hand over its subscription
	 * later than it was subscribed (Reactor Netty does so from its event loop when subscribed from another thread);
	 * stopped before then, the body is cancelled when its subscription arrives, and the Mono completes now rather than
	 * waiting for a signal that will never come.
	 */
	private void stop() {
		dispose();
		if (this.done != null) {
			this.done.success();
		}
	}

	@Override
	protected void hookOnSubscribe(Subscription subscription) {
		subscription.request(Long.MAX_VALUE);
	}

	@Override
	protected void hookOnNext(DataBuffer buffer) {
		this.drained += buffer.readableByteCount();
		DataBufferUtils.release(buffer);
		if (this.drained > this.maxBytes) {
			dispose();
		}
	}

	@Override
	protected void hookFinally(SignalType type) {
		if (this.done != null) {
			this.done.success();
		}
	}

	@Override
	protected void hookOnError(Throwable throwable) {
		// a body that fails is finished with: its connection is closed by the client
	}

}
