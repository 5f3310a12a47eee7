package io.github.retryafter.boot.webclient;

import java.net.URI;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A caller cancelling while the response arrives, raced 10,000 times on two threads over a direct exchange function
 * (no network, no sleeping): each operation finishes once, with one outcome, and the response's body is released
 * either by the filter or by the subscriber that received it.
 */
class CancelRaceTests {

	private static final int RACES = 10_000;

	private final ExecutorService threads = Executors.newFixedThreadPool(2);

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
	}

	@Test
	void aCancelRacingAResponseEndsTheOperationOnceAndReleasesTheBody() throws Exception {
		RecordingListener events = new RecordingListener();
		RetryAfterExchangeFilterFunction filter = TestFilters.realTime(RetryPolicy.DEFAULTS, 1024, events);
		ClientRequest request = ClientRequest.create(HttpMethod.GET, URI.create("http://race.example/items")).build();
		CyclicBarrier start = new CyclicBarrier(2);
		AtomicInteger delivered = new AtomicInteger();
		int reachedFilterButCancelled = 0;
		for (int i = 0; i < RACES; i++) {
			Sinks.One<ClientResponse> arriving = Sinks.one();
			AtomicBoolean released = new AtomicBoolean();
			ClientResponse response = ClientResponse.create(HttpStatus.OK)
				.body(Flux.<DataBuffer>never().doFinally((signal) -> released.set(true)))
				.build();
			AtomicBoolean reachedFilter = new AtomicBoolean();
			AtomicBoolean exchangeCancelled = new AtomicBoolean();
			AtomicReference<ClientResponse> received = new AtomicReference<>();
			// a response that never left the exchange is the connector's to release (Spring's connector does, on cancel)
			// a subscriber that owns (and releases) what it receives, even when it arrives as it cancels
			BaseSubscriber<ClientResponse> subscription = new BaseSubscriber<>() {
				@Override
				protected void hookOnNext(ClientResponse got) {
					received.set(got);
					Drain.discard(got);
				}
			};
			filter.filter(request, (sent) -> arriving.asMono()
				.doOnCancel(() -> exchangeCancelled.set(true))
				.doOnNext((got) -> reachedFilter.set(true)))
				.subscribe(subscription);
			Future<?> respond = this.threads.submit(() -> {
				start.await();
				return arriving.tryEmitValue(response);
			});
			Future<?> cancel = this.threads.submit(() -> {
				start.await();
				subscription.dispose();
				return null;
			});
			respond.get();
			cancel.get();
			assertThat(events.finished).as("race %d", i).hasSize(i + 1);
			if (reachedFilter.get()) {
				assertThat(released).as("race %d: body released", i).isTrue();
			}
			else {
				assertThat(exchangeCancelled).as("race %d: exchange cancelled", i).isTrue();
			}
			if (received.get() != null) {
				delivered.incrementAndGet();
				assertThat(events.last().outcome()).isEqualTo(Outcome.SUCCESS);
			}
			else {
				assertThat(events.last().outcome()).isIn(Outcome.SUCCESS, Outcome.CANCELLED);
				reachedFilterButCancelled += reachedFilter.get() ? 1 : 0;
			}
		}
		assertThat(events.finished).hasSize(RACES);
		assertThat(events.attempts).hasSize(RACES);
		// both orders happened: the race was real
		assertThat(delivered.get()).isBetween(1, RACES - 1);
		System.out.println("cancel races: " + delivered + " delivered, " + reachedFilterButCancelled
				+ " reached the filter after the cancel and were released by it");
	}

}
