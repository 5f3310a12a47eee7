package io.github.retryafter.boot.webclient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain ends within its window whatever the body does, including a body that hands over its subscription late, as
 * Reactor Netty's does when subscribed from a thread other than its event loop.
 */
class DrainTests {

	private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();

	private final LateBody body = new LateBody();

	private final ClientResponse response = ClientResponse.create(HttpStatus.SERVICE_UNAVAILABLE)
		.body(Flux.from(this.body))
		.build();

	@Test
	void aZeroWindowEndsAtOnceEvenBeforeTheBodyHandsOverItsSubscription() {
		StepVerifier.create(Drain.of(this.response, 1024, Duration.ZERO, this.scheduler))
			.expectComplete()
			.verify(Duration.ofSeconds(5));
		this.body.handOver();
		assertThat(this.body.cancelled).isTrue();
		assertThat(this.body.requested).isFalse();
	}

	@Test
	void aWindowThatClosesBeforeTheBodyHandsOverItsSubscriptionEndsTheDrain() {
		AtomicBoolean ended = new AtomicBoolean();
		Drain.of(this.response, 1024, Duration.ofMillis(40), this.scheduler).subscribe(null, null, () -> ended.set(true));
		this.scheduler.advanceTimeBy(Duration.ofMillis(39));
		assertThat(ended).isFalse();
		this.scheduler.advanceTimeBy(Duration.ofMillis(1));
		assertThat(ended).isTrue();
		this.body.handOver();
		assertThat(this.body.cancelled).isTrue();
	}

	@Test
	void aBodyThatEndsWithinTheWindowIsReadToItsEndAndNotCancelled() {
		AtomicBoolean ended = new AtomicBoolean();
		Drain.of(this.response, 1024, Duration.ofMillis(40), this.scheduler).subscribe(null, null, () -> ended.set(true));
		this.body.handOver();
		this.body.sendAndComplete("retry later");
		assertThat(ended).isTrue();
		assertThat(this.body.requested).isTrue();
		assertThat(this.body.cancelled).isFalse();
	}

	/** A body whose subscription is handed over when the test says so, not when it is subscribed. */
	private static final class LateBody implements org.reactivestreams.Publisher<DataBuffer> {

		private final AtomicReference<Subscriber<? super DataBuffer>> subscriber = new AtomicReference<>();

		volatile boolean cancelled;

		volatile boolean requested;

		@Override
		public void subscribe(Subscriber<? super DataBuffer> subscriber) {
			this.subscriber.set(subscriber);
		}

		void handOver() {
			this.subscriber.get().onSubscribe(new Subscription() {

				@Override
				public void request(long n) {
					LateBody.this.requested = true;
				}

				@Override
				public void cancel() {
					LateBody.this.cancelled = true;
				}

			});
		}

		void sendAndComplete(String text) {
			Subscriber<? super DataBuffer> target = this.subscriber.get();
			target.onNext(DefaultDataBufferFactory.sharedInstance.wrap(text.getBytes(StandardCharsets.UTF_8)));
			target.onComplete();
		}

	}

}
