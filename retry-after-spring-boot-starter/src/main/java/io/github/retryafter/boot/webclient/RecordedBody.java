package io.github.retryafter.boot.webclient;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.client.ClientRequest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.ReplaySafety;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryOperation;

/**
 * The request body exactly as the first attempt wrote it, so that every retry sends the same bytes instead of running
 * the request's {@link BodyInserter} again (which, for a body read from a stream, would send nothing the second time).
 * <p>
 * The first attempt's request is wrapped ({@link #recording}) so that what its inserter passes to
 * {@link ClientHttpRequest#writeWith} is copied, as it goes by, into a heap array of at most {@code limit} bytes;
 * {@link ClientHttpRequest#setComplete()} records an empty body. The headers the writer added (content type and
 * length) are recorded with it, and whether the body was a single buffer (a {@link Mono}, sent with a content length)
 * or a stream (sent chunked), so a retry is framed as the first attempt was. Nothing pooled is kept: the copy is plain
 * heap memory, so there is nothing to release when the operation ends, however it ends.
 * <p>
 * A body is replayable only once its writer completed within the limit. A body larger than the limit, written with
 * {@code writeAndFlushWith}, whose publisher failed, or not completely written when the response came back is not, and
 * {@link #notReplayable()} says why and what to do. A body never written (the connection failed before the request
 * went out) is recorded again by the next attempt.
 * <p>
 * One per operation. Written on the thread that writes the first attempt's body, read after that attempt's outcome
 * is known; the state is volatile, and the bytes are published by the write of the final state.
 */
final class RecordedBody {

	private enum State {

		NOT_WRITTEN(null), RECORDING("was still being written when the response came back"),
		COMPLETE(null), TOO_LARGE("is larger than retry.after.max-replay-body"),
		FLUSHED("was written with writeAndFlushWith (a stream of flushes)"), FAILED("failed while it was written");

		private final String problem;

		State(String problem) {
			this.problem = problem;
		}

	}

	private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

	private final int limit;

	private volatile State state = State.NOT_WRITTEN;

	/** The body as written so far; at most {@link #limit} bytes. */
	private byte[] bytes;

	private int size;

	private boolean single;

	private HttpHeaders headers;

	/**
	 * Creates an empty recording.
	 * @param limit the most bytes recorded: {@code retry.after.max-replay-body} of the request's provider
	 */
	RecordedBody(long limit) {
		this.limit = (int) Math.min(Math.max(0, limit), MAX_ARRAY);
	}

	/**
	 * Returns the request with its inserter writing through the recorder.
	 * @param request the original request
	 * @return a request that records what it writes
	 */
	ClientRequest recording(ClientRequest request) {
		BodyInserter<?, ? super ClientHttpRequest> inserter = request.body();
		return ClientRequest.from(request)
			.body((BodyInserter<Object, ClientHttpRequest>) (message, context) -> inserter
				.insert(new Recorder(message), context))
			.build();
	}

	/**
	 * Returns the request for a retry: the recorded bytes when the first attempt wrote the whole body, the recording
	 * request again when it wrote nothing.
	 * @param request the original request
	 * @return the request to send
	 * @throws IllegalStateException if the body is not replayable; check {@link #notReplayable()} first
	 */
	ClientRequest replaying(ClientRequest request) {
		State current = this.state;
		if (current == State.NOT_WRITTEN) {
			return recording(request);
		}
		if (current != State.COMPLETE) {
			throw new IllegalStateException("the request body " + current.problem + " and cannot be replayed");
		}
		return ClientRequest.from(request).body(this::replay).build();
	}

