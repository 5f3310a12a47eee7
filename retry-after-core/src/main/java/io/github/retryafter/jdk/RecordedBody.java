package io.github.retryafter.jdk;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A request body of unknown length ({@link BodyPublisher#contentLength()} {@code < 0}: an input stream, an iterable,
 * a custom publisher), read before the operation starts so that whether it can be replayed is known when the engine
 * is asked. A publisher of unknown length may publish once only ({@code ofInputStream} with a supplier that returns
 * the same stream publishes nothing the second time), so it is never subscribed to again.
 * <p>
 * A body that completes within the limit is kept, and every attempt sends exactly those bytes
 * ({@link BodyPublishers#ofByteArray}). A body larger than the limit, or whose publisher fails, cannot be replayed: the
 * first attempt sends what was read followed by the rest of the publisher (or its failure), so the server sees the
 * body as it would have without the adapter, and a later attempt that asks for the body again gets an
 * {@link IOException} instead of a different body. {@link #problem()} says why and what to do.
 * <p>
 * Reading happens on the caller's thread, one item at a time, so no more than the limit and one item is held.
 */
final class RecordedBody {

	/** What a publisher's completion is kept as until the continuation's subscriber can be told. */
	private static final Object COMPLETE = new Object();

	private static final byte[] NONE = {};

	private final BodyPublisher publisher;

	private final String problem;

	private final Continuation continuation;

	private RecordedBody(BodyPublisher publisher, String problem, Continuation continuation) {
		this.publisher = publisher;
		this.problem = problem;
		this.continuation = continuation;
	}

	/**
	 * Reads {@code body} until it completes, fails, or grows past {@code limit} bytes.
	 * @param body a publisher of unknown length, not subscribed to yet
	 * @param limit the most bytes kept for replay
	 * @return the recording
	 * @throws InterruptedIOException if interrupted while waiting for the publisher (the interrupt flag is restored
	 * and the publisher cancelled)
	 */
	static RecordedBody record(BodyPublisher body, int limit) throws InterruptedIOException {
		Reader reader = new Reader();
		try {
			body.subscribe(reader);
		}
		catch (RuntimeException ex) {
			reader.end(ex);
		}
		byte[] bytes = NONE;
		int size = 0;
		try {
			reader.awaitSubscription();
			while (true) {
				reader.request(1);
				Object signal = reader.awaitSignal();
				if (signal instanceof ByteBuffer buffer) {
					int length = buffer.remaining();
					if (length > limit - size) {
						ByteBuffer overflow = ByteBuffer.allocate(length).put(buffer).flip();
						return streamed(reader, bytes, size, overflow, "the request body, from a publisher of unknown length,"
								+ " is larger than maxReplayBody (" + limit + " bytes), so it was sent once, as it was read;"
								+ " to make the request retryable, send the body with BodyPublishers.ofByteArray(...) or"
								+ " ofString(...), or raise RetryingHttpClient.withMaxReplayBody(...)");
					}
					int needed = size + length;
					if (bytes.length < needed) {
						bytes = Arrays.copyOf(bytes, Math.max(needed, (int) Math.min(limit, 2L * bytes.length)));
					}
					buffer.get(bytes, size, length);
					size = needed;
				}
				else if (signal == COMPLETE) {
					return new RecordedBody(BodyPublishers.ofByteArray(bytes, 0, size), null, null);
				}
				else {
					return streamed(reader, bytes, size, null, "the request body's publisher failed after " + size
							+ " bytes (" + signal.getClass().getName() + "), so the body cannot be sent again; a body of"
							+ " unknown length is replayed only when its publisher completes within maxReplayBody");
				}
			}
		}
		catch (InterruptedException ex) {
			reader.cancel();
			Thread.currentThread().interrupt();
			InterruptedIOException interrupted = new InterruptedIOException("interrupted reading the request body");
			interrupted.initCause(ex);
			throw interrupted;
		}
	}

	private static RecordedBody streamed(Reader reader, byte[] bytes, int size, ByteBuffer overflow, String problem) {
		Deque<ByteBuffer> prefix = new ArrayDeque<>(2);
		if (size > 0) {
			prefix.add(ByteBuffer.wrap(bytes, 0, size));
		}
		if (overflow != null) {
			prefix.add(overflow);
		}
		Continuation continuation = new Continuation(reader, prefix);
		return new RecordedBody(continuation, problem, continuation);
	}

	/**
	 * Returns what every attempt sends: the recorded bytes, or the one-shot continuation of a body that cannot be
	 * replayed.
	 * @return the body publisher
	 */
	BodyPublisher publisher() {
		return this.publisher;
	}

	/**
	 * Returns whether every attempt sends the same bytes.
	 * @return whether the body completed within the limit
	 */
	boolean replayable() {
		return this.problem == null;
	}

	/**
	 * Says why the body cannot be replayed, and what to do about it.
	 * @return a sentence for the operation's reason; {@code null} when the body can be replayed
	 */
	String problem() {
		return this.problem;
	}

	/**
	 * Cancels the rest of a body that cannot be replayed if no attempt sent it (the operation was refused before its
	 * first attempt, or that attempt never asked for its body), so its source is released. Does nothing otherwise.
	 */
	void release() {
		if (this.continuation != null) {
			this.continuation.release();
		}
	}

	/**
	 * The subscriber to the caller's publisher: while the body is read it keeps what arrives for the reading thread;
	 * once a continuation has sent the recorded part, it passes everything on to the continuation's subscriber.
	 */
	private static final class Reader implements Flow.Subscriber<ByteBuffer> {

		private final ReentrantLock lock = new ReentrantLock();

		private final Condition changed = this.lock.newCondition();

		private final Deque<ByteBuffer> items = new ArrayDeque<>(2);

		private Flow.Subscription upstream;

		/** {@link #COMPLETE}, the publisher's failure, or {@code null} while it has not ended. */
		private Object terminal;

		private Flow.Subscriber<? super ByteBuffer> downstream;

		private boolean cancelled;

		@Override
		public void onSubscribe(Flow.Subscription subscription) {
			boolean cancel;
			this.lock.lock();
			try {
				cancel = this.upstream != null || this.cancelled;
				if (this.upstream == null) {
					this.upstream = subscription;
				}
				this.changed.signalAll();
			}
			finally {
				this.lock.unlock();
			}
			if (cancel) {
				subscription.cancel();
			}
		}

		@Override
		public void onNext(ByteBuffer item) {
			Flow.Subscriber<? super ByteBuffer> target;
			this.lock.lock();
			try {
				target = this.downstream;
				if (target == null) {
					this.items.add(item);
					this.changed.signalAll();
				}
			}
			finally {
				this.lock.unlock();
			}
			if (target != null) {
				target.onNext(item);
			}
		}

		@Override
		public void onError(Throwable throwable) {
			end(throwable);
		}

		@Override
		public void onComplete() {
			end(COMPLETE);
		}

		/** Ends the body with {@code signal} ({@link #COMPLETE} or a failure), once. */
		void end(Object signal) {
			Flow.Subscriber<? super ByteBuffer> target;
			this.lock.lock();
			try {
				target = this.downstream;
				if (target == null && this.terminal == null) {
					this.terminal = signal;
					this.changed.signalAll();
				}
			}
			finally {
				this.lock.unlock();
			}
			if (target != null) {
				tell(target, signal);
			}
		}

		/** Waits for the subscription, or for the publisher to end without giving one. */
		void awaitSubscription() throws InterruptedException {
			this.lock.lock();
			try {
				while (this.upstream == null && this.terminal == null) {
					this.changed.await();
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		/** Waits for the next item, taking it, or for the end, which is kept for the continuation. */
		Object awaitSignal() throws InterruptedException {
			this.lock.lock();
			try {
				while (this.items.isEmpty() && this.terminal == null) {
					this.changed.await();
				}
				return this.items.isEmpty() ? this.terminal : this.items.poll();
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Passes everything the publisher sends from now on to {@code target}; if the publisher has already ended,
		 * returns how instead.
		 */
		Object handOver(Flow.Subscriber<? super ByteBuffer> target) {
			this.lock.lock();
			try {
				if (this.terminal == null) {
					this.downstream = target;
				}
				return this.terminal;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Asks the publisher for more; one that throws instead of failing (the JDK 17 input stream publisher does when
		 * the stream does) is cancelled and ends the body with what it threw.
		 */
		void request(long n) {
			Flow.Subscription subscription = subscription();
			if (subscription == null) {
				return;
			}
			try {
				subscription.request(n);
			}
			catch (RuntimeException ex) {
				subscription.cancel();
				end(ex);
			}
		}

		void cancel() {
			Flow.Subscription subscription;
			this.lock.lock();
			try {
				this.cancelled = true;
				subscription = this.upstream;
			}
			finally {
				this.lock.unlock();
			}
			if (subscription != null) {
				subscription.cancel();
			}
		}

		private Flow.Subscription subscription() {
			this.lock.lock();
			try {
				return this.upstream;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	private static void tell(Flow.Subscriber<? super ByteBuffer> target, Object terminal) {
		if (terminal == COMPLETE) {
			target.onComplete();
		}
		else {
			target.onError((Throwable) terminal);
		}
	}

	/**
	 * The body of a request that cannot be replayed: what was read, then the rest of the caller's publisher. It can be
	 * subscribed to once; a second subscriber (a retry the engine allowed because the first attempt never went out, a
	 * redirect that re-sends the body) gets an {@link IOException} if the first one took any of it, never a different
	 * body.
	 */
	private static final class Continuation implements BodyPublisher {

		private final Reader reader;

		private final Deque<ByteBuffer> prefix;

		private final AtomicBoolean subscribed = new AtomicBoolean();

		Continuation(Reader reader, Deque<ByteBuffer> prefix) {
			this.reader = reader;
			this.prefix = prefix;
		}

		@Override
		public long contentLength() {
			return -1;
		}

		@Override
		public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
			if (!this.subscribed.compareAndSet(false, true)) {
				subscriber.onSubscribe(Relay.NOTHING);
				subscriber.onError(new IOException("the request body was read once and cannot be sent again"));
				return;
			}
			subscriber.onSubscribe(new Relay(this.reader, this.prefix, subscriber));
		}

		void release() {
			if (this.subscribed.compareAndSet(false, true)) {
				this.prefix.clear();
				this.reader.cancel();
			}
		}

	}

	/**
	 * A continuation's subscription: sends the recorded part as it is asked for, then hands the subscriber over to
	 * the caller's publisher, passing its demand on. Signals are serialized by a work-in-progress counter, so a
	 * subscriber that asks for more from within {@code onNext} is served by the same loop.
	 */
	private static final class Relay implements Flow.Subscription {

		static final Flow.Subscription NOTHING = new Flow.Subscription() {

			@Override
			public void request(long n) {
			}

			@Override
			public void cancel() {
			}

		};

		private final Reader reader;

		private final Deque<ByteBuffer> prefix;

		private final Flow.Subscriber<? super ByteBuffer> subscriber;

		private final AtomicLong demand = new AtomicLong();

		private final AtomicInteger work = new AtomicInteger();

		private volatile boolean live;

		private volatile boolean done;

		Relay(Reader reader, Deque<ByteBuffer> prefix, Flow.Subscriber<? super ByteBuffer> subscriber) {
			this.reader = reader;
			this.prefix = prefix;
			this.subscriber = subscriber;
		}

		@Override
		public void request(long n) {
			if (this.done) {
				return;
			}
			if (n <= 0) {
				cancel();
				this.subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
				return;
			}
			if (this.live) {
				this.reader.request(n);
				return;
			}
			this.demand.getAndUpdate((current) -> (current + n < 0) ? Long.MAX_VALUE : current + n);
			drain();
		}

		@Override
		public void cancel() {
			this.done = true;
			this.reader.cancel();
		}

		private void drain() {
			if (this.work.getAndIncrement() != 0) {
				return;
			}
			int missed = 1;
			do {
				while (!this.done) {
					if (this.live) {
						long wanted = this.demand.getAndSet(0);
						if (wanted > 0) {
							this.reader.request(wanted);
						}
						break;
					}
					if (!this.prefix.isEmpty()) {
						if (this.demand.get() == 0) {
							break;
						}
						this.demand.decrementAndGet();
						this.subscriber.onNext(this.prefix.poll());
						continue;
					}
					Object terminal = this.reader.handOver(this.subscriber);
					if (terminal != null) {
						this.done = true;
						tell(this.subscriber, terminal);
						break;
					}
					this.live = true;
				}
				missed = this.work.addAndGet(-missed);
			}
			while (missed != 0);
		}

	}

}
