package io.github.retryafter.jdk;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How a body of unknown length is read ahead: kept whole within the limit, sent once past it, and never published
 * twice. The publishers here answer on the thread that asks, so nothing waits.
 */
class RecordedBodyTests {

	private static final String TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);

	@Test
	void aBodyWithinTheLimitIsKeptAndPublishedTheSameEveryTime() throws Exception {
		RecordedBody body = RecordedBody.record(once(TEXT), 1024);
		assertThat(body.replayable()).isTrue();
		assertThat(body.problem()).isNull();
		assertThat(body.publisher().contentLength()).isEqualTo(TEXT.length());
		assertThat(read(body.publisher(), Long.MAX_VALUE).get(5, TimeUnit.SECONDS)).isEqualTo(TEXT);
		assertThat(read(body.publisher(), 1).get(5, TimeUnit.SECONDS)).isEqualTo(TEXT);
	}

	@Test
	void aBodyLargerThanTheLimitIsPublishedWholeOnceThenFails() throws Exception {
		RecordedBody body = RecordedBody.record(once(TEXT), 10);
		assertThat(body.replayable()).isFalse();
		assertThat(body.problem()).contains("larger than maxReplayBody (10 bytes)");
		assertThat(body.publisher().contentLength()).isEqualTo(-1);
		assertThat(read(body.publisher(), 1).get(5, TimeUnit.SECONDS)).isEqualTo(TEXT);
		CompletableFuture<String> again = read(body.publisher(), Long.MAX_VALUE);
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> again.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(IOException.class)
			.withMessageContaining("read once and cannot be sent again");
	}

	@Test
	void aBodyLargerThanTheLimitIsPublishedWholeToASubscriberThatAsksForEverything() throws Exception {
		RecordedBody body = RecordedBody.record(once(TEXT), 0);
		assertThat(read(body.publisher(), Long.MAX_VALUE).get(5, TimeUnit.SECONDS)).isEqualTo(TEXT);
	}

	@Test
	void anEmptyBodyIsKeptEvenWithNoRoom() throws Exception {
		RecordedBody body = RecordedBody.record(once(""), 0);
		assertThat(body.replayable()).isTrue();
		assertThat(read(body.publisher(), 1).get(5, TimeUnit.SECONDS)).isEmpty();
	}

	@Test
	void releaseCancelsTheRestOfABodyNoAttemptSent() throws InterruptedIOException {
		AtomicBoolean cancelled = new AtomicBoolean();
		BodyPublisher endless = BodyPublishers.fromPublisher((subscriber) -> subscriber.onSubscribe(new Flow.Subscription() {

			@Override
			public void request(long n) {
				subscriber.onNext(ByteBuffer.wrap(new byte[64]));
			}

			@Override
			public void cancel() {
				cancelled.set(true);
			}

		}));
		RecordedBody body = RecordedBody.record(endless, 100);
		assertThat(body.replayable()).isFalse();
		assertThat(cancelled).isFalse();
		body.release();
		assertThat(cancelled).isTrue();
	}

	private static BodyPublisher once(String text) {
		ByteArrayInputStream stream = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
		return BodyPublishers.ofInputStream(() -> stream);
	}

	/** Reads a publisher asking for {@code batch} items at a time, the next batch from within {@code onNext}. */
	private static CompletableFuture<String> read(Flow.Publisher<ByteBuffer> publisher, long batch) {
		CompletableFuture<String> result = new CompletableFuture<>();
		publisher.subscribe(new Flow.Subscriber<>() {

			private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

			private Flow.Subscription subscription;

			private long left;

			@Override
			public void onSubscribe(Flow.Subscription subscription) {
				this.subscription = subscription;
				this.left = batch;
				subscription.request(batch);
			}

			@Override
			public void onNext(ByteBuffer item) {
				byte[] chunk = new byte[item.remaining()];
				item.get(chunk);
				this.bytes.writeBytes(chunk);
				if (batch != Long.MAX_VALUE && --this.left == 0) {
					this.left = batch;
					this.subscription.request(batch);
				}
			}

			@Override
			public void onError(Throwable throwable) {
				result.completeExceptionally(throwable);
			}

			@Override
			public void onComplete() {
				result.complete(this.bytes.toString(StandardCharsets.UTF_8));
			}

		});
		return result;
	}

}