	/**
	 * Ends the operation {@code NOT_RETRYABLE} when the engine would retry {@code outcome} but this body, as the first
	 * attempt wrote it, cannot be sent again: the core's {@link ReplaySafety} decides, before the engine, so no retry
	 * is scheduled (nor reported) that cannot be sent.
	 * @param engine the operation's engine
	 * @param operation the operation, its attempt in flight
	 * @param outcome the attempt's outcome
	 * @return the stop, empty when the body can be replayed or the engine would not retry
	 */
	Optional<Decision.Stop> refusal(RetryEngine engine, RetryOperation operation, AttemptOutcome outcome) {
		Optional<String> problem = notReplayable();
		return problem.isEmpty() ? Optional.empty()
				: ReplaySafety.refuseUnreplayable(engine, operation, outcome, problem.get());
	}

	/**
	 * Says why the body cannot be sent again, if it cannot.
	 * @return a sentence for the operation's reason, empty when the body can be replayed
	 */
	Optional<String> notReplayable() {
		State current = this.state;
		if (current.problem == null) {
			return Optional.empty();
		}
		return Optional.of("the request body " + current.problem + ", so it cannot be replayed; to make the request"
				+ " retryable, send it with bodyValue(...) or a byte[] of at most retry.after.max-replay-body ("
				+ this.limit + " bytes), or raise that limit");
	}

	private Mono<Void> replay(ClientHttpRequest message, BodyInserter.Context context) {
		HttpHeaders target = message.getHeaders();
		this.headers.forEach((name, values) -> {
			if (!target.containsHeader(name)) {
				target.put(name, values);
			}
		});
		if (this.size == 0) {
			return message.setComplete();
		}
		Mono<DataBuffer> buffer = Mono.fromSupplier(() -> message.bufferFactory().wrap(ByteBuffer.wrap(this.bytes, 0, this.size)));
		return this.single ? message.writeWith(buffer) : message.writeWith(buffer.flux());
	}

	private void begin(HttpHeaders written, boolean single) {
		this.bytes = null;
		this.size = 0;
		this.single = single;
		this.headers = HttpHeaders.copyOf(written);
		this.state = State.RECORDING;
	}

	private void append(DataBuffer buffer) {
		if (this.state != State.RECORDING) {
			return;
		}
		int length = buffer.readableByteCount();
		if (length > this.limit - this.size) {
			this.bytes = null;
			this.state = State.TOO_LARGE;
			return;
		}
		int needed = this.size + length;
		if (this.bytes == null || this.bytes.length < needed) {
			int grown = (this.bytes == null) ? needed : Math.max(needed, (int) Math.min(this.limit, 2L * this.bytes.length));
			this.bytes = (this.bytes == null) ? new byte[grown] : Arrays.copyOf(this.bytes, grown);
		}
		buffer.toByteBuffer(buffer.readPosition(), ByteBuffer.wrap(this.bytes), this.size, length);
		this.size = needed;
	}

	private void complete() {
		if (this.state == State.RECORDING) {
			this.state = State.COMPLETE;
		}
	}

	private void fail() {
		if (this.state == State.RECORDING) {
			this.bytes = null;
			this.state = State.FAILED;
		}
	}

	/**
	 * The first attempt's request as its inserter sees it: every way of writing a body goes through the recording.
	 */
	private final class Recorder extends ClientHttpRequestDecorator {

		Recorder(ClientHttpRequest delegate) {
			super(delegate);
		}

		@Override
		public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
			if (body instanceof Mono<? extends DataBuffer> mono) {
				begin(getHeaders(), true);
				return super.writeWith(mono.doOnNext(RecordedBody.this::append)
					.doOnSuccess((ignored) -> complete())
					.doOnError((ex) -> fail()));
			}
			begin(getHeaders(), false);
			return super.writeWith(Flux.from(body)
				.doOnNext(RecordedBody.this::append)
				.doOnComplete(RecordedBody.this::complete)
				.doOnError((ex) -> fail()));
		}

		@Override
		public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			RecordedBody.this.bytes = null;
			RecordedBody.this.state = State.FLUSHED;
			return super.writeAndFlushWith(body);
		}

		@Override
		public Mono<Void> setComplete() {
			if (RecordedBody.this.state == State.NOT_WRITTEN) {
				begin(getHeaders(), true);
				complete();
			}
			return super.setComplete();
		}

	}

}
