package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.retryafter.Ticker;

/**
 * The non-blocking attempt loop, beside {@link RetryLoop} and in the same order: {@code beforeAttempt} → wait → send
 * → {@code afterAttempt} → release, for a transport whose attempts complete later ({@link CompletionStage}) and
 * whose waits are timers, never a blocked thread. The rules are the blocking loop's own (its steps are shared): a
 * response the engine retries is stood in for and discarded, told how long until its retry is due, before the wait;
 * a response the engine, a listener or {@link Exchange#end} throws on is discarded at once; a wait is re-armed
 * against the ticker when a timer fires early, and ends at once when the operation's {@link
 * io.github.retryafter.Cancellation} fires (the next {@code beforeAttempt()} then refuses {@link Outcome#CANCELLED}).
 * <p>
 * Cancelling the returned future cancels the operation: a wait ends, no further attempt is sent, and a response
 * still arriving is discarded. The operation is driven by one step at a time (a send's completion, or a timer), so
 * {@link RetryOperation}, which is not thread-safe, is never called from two threads at once.
 * <p>
 * Immutable and thread-safe: one loop serves any number of operations.
 */
public final class AsyncRetryLoop {

	private final Ticker ticker;

	private final Timer timer;

	private AsyncRetryLoop(Ticker ticker, Timer timer) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.timer = Objects.requireNonNull(timer, "timer");
	}

	/**
	 * Returns a loop that stamps attempts on {@code ticker} and waits on {@code timer}.
	 * @param ticker the monotonic clock the engines' deadlines are on
	 * @param timer schedules the end of each wait (a virtual timer in tests)
	 * @return a new loop
	 */
	public static AsyncRetryLoop of(Ticker ticker, Timer timer) {
		return new AsyncRetryLoop(ticker, timer);
	}

	/**
	 * Returns the ticker attempts are stamped on and waits are measured against.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Drives {@code operation} to its end without blocking.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 * @param operation a started operation that has sent nothing yet
	 * @param exchange the transport's side
	 * @return completes with what {@link Exchange#end} made of the end, or exceptionally with what it threw;
	 * cancelling it cancels the operation
	 */
	public <T, R> CompletableFuture<R> run(RetryOperation operation, Exchange<T, R> exchange) {
		Run<T, R> run = new Run<>(this, operation, exchange);
		run.result.whenComplete((result, failure) -> {
			if (run.result.isCancelled()) {
				operation.cancellation().cancel();
			}
		});
		run.ask();
		return run.result;
	}

	/**
	 * Schedules a task on the transport's timers. Implementations never run the task on the calling thread before
	 * returning, and may run it early (the loop re-arms) but not never.
	 */
	@FunctionalInterface
	public interface Timer {

		/**
		 * Runs {@code task} once, about {@code delayNanos} from now.
		 * @param task what to run
		 * @param delayNanos the delay on the loop's ticker, at least 1
		 * @return withdraws the task if it has not run (best effort: a task that runs anyway finds its wait over)
		 */
		Runnable schedule(Runnable task, long delayNanos);

		/**
		 * Returns a timer whose tasks are {@link CompletableFuture#delayedExecutor delayed} and then run on
		 * {@code executor}; on the delaying thread itself when {@code executor} refuses them (it was shut down), so
		 * that a wait always ends. A task cannot be withdrawn; one that runs after its wait ended does nothing.
		 * Each pending task holds its operation until its instant, at the latest the operation's deadline.
		 * @param executor runs each step after a wait (the client's executor, for example)
		 * @return the timer
		 */
		static Timer delayed(Executor executor) {
			Objects.requireNonNull(executor, "executor");
			return (task, delayNanos) -> {
				CompletableFuture.delayedExecutor(Math.max(1, delayNanos), TimeUnit.NANOSECONDS).execute(() -> {
					try {
						executor.execute(task);
					}
					catch (RejectedExecutionException ex) {
						task.run();
					}
				});
				return NOTHING;
			};
		}

	}

	/** What withdraws a task that cannot be withdrawn. */
	private static final Runnable NOTHING = () -> {
	};

	/**
	 * A transport's side of the non-blocking loop: how to send one attempt, and what to do around it. One object per
	 * operation, called by one step at a time.
	 * @param <T> what one attempt returns
	 * @param <R> what the caller gets
	 */
	public interface Exchange<T, R> extends AttemptHooks<T> {

		/**
		 * Sends the request once, giving up after {@code proceed.bound()} when it names one.
		 * @param proceed the attempt's number, timeout and fields ({@link Permit.Proceed#writeFields})
		 * @return completes with the response, whatever its status, or exceptionally with the attempt's failure
		 * (a {@link CompletionException} is unwrapped)
		 */
		CompletionStage<T> send(Permit.Proceed proceed);

		/**
		 * Makes what the caller gets of the operation's end.
		 * @param stop how the operation ended, with its reason
		 * @param response the last response, or what {@link #standIn} made of it; {@code null} if none
		 * @param failure the last attempt's failure; {@code null} if it did not fail
		 * @return what the caller gets
		 * @throws Exception if the caller is to get an exception (the future completes exceptionally with it)
		 */
		R end(Decision.Stop stop, T response, Throwable failure) throws Exception;

	}

	/**
	 * One operation's run: its mutable state in one object, touched by one step at a time (each step is started by
	 * the previous one's completion or timer, never two at once).
	 */
	private static final class Run<T, R> {

		private final AsyncRetryLoop loop;

		private final RetryOperation operation;

		private final Exchange<T, R> exchange;

		final CompletableFuture<R> result = new CompletableFuture<>();

		/** The last response, or what stands for it, kept as what ends the operation. */
		private T response;

		/** The last attempt's failure, kept as what ends the operation. */
		private Throwable failure;

		Run(AsyncRetryLoop loop, RetryOperation operation, Exchange<T, R> exchange) {
			this.loop = loop;
			this.operation = operation;
			this.exchange = exchange;
		}

		/** Asks for the next attempt: sends it, waits for the gate, or ends. */
		void ask() {
			Permit permit;
			try {
				permit = this.operation.beforeAttempt();
			}
			catch (RuntimeException | Error ex) {
				fail(ex);
				return;
			}
			if (permit instanceof Permit.Proceed proceed) {
				send(proceed);
			}
			else if (permit instanceof Permit.Wait wait) {
				this.exchange.held(wait);
				await(wait.notBeforeNanos());
			}
			else {
				end(((Permit.Refused) permit).stop(), this.response, false);
			}
		}

		private void send(Permit.Proceed proceed) {
			long sentAt = this.loop.ticker.read();
			CompletionStage<T> sent;
			try {
				sent = this.exchange.send(proceed);
			}
			catch (RuntimeException ex) {
				failed(ex, sentAt);
				return;
			}
			sent.whenComplete((received, thrown) -> {
				if (thrown != null) {
					failed((thrown instanceof CompletionException && thrown.getCause() != null) ? thrown.getCause()
							: thrown, sentAt);
				}
				else {
					received(received, sentAt);
				}
			});
		}

		private void received(T received, long sentAt) {
			if (this.result.isDone()) {
				// the caller cancelled while the attempt was in flight: nobody will read this response
				this.exchange.discard(received, Duration.ZERO);
				this.operation.cancel();
				return;
			}
			Decision decision;
			try {
				decision = AttemptSteps.decide(this.operation, this.exchange, received, sentAt,
						this.loop.ticker.read());
			}
			catch (RuntimeException | Error ex) {
				fail(ex);
				return;
			}
			this.failure = null;
			if (decision instanceof Decision.Retry retry) {
				this.response = AttemptSteps.retrying(this.exchange, retry, received, this.loop.ticker.read());
				await(retry.notBeforeNanos());
			}
			else {
				end((Decision.Stop) decision, received, true);
			}
		}

		private void failed(Throwable thrown, long sentAt) {
			this.response = null;
			this.failure = thrown;
			Decision decision;
			try {
				decision = this.operation.afterFailure(thrown, this.exchange.classify(thrown), sentAt,
						this.loop.ticker.read());
			}
			catch (RuntimeException | Error ex) {
				fail(ex);
				return;
			}
			if (decision instanceof Decision.Retry retry) {
				this.exchange.retryScheduled(retry);
				await(retry.notBeforeNanos());
			}
			else {
				end((Decision.Stop) decision, null, false);
			}
		}

		/**
		 * Ends the operation with what the exchange makes of it. A response just received ({@code live}) is
		 * discarded if ending throws, or if the caller cancelled first; a stand-in was released before its wait.
		 */
		private void end(Decision.Stop stop, T last, boolean live) {
			R ended;
			try {
				ended = this.exchange.end(stop, last, this.failure);
			}
			catch (Exception | Error ex) {
				if (live) {
					this.exchange.discard(last, Duration.ZERO);
				}
				this.result.completeExceptionally(ex);
				return;
			}
			if (!this.result.complete(ended) && live) {
				this.exchange.discard(last, Duration.ZERO);
			}
		}

		/** The engine, a listener or the transport threw: the caller gets it, as from the blocking loop. */
		private void fail(Throwable thrown) {
			this.result.completeExceptionally(thrown);
		}

		/**
		 * Waits until the ticker reads {@code notBeforeNanos} (re-arming a timer that fires early), or until the
		 * operation is cancelled, then asks again, once.
		 */
		private void await(long notBeforeNanos) {
			new Wake(this, notBeforeNanos).arm();
		}

	}

	/** One wait: ends once, by its timer reaching the instant or by the operation's cancellation. */
	private static final class Wake implements Runnable {

		private final Run<?, ?> run;

		private final long notBeforeNanos;

		private final AtomicBoolean ended = new AtomicBoolean();

		private final Runnable onCancel = this::cancelled;

		private volatile Runnable withdraw;

		Wake(Run<?, ?> run, long notBeforeNanos) {
			this.run = run;
			this.notBeforeNanos = notBeforeNanos;
		}

		void arm() {
			this.run.operation.cancellation().onCancel(this.onCancel);
			if (!this.ended.get()) {
				schedule();
			}
		}

		/** Arms the timer for what is left; a timer that refuses ends the operation with its failure. */
		private void schedule() {
			long left = this.notBeforeNanos - this.run.loop.ticker.read();
			try {
				this.withdraw = this.run.loop.timer.schedule(this, Math.max(1, left));
			}
			catch (RuntimeException ex) {
				if (this.ended.compareAndSet(false, true)) {
					this.run.operation.cancellation().removeCallback(this.onCancel);
					this.run.operation.cancel();
					this.run.fail(ex);
				}
			}
		}

		/** The timer fired: re-armed if early, else the wait ends. */
		@Override
		public void run() {
			if (this.ended.get()) {
				return;
			}
			if (this.run.loop.ticker.read() < this.notBeforeNanos) {
				schedule();
				return;
			}
			if (this.ended.compareAndSet(false, true)) {
				this.run.operation.cancellation().removeCallback(this.onCancel);
				this.run.ask();
			}
		}

		private void cancelled() {
			if (this.ended.compareAndSet(false, true)) {
				Runnable pending = this.withdraw;
				if (pending != null) {
					pending.run();
				}
				this.run.ask();
			}
		}

	}

}
